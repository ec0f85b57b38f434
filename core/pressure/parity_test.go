package pressure

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/priority"
)

// oracleLine is one line of `kubeoracle evict` (the real kubelet eviction
// manager), recorded by testdata/record.sh.
type oracleLine struct {
	Evicted            *string  `json:"evicted"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds"`
	Message            *string  `json:"message"`
	NodeConditions     []string `json:"nodeConditions"`
	ThresholdsMet      []string `json:"thresholdsMet"`
	Reclaim            string   `json:"reclaim,omitempty"`
	Ranking            []string `json:"ranking,omitempty"`
	CriticalSkipped    []string `json:"criticalSkipped,omitempty"`
	Ambiguous          string   `json:"ambiguous,omitempty"`
}

// TestOracleParity replays every scenario of testdata/oracle through
// Synchronize and requires the kubelet's decisions: the pod evicted, its
// grace period and message, the node conditions, the thresholds met, the
// resource reclaimed, the ranking and the critical pods skipped. Where the
// kubelet's choice of threshold is Go map order (the oracle says
// "ambiguous"), Berth must say Ambiguous too and the threshold-dependent
// fields (message, thresholds) are not compared.
func TestOracleParity(t *testing.T) {
	names, err := filepath.Glob("testdata/oracle/*.oracle.jsonl")
	if err != nil || len(names) < 10 {
		t.Fatalf("corpus: %d scenarios (%v); want at least 10", len(names), err)
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".oracle.jsonl")
		t.Run(name, func(t *testing.T) { replay(t, "testdata/oracle/"+name) })
	}
}

func replay(t *testing.T, base string) {
	cfg, interval := scenarioConfig(t, base)
	all := scenarioPods(t, base)
	pods := all // the active ones: an evicted pod leaves the ranking
	want := readOracle(t, base+".oracle.jsonl")
	var st State
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, w := range want {
		data, err := os.ReadFile(fmt.Sprintf("%s.stats%d.json", base, i))
		if err != nil {
			t.Fatal(err)
		}
		sum, err := DecodeSummary(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := ResolvePodRefs(sum, all); err != nil {
			t.Fatal(err)
		}
		res := Synchronize(cfg, st, t0.Add(time.Duration(i)*interval), sum, pods)
		st = res.State
		got := lineOf(res)
		if w.Ambiguous != "" {
			if !res.Ambiguous {
				t.Errorf("observation %d: the oracle says %q; Berth did not flag it", i, w.Ambiguous)
			}
			w.Message, got.Message, w.ThresholdsMet, got.ThresholdsMet, w.Ambiguous = nil, nil, nil, nil, ""
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("observation %d (-kubelet +berth):\n%s", i, d)
		}
		if res.Evicted != nil {
			pods = without(pods, res.Evicted.Pod)
		}
	}
}

func lineOf(r Result) oracleLine {
	l := oracleLine{NodeConditions: []string{}, ThresholdsMet: []string{}, Reclaim: r.Reclaim,
		Ranking: r.Ranking, CriticalSkipped: r.CriticalSkipped}
	for _, c := range r.Conditions {
		l.NodeConditions = append(l.NodeConditions, string(c))
	}
	l.ThresholdsMet = append(l.ThresholdsMet, r.ThresholdsMet...)
	if e := r.Evicted; e != nil {
		key, msg, g := e.Pod.Key(), e.Message, e.GracePeriodSeconds
		l.Evicted, l.Message, l.GracePeriodSeconds = &key, &msg, &g
	}
	return l
}

func without(pods []*Pod, p *Pod) []*Pod {
	var out []*Pod
	for _, q := range pods {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

// scenarioConfig reads NAME.kubelet.yaml (a KubeletConfiguration, whose
// eviction fields Settings shares) and the --interval of NAME.args.
func scenarioConfig(t *testing.T, base string) (Config, time.Duration) {
	t.Helper()
	var s Settings
	if data, err := os.ReadFile(base + ".kubelet.yaml"); err == nil {
		if err := yaml.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := s.Parse()
	if err != nil {
		t.Fatal(err)
	}
	interval := 10 * time.Second
	if data, err := os.ReadFile(base + ".args"); err == nil {
		f := strings.Fields(string(data))
		if len(f) != 2 || f[0] != "--interval" {
			t.Fatalf("%s.args: want --interval D, got %q", base, data)
		}
		if interval, err = time.ParseDuration(f[1]); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, interval
}

// scenarioPods loads the cluster as berthd would see it: the manifest's
// pods, priorities admitted from the file's classes, in file order.
func scenarioPods(t *testing.T, base string) []*Pod {
	t.Helper()
	c, err := manifest.LoadFiles(base + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	classes := priority.NewClasses()
	for _, pc := range c.PriorityClasses {
		if err := classes.Set(pc); err != nil {
			t.Fatal(err)
		}
	}
	var pods []*Pod
	for _, p := range c.Pods {
		if err := classes.Admit(p); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, FromModel(p))
	}
	return pods
}

func readOracle(t *testing.T, path string) []oracleLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []oracleLine
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l oracleLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out
}
