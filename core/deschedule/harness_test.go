package deschedule_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/priority"
)

// oracleNow is descheduleroracle's default --now.
var oracleNow = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// oracleLine is one eviction line of `descheduleroracle run`.
type oracleLine struct {
	Pod      string `json:"pod"`
	Node     string `json:"node"`
	Profile  string `json:"profile"`
	Strategy string `json:"strategy"`
	Refused  string `json:"refused,omitempty"`
}

// oracleSummary is its last line.
type oracleSummary struct {
	Evicted       int            `json:"evicted"`
	Refused       int            `json:"refused"`
	LimitRefusals map[string]int `json:"limitRefusals"`
	Skipped       bool           `json:"skipped"`
	RepeatsAgree  bool           `json:"repeatsAgree"`
	Errors        []string       `json:"errors"`
}

func readOracle(t *testing.T, path string) ([]oracleLine, oracleSummary) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []oracleLine
	var sum oracleSummary
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		if strings.HasPrefix(text, `{"pod"`) {
			var l oracleLine
			if err := json.Unmarshal([]byte(text), &l); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			lines = append(lines, l)
		} else if err := json.Unmarshal([]byte(text), &sum); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return lines, sum
}

// splitPolicy separates the DeschedulerPolicy document of a file from the
// cluster's documents (the oracle's examples hold both).
func splitPolicy(data []byte) (pol, cluster []byte) {
	docs := strings.Split("\n"+string(data), "\n---")
	var rest []string
	for _, d := range docs {
		if strings.Contains(d, "kind: DeschedulerPolicy") {
			pol = []byte(d)
			continue
		}
		rest = append(rest, d)
	}
	return pol, []byte(strings.Join(rest, "\n---"))
}

type classList struct{ c *priority.Classes }

func (l classList) PriorityClassValue(name string) (int32, bool) {
	pc, ok := l.c.Get(name)
	if !ok {
		return 0, false
	}
	return pc.Value, true
}

// load reads a cluster (and the policy, from polData or the cluster file)
// as berthd would hold it: pods admitted (priorities resolved).
func load(t *testing.T, clusterPath string, polData []byte) (*policy.Policy, *deschedule.Cluster, error) {
	t.Helper()
	data, err := os.ReadFile(clusterPath)
	if err != nil {
		t.Fatal(err)
	}
	inline, clusterData := splitPolicy(data)
	if polData == nil {
		polData = inline
	}
	c, err := manifest.Decode(clusterPath, clusterData)
	if err != nil {
		t.Fatal(err)
	}
	classes := priority.NewClasses()
	for _, pc := range c.PriorityClasses {
		if err := classes.Set(pc); err != nil {
			t.Fatal(err)
		}
	}
	cl := &deschedule.Cluster{Nodes: c.Nodes, Namespaces: c.Namespaces, PDBs: c.PDBs}
	for _, p := range append(append(cl.Pods, c.Pods...), c.FinishedPods...) {
		if err := classes.Admit(p); err != nil {
			t.Fatal(err)
		}
		cl.Pods = append(cl.Pods, p)
	}
	pol, err := policy.Decode(polData, classList{classes})
	return pol, cl, err
}

func linesOf(res *deschedule.Result) []oracleLine {
	var out []oracleLine
	for _, e := range res.Evictions {
		out = append(out, oracleLine{Pod: e.Pod.Key(), Node: e.Node, Profile: e.Profile, Strategy: e.Strategy, Refused: e.Refused})
	}
	return out
}
