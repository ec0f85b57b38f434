package plugintest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

// corpusDir holds the parity package's random clusters and the oracle's
// traces for them.
const corpusDir = "../../../parity/testdata"

// oracleLine is one line of an oracle trace.
type oracleLine struct {
	Pod, Result, Node string
	Feasible          []string
	Reasons           map[string][]string
	PluginScores      map[string]map[string]int64
}

// TestParityCorpus replays the parity corpus (random clusters with every
// kind of constraint, and the oracle's traces) through this tree's
// plugins. Other plugins (InterPodAffinity, PodTopologySpread) also
// reject nodes there, so it checks what ours can be held to: every node
// the oracle found feasible passes our filters; a node we reject carries
// the oracle's reasons; our plugins' weighted scores over the oracle's
// feasible nodes are the oracle's. A trace is followed up to its first
// preemption; the pods whose outcome depends on nominations (which the
// replay leaves out) are placed as the oracle placed them, unchecked.
func TestParityCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "clusters", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Skipf("no parity corpus under %s", corpusDir)
	}
	var verdicts, scores int
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			v, s := replayCorpus(t, path, filepath.Join(corpusDir, "golden", name+".jsonl"))
			verdicts += v
			scores += s
		})
	}
	t.Logf("%d clusters: %d node verdicts and %d plugin scores agree with the oracle", len(files), verdicts, scores)
}

func replayCorpus(t *testing.T, clusterPath, tracePath string) (verdicts, scores int) {
	c := plugintest.Load(t, clusterPath)
	filters, scorers := plugintest.Profile(t, c.Args)
	f, err := os.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var line oracleLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Result == "nominated" {
			return verdicts, scores // victims would have to leave first
		}
		if line.Result != "bound" && line.Result != "unschedulable" {
			continue
		}
		i := slices.IndexFunc(c.Pending, func(p *model.Pod) bool { return p.Key() == line.Pod })
		if i < 0 {
			t.Fatalf("no pending pod %s", line.Pod)
		}
		if !c.NominationsMatter(c.Pending[i]) {
			v, s := checkCorpusLine(t, c, c.Pending[i], &line, filters, scorers)
			verdicts += v
			scores += s
		}
		if line.Result == "bound" {
			c.Bind(t, c.Pending[i], line.Node)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return verdicts, scores
}

func checkCorpusLine(t *testing.T, c *plugintest.Cluster, pod *model.Pod, line *oracleLine, filters []framework.Plugin, scorers []plugintest.Weighted) (verdicts, scores int) {
	ctx := context.Background()
	state := framework.NewCycleState()
	skipped := map[string]bool{}
	var rejected *framework.Status
	var narrowed *framework.PreFilterResult
	for _, pl := range filters {
		pf, ok := pl.(framework.PreFilterPlugin)
		if !ok {
			continue
		}
		r, st := pf.PreFilter(ctx, state, pod, c.Nodes)
		switch {
		case st.IsSkip():
			skipped[pl.Name()] = true
		case !st.IsSuccess():
			rejected = st
		}
		narrowed = narrowed.Merge(r)
	}
	var feasible []*framework.NodeInfo
	for _, ni := range c.Nodes {
		node := ni.Name()
		wantFeasible := slices.Contains(line.Feasible, node)
		st := rejected
		if st == nil && !narrowed.AllNodes() {
			if _, ok := narrowed.NodeNames[node]; !ok {
				if _, listed := line.Reasons[node]; listed || wantFeasible {
					t.Errorf("%s on %s: left out by our PreFilterResult, listed by the oracle", pod.Key(), node)
				}
				continue
			}
		}
		if st == nil {
			for _, pl := range filters {
				if f, ok := pl.(framework.FilterPlugin); ok && !skipped[pl.Name()] {
					if st = f.Filter(ctx, state, pod, ni); !st.IsSuccess() {
						break
					}
				}
			}
		}
		verdicts++
		switch {
		case wantFeasible && !st.IsSuccess():
			t.Errorf("%s on %s: feasible for the oracle, we say %v", pod.Key(), node, st)
		case !wantFeasible && !st.IsSuccess():
			if diff := cmp.Diff(line.Reasons[node], st.Reasons()); diff != "" {
				t.Errorf("%s on %s: reasons (-oracle +ours):\n%s", pod.Key(), node, diff)
			}
		}
		if wantFeasible {
			feasible = append(feasible, ni)
		}
	}
	if len(feasible) == 0 {
		return verdicts, 0
	}
	for _, w := range scorers {
		scores += checkCorpusScores(t, pod, line, state.Clone(), feasible, w)
	}
	return verdicts, scores
}

func checkCorpusScores(t *testing.T, pod *model.Pod, line *oracleLine, state *framework.CycleState, feasible []*framework.NodeInfo, w plugintest.Weighted) int {
	ctx := context.Background()
	pl := w.Plugin
	_, oracleScored := line.PluginScores[feasible[0].Name()][pl.Name()]
	if ps, ok := pl.(framework.PreScorePlugin); ok {
		if st := ps.PreScore(ctx, state, pod, feasible); st.IsSkip() {
			if oracleScored {
				t.Errorf("%s: %s skipped scoring, the oracle scored", pod.Key(), pl.Name())
			}
			return 0
		}
	}
	if !oracleScored {
		t.Errorf("%s: %s scored, the oracle skipped it", pod.Key(), pl.Name())
		return 0
	}
	list := make(framework.NodeScoreList, len(feasible))
	for i, ni := range feasible {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			t.Fatalf("%s: %s Score: %v", pod.Key(), pl.Name(), st)
		}
		list[i] = framework.NodeScore{Name: ni.Name(), Score: s}
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		ext.NormalizeScore(ctx, state, pod, list)
	}
	for _, s := range list {
		if want, got := line.PluginScores[s.Name][pl.Name()], s.Score*w.Weight; want != got {
			t.Errorf("%s on %s: %s scores %d, the oracle %d", pod.Key(), s.Name, pl.Name(), got, want)
		}
	}
	return len(list)
}
