package interpodaffinity_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

// corpusDir holds the parity package's random clusters (spread, affinity,
// taints, node affinity, priorities) and the oracle's traces for them.
const corpusDir = "../../parity/testdata"

// traceLine is one line of an oracle trace.
type traceLine struct {
	Pod, Result, Node string
	Feasible          []string
	Reasons           map[string][]string
	Unresolvable      []string
	PluginScores      map[string]map[string]int64
}

// TestParityCorpus replays every cluster of the parity corpus through the
// default profile (the plugins Berth has, with PodTopologySpread and
// InterPodAffinity) and requires the oracle's outcome for each pod:
// feasible nodes, every rejected node's reasons, the unresolvable nodes
// and every plugin's weighted score. A trace is followed up to its first
// preemption (the victims would have to leave first); the pods whose
// outcome depends on nominations (which the replay leaves out) are placed
// as the oracle placed them, unchecked.
func TestParityCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "clusters", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Skipf("no parity corpus under %s", corpusDir)
	}
	var pods int
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			pods += replayTrace(t, path, filepath.Join(corpusDir, "golden", name+".jsonl"))
		})
	}
	t.Logf("%d clusters: %d pods placed as the oracle placed them", len(files), pods)
}

func replayTrace(t *testing.T, clusterPath, tracePath string) int {
	c, h := plugintest.LoadWithHandle(t, clusterPath)
	filters, scorers := plugintest.FullProfile(t, c, h, "", "")
	ours := map[string]bool{}
	for _, w := range scorers {
		ours[w.Plugin.Name()] = true
	}
	f, err := os.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		var line traceLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Result == "nominated" {
			break
		}
		if line.Result != "bound" && line.Result != "unschedulable" {
			continue
		}
		i := slices.IndexFunc(c.Pending, func(p *model.Pod) bool { return p.Key() == line.Pod })
		if i < 0 {
			t.Fatalf("no pending pod %s", line.Pod)
		}
		if !c.NominationsMatter(c.Pending[i]) {
			got := plugintest.Run(t, c, c.Pending[i], filters, scorers)
			if diff := cmp.Diff(oracleOutcome(&line, ours), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s (-oracle +ours):\n%s", line.Pod, diff)
			}
			n++
		}
		if line.Result == "bound" {
			c.Bind(t, c.Pending[i], line.Node)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// oracleOutcome converts a trace line, keeping the scores of our plugins.
func oracleOutcome(l *traceLine, ours map[string]bool) plugintest.Outcome {
	out := plugintest.Outcome{Feasible: l.Feasible, Reasons: l.Reasons, Unresolvable: l.Unresolvable}
	for node, ps := range l.PluginScores {
		for pl, s := range ps {
			if !ours[pl] {
				continue
			}
			if out.Scores == nil {
				out.Scores = map[string]map[string]int64{}
			}
			if out.Scores[pl] == nil {
				out.Scores[pl] = map[string]int64{}
			}
			out.Scores[pl][node] = s
		}
	}
	return out
}
