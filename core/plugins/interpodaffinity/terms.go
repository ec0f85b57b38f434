package interpodaffinity

import (
	"fmt"
	"maps"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// term is an affinity term of the pod being scheduled, ready to be matched
// against running pods. The namespaces its namespaceSelector selects are
// merged into namespaces once per cycle, so matching needs no namespace
// labels.
type term struct {
	namespaces map[string]struct{}
	// anyNamespace: the namespaceSelector matches an empty label set.
	// kube-scheduler matches the incoming pod's selector against no labels
	// after merging, so such a selector (empty, or only NotIn and
	// DoesNotExist requirements) admits every namespace.
	anyNamespace bool
	// namespace is the only namespace when there is exactly one (the
	// common case), to compare instead of looking up.
	namespace   string
	selector    model.Selector
	topologyKey string
	weight      int32 // preferred terms only
}

// matches reports whether a running pod is selected by the term.
func (t *term) matches(pod *model.Pod) bool {
	switch {
	case t.anyNamespace:
	case t.namespace != "":
		if pod.Namespace != t.namespace {
			return false
		}
	default:
		if _, ok := t.namespaces[pod.Namespace]; !ok {
			return false
		}
	}
	return t.selector.Matches(pod.Labels)
}

// matchesAll reports whether pod matches every term; false for no terms.
func matchesAll(terms []term, pod *model.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].matches(pod) {
			return false
		}
	}
	return true
}

// selects reports whether a running pod's term selects the pod, whose
// namespace has labels nsLabels. It is framework.AffinityTerm.Matches with
// the selector tested first: the pod's labels are in cache while the
// running pods' terms are not, and most terms do not select the pod, so
// their namespaces need no lookup.
func selects(t *framework.AffinityTerm, pod *model.Pod, nsLabels map[string]string) bool {
	if !t.Selector.Matches(pod.Labels) {
		return false
	}
	_, ok := t.Namespaces[pod.Namespace]
	return ok || t.NamespaceSelector.Matches(nsLabels)
}

// compileTerms compiles terms of pod, resolving their namespaceSelectors
// with ns (nil: no namespaces are known).
func compileTerms(pod *model.Pod, terms []model.PodAffinityTerm, ns framework.NamespaceLister) ([]term, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]term, len(terms))
	for i := range terms {
		at, err := framework.CompileAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, fmt.Errorf("term %d: %w", i, err)
		}
		out[i] = newTerm(&at, ns)
	}
	return out, nil
}

// compileWeightedTerms is compileTerms for preferred terms.
func compileWeightedTerms(pod *model.Pod, terms []model.WeightedPodAffinityTerm, ns framework.NamespaceLister) ([]term, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]term, len(terms))
	for i := range terms {
		at, err := framework.CompileAffinityTerm(pod, &terms[i].Term)
		if err != nil {
			return nil, fmt.Errorf("term %d: %w", i, err)
		}
		out[i] = newTerm(&at, ns)
		out[i].weight = terms[i].Weight
	}
	return out, nil
}

// newTerm resolves the namespaceSelector of a freshly compiled term (whose
// namespace set it may extend).
func newTerm(at *framework.AffinityTerm, ns framework.NamespaceLister) term {
	t := term{namespaces: at.Namespaces, selector: at.Selector, topologyKey: at.TopologyKey}
	sel := at.NamespaceSelector
	t.anyNamespace = sel.Matches(nil)
	if !t.anyNamespace && !sel.IsNothing() && ns != nil {
		for _, name := range ns.NamespacesMatching(sel) {
			t.namespaces[name] = struct{}{}
		}
	}
	if len(t.namespaces) == 1 {
		for name := range t.namespaces {
			t.namespace = name
		}
	}
	return t
}

// pair is a topology domain: a node label key and value.
type pair struct {
	key, value string
}

// pairCount is a count for a pair, as collected per chunk of nodes.
type pairCount struct {
	pair
	count int64
}

// appendPair appends (key, node's value) with count when the node has the
// key.
func appendPair(list []pairCount, node *model.Node, key string, count int64) []pairCount {
	if v, ok := node.Labels[key]; ok {
		list = append(list, pairCount{pair{key, v}, count})
	}
	return list
}

// topologyCounts counts pods per topology pair, grouped by key (there are
// few keys, one per term at most), so a lookup hashes only the value. A
// pair whose count drops to zero is removed: len reports whether any pod
// is counted anywhere.
type topologyCounts struct {
	byKey []keyCounts
	len   int
}

type keyCounts struct {
	key    string
	values map[string]int64
}

// values returns the counts of key; nil when none was ever added.
func (c *topologyCounts) values(key string) map[string]int64 {
	for i := range c.byKey {
		if c.byKey[i].key == key {
			return c.byKey[i].values
		}
	}
	return nil
}

func (c *topologyCounts) add(p pair, delta int64) {
	m := c.values(p.key)
	if m == nil {
		m = make(map[string]int64)
		c.byKey = append(c.byKey, keyCounts{p.key, m})
	}
	n, seen := m[p.value]
	switch n += delta; {
	case n == 0:
		delete(m, p.value)
		if seen {
			c.len--
		}
	case !seen:
		m[p.value] = n
		c.len++
	default:
		m[p.value] = n
	}
}

// addNode adds delta to the pair (key, node's value) if the node has key.
func (c *topologyCounts) addNode(node *model.Node, key string, delta int64) {
	if v, ok := node.Labels[key]; ok {
		c.add(pair{key, v}, delta)
	}
}

// merge adds up a list of counts.
func (c *topologyCounts) merge(list []pairCount) {
	for _, pc := range list {
		c.add(pc.pair, pc.count)
	}
}

// at returns the count of the node's domain for key; 0 when the node lacks
// the key.
func (c *topologyCounts) at(node *model.Node, key string) int64 {
	if m := c.values(key); m != nil {
		if v, ok := node.Labels[key]; ok {
			return m[v]
		}
	}
	return 0
}

// anyAt reports whether the node lies in a counted domain of any key.
func (c *topologyCounts) anyAt(node *model.Node) bool {
	for i := range c.byKey {
		if v, ok := node.Labels[c.byKey[i].key]; ok && c.byKey[i].values[v] > 0 {
			return true
		}
	}
	return false
}

func (c *topologyCounts) clone() topologyCounts {
	out := topologyCounts{byKey: make([]keyCounts, len(c.byKey)), len: c.len}
	for i, kc := range c.byKey {
		out.byKey[i] = keyCounts{kc.key, maps.Clone(kc.values)}
	}
	return out
}
