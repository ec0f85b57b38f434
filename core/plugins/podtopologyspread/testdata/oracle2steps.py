# Turns the oracle's trace into the rows of a plugin's oracle table test:
#
#   /tmp/kubeoracle place -f testdata/x.yaml > /tmp/x.jsonl
#   python3 oracle2steps.py /tmp/x.jsonl '{"Insufficient cpu": "cpu"}'
#
# prints Go []plugintest.Step elements. The optional JSON object maps reason
# strings to Go identifiers of the test. The test file defines the aliases
# nodes = []string, reasons = map[string][]string,
# scores = map[string]map[string]int64 and the plugin name constants tt, na,
# fit, ba, pts and ipa (see oracle_test.go). Copied from
# core/plugins/helper/plugintest/testdata with PodTopologySpread and
# InterPodAffinity added.
import json, sys
path = sys.argv[1]
names = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
R = lambda x: names.get(x, json.dumps(x))
plugins = [('TaintToleration', 'tt'), ('NodeAffinity', 'na'), ('NodeResourcesFit', 'fit'), ('NodeResourcesBalancedAllocation', 'ba'),
           ('PodTopologySpread', 'pts'), ('InterPodAffinity', 'ipa')]
def strs(xs): return 'nodes{' + ', '.join(json.dumps(x) for x in xs) + '}'
out = []
for line in open(path):
    r = json.loads(line)
    if r['result'] not in ('bound', 'unschedulable'):
        out.append('\t// %s: %s' % (r['pod'], r['result'])); continue
    node = r.get('node', '') if r['result'] == 'bound' else ''
    parts = []
    if r.get('feasible'): parts.append('Feasible: ' + strs(r['feasible']) + ',')
    if r.get('reasons'):
        parts.append('Reasons: reasons{' + ', '.join('%s: {%s}' % (json.dumps(n), ', '.join(R(x) for x in rs)) for n, rs in sorted(r['reasons'].items())) + '},')
    if r.get('unresolvable'): parts.append('Unresolvable: ' + strs(r['unresolvable']) + ',')
    sc = {}
    for n, ps in (r.get('pluginScores') or {}).items():
        for p, v in ps.items():
            sc.setdefault(p, {})[n] = v
    rows = ['\t%s: {%s},' % (short, ', '.join('%s: %d' % (json.dumps(n), v) for n, v in sorted(sc[p].items()))) for p, short in plugins if p in sc]
    if rows: parts.append('Scores: scores{\n\t\t' + '\n\t\t'.join(rows) + '\n\t\t},')
    out.append('\t{Pod: %s, Node: %s, Want: plugintest.Outcome{\n\t\t%s\n\t}},' % (json.dumps(r['pod']), json.dumps(node), '\n\t\t'.join(parts)))
print('\n'.join(out))
