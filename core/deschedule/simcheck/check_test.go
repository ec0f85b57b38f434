package simcheck_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/simcheck"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/simulate"
)

func loadCluster(t *testing.T, path string) (*deschedule.Cluster, []*model.PriorityClass) {
	t.Helper()
	c, err := manifest.LoadFiles(path)
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
	for _, p := range append(append([]*model.Pod{}, c.Pods...), c.FinishedPods...) {
		if err := classes.Admit(p); err != nil {
			t.Fatal(err)
		}
		cl.Pods = append(cl.Pods, p)
	}
	return cl, c.PriorityClasses
}

// oracleEvictions reads the real Descheduler's evictions of a scenario.
func oracleEvictions(t *testing.T, path string, c *deschedule.Cluster) []simcheck.Eviction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byKey := map[string]*model.Pod{}
	for _, p := range c.Pods {
		byKey[p.Key()] = p
	}
	var out []simcheck.Eviction
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l struct{ Pod, Strategy, Refused string }
		if !strings.HasPrefix(sc.Text(), `{"pod"`) {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Refused != "" {
			continue
		}
		p, ok := byKey[l.Pod]
		if !ok {
			t.Fatalf("%s: the oracle evicted %s, which the cluster does not hold", path, l.Pod)
		}
		out = append(out, simcheck.Eviction{Pod: p, Strategy: l.Strategy})
	}
	return out
}

// TestCorpusLandBack runs Berth's check on every eviction the real
// Descheduler makes on the parity corpus and reports, per strategy, how
// many Berth keeps, how many would land back on their node, how many the
// scheduler would place nowhere and how many would not reduce what the
// strategy saw. Every kept move must go to another node, and the cluster
// with all kept moves applied must fit every node's allocatable.
func TestCorpusLandBack(t *testing.T) {
	policies, _ := filepath.Glob("../testdata/corpus/*.policy.yaml")
	if len(policies) < 200 {
		t.Fatalf("corpus has %d scenarios", len(policies))
	}
	type tally struct{ total, kept, back, nowhere, notReduced int }
	tallies := map[string]*tally{}
	ctx := context.Background()
	for i, path := range policies {
		if raceDetector && i%5 != 0 {
			continue
		}
		base := strings.TrimSuffix(path, ".policy.yaml")
		c, classes := loadCluster(t, base+".yaml")
		evs := oracleEvictions(t, base+".oracle.jsonl", c)
		plan, err := simcheck.Check(ctx, simcheck.Input{Cluster: c, PriorityClasses: classes, Sim: simulate.Options{Registry: registry.InTree()}}, evs)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if len(plan.Moves)+len(plan.Skipped) != len(evs) {
			t.Fatalf("%s: %d moves + %d skips for %d evictions", base, len(plan.Moves), len(plan.Skipped), len(evs))
		}
		for _, m := range plan.Moves {
			tl := tallyOf(tallies, m.Strategy)
			tl.total++
			tl.kept++
			if m.To == m.From {
				t.Errorf("%s: %s moved from %s to itself", base, m.Pod.Key(), m.From)
			}
		}
		for _, s := range plan.Skipped {
			tl := tallyOf(tallies, s.Strategy)
			tl.total++
			switch {
			case s.Reason == "":
				t.Errorf("%s: %s skipped without a reason", base, s.Pod.Key())
			case s.LandsBack:
				tl.back++
			case strings.HasPrefix(s.Reason, "the scheduler would place it nowhere"):
				tl.nowhere++
			default:
				tl.notReduced++
			}
		}
		checkFits(t, base, c, plan)
	}
	names := make([]string, 0, len(tallies))
	for n := range tallies {
		names = append(names, n)
	}
	sort.Strings(names)
	var all tally
	for _, n := range names {
		tl := tallies[n]
		t.Logf("%-44s %3d evictions: kept %3d, lands back %3d, placed nowhere %3d, not reduced %3d", n, tl.total, tl.kept, tl.back, tl.nowhere, tl.notReduced)
		all.total, all.kept, all.back, all.nowhere, all.notReduced = all.total+tl.total, all.kept+tl.kept, all.back+tl.back, all.nowhere+tl.nowhere, all.notReduced+tl.notReduced
	}
	t.Logf("%-44s %3d evictions: kept %3d, lands back %3d, placed nowhere %3d, not reduced %3d", "all", all.total, all.kept, all.back, all.nowhere, all.notReduced)
}

func tallyOf[T any](m map[string]*T, k string) *T {
	if m[k] == nil {
		m[k] = new(T)
	}
	return m[k]
}

// checkFits applies the kept moves and requires every node's requests to
// fit its allocatable where they did before.
func checkFits(t *testing.T, base string, c *deschedule.Cluster, plan *simcheck.Plan) {
	t.Helper()
	to := map[*model.Pod]string{}
	for _, m := range plan.Moves {
		to[m.Pod] = m.To
	}
	used := map[string]*model.Resources{}
	for _, n := range c.Nodes {
		used[n.Name] = &model.Resources{}
	}
	for _, p := range c.Pods {
		node := p.NodeName
		if dest, ok := to[p]; ok {
			node = dest
		}
		if node == "" || used[node] == nil || p.Runtime.EffectivePhase() == model.PodSucceeded || p.Runtime.EffectivePhase() == model.PodFailed {
			continue
		}
		r := model.ComputeRequests(p).Requests
		used[node].Add(&r)
	}
	for _, n := range c.Nodes {
		for _, name := range []string{model.ResourceCPU, model.ResourceMemory} {
			if alloc, ok := n.Allocatable[name]; ok && used[n.Name].Get(name) > alloc {
				before := int64(0)
				for _, p := range c.Pods {
					if p.NodeName == n.Name {
						r := model.ComputeRequests(p).Requests
						before += r.Get(name)
					}
				}
				if before <= alloc {
					t.Errorf("%s: after the kept moves %s uses %d %s of %d", base, n.Name, used[n.Name].Get(name), name, alloc)
				}
			}
		}
	}
}
