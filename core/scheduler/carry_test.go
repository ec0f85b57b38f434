package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
)

// localCluster is a random cluster where every plugin a pod runs is
// node-local, so filtering and scoring mostly read the memo: nodes of
// several sizes, some tainted PreferNoSchedule (TaintToleration scores and
// normalizes), labelled for preferred node affinity (NodeAffinity scores
// and normalizes), with images (ImageLocality), changing between pods.
type localCluster struct {
	r       *rand.Rand
	nodes   []*model.Node
	running []*model.Pod
	next    int
}

func (c *localCluster) node(i int) *model.Node {
	b := mt.MakeNode(fmt.Sprintf("node-%04d", i)).
		Capacity(mt.Res(int64(2000+c.r.IntN(4)*2000), int64(4+c.r.IntN(4)*4)*mt.Gi)).
		Label("tier", fmt.Sprintf("t%d", c.r.IntN(3)))
	if c.r.IntN(5) == 0 {
		b.Taint("spot", "true", model.TaintEffectPreferNoSchedule)
	}
	n := b.Obj()
	if c.r.IntN(3) == 0 {
		n.Images = []model.ContainerImage{{Names: []string{"app:1"}, SizeBytes: 300 * mt.Mi}}
	}
	return n
}

// pod is one of a few look-alike templates (so signatures repeat and the
// memo is warm), with the odd pod that fits no node.
func (c *localCluster) pod() *model.Pod {
	c.next++
	kind := c.r.IntN(8)
	b := mt.MakePod(fmt.Sprintf("pod-%05d", c.next)).Req(mt.Res(int64(250+kind%3*250), 512*mt.Mi))
	switch kind {
	case 0:
		b.PreferredNodeAffinity(10, model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{
			{Key: "tier", Operator: model.NodeSelectorOpIn, Values: []string{"t1"}}}})
	case 1:
		b.Toleration(model.Toleration{Key: "spot", Operator: model.TolerationOpExists})
	case 2:
		b.NodeSelector("tier", "t2")
	case 3:
		b.Req(mt.Res(64000, mt.Gi)) // fits no node
	}
	p := b.Obj()
	if kind == 4 {
		p.Containers[0].Image = "app:1"
	}
	return p
}

// TestScoreCarryChangesNothing replays random node-local clusters twice, with
// the filter pass's copies of the remembered scores (framework.CarriedScores)
// and with scoring reading every node's memo, in recorded cycles and in
// lean ones (Run's, whose totals-only scoring is another code path), with
// ties broken by name and by a seeded random pick, at several percentages
// of nodes to score, and requires the same attempts: placements, messages,
// feasible sets, scores and the round-robin start index. Between pods,
// nodes join and change and running pods leave, so memo entries go stale.
func TestScoreCarryChangesNothing(t *testing.T) {
	ctx := context.Background()
	carried := 0
	for seed := uint64(1); seed <= 4; seed++ {
		for _, record := range []bool{true, false} {
			r := rand.New(rand.NewPCG(seed, 91))
			percentage := []int32{5, 20, 50, 100}[seed%4]
			deterministic := seed%2 == 1
			c := &localCluster{r: r}
			var ss [2]*Scheduler
			clock := newFakeClock()
			for i := range ss {
				reg := registry.InTree()
				cfg := withoutMissing(config.Default(), reg)
				cfg.Parallelism = 1 // the same feasible order on both sides
				s, err := New(ctx, Options{Config: cfg, Registry: reg, Decisions: &fakeSink{},
					Deterministic: deterministic, Rand: rand.New(rand.NewPCG(seed, 5)),
					PercentageOfNodesToScore: &percentage, Clock: clock,
					Replay: Replay{BindInline: true, NoScoreCarry: i == 1}})
				if err != nil {
					t.Fatal(err)
				}
				ss[i] = s
			}
			addNode := func(n *model.Node) {
				for _, s := range ss {
					if err := s.addNode(ctx, n); err != nil {
						t.Fatal(err)
					}
				}
			}
			for i := range 120 + r.IntN(200) {
				n := c.node(i)
				c.nodes = append(c.nodes, n)
				addNode(n)
			}
			for k := range 300 {
				switch {
				case k%10 == 0:
					clock.Step(10 * time.Second)
					for _, s := range ss {
						s.queue.FlushBackoffQCompleted(ctx)
					}
				case k%7 == 0:
					// A node changes: its labels and taints are drawn again.
					i := r.IntN(len(c.nodes))
					n := c.node(i)
					c.nodes[i] = n
					addNode(n)
				case k%13 == 0 && len(c.running) > 0:
					i := r.IntN(len(c.running))
					for _, s := range ss {
						if err := s.DeletePod(ctx, c.running[i]); err != nil {
							t.Fatal(err)
						}
					}
					c.running = append(c.running[:i], c.running[i+1:]...)
				case k%29 == 0:
					n := c.node(len(c.nodes))
					c.nodes = append(c.nodes, n)
					addNode(n)
				}
				p := c.pod()
				for _, s := range ss {
					if err := s.AddPod(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				for ss[0].View().Stats().Queue.Active > 0 {
					var got [2]walkOutcome
					for i, s := range ss {
						att, err := s.scheduleNext(ctx, record)
						if err != nil {
							t.Fatal(err)
						}
						got[i] = outcomeOf(s, att)
						if i == 0 && len(s.carried) > 1 {
							carried++
						}
						if att.Result == ResultScheduled {
							bound := *att.Pod
							bound.NodeName = att.Node
							if err := s.AddPod(ctx, &bound); err != nil {
								t.Fatal(err)
							}
							if i == 0 {
								c.running = append(c.running, &bound)
							}
						}
					}
					if diff := cmp.Diff(got[1], got[0]); diff != "" {
						t.Fatalf("seed %d record %v: carrying scores changed an attempt (-from the nodes +carried):\n%s", seed, record, diff)
					}
				}
			}
		}
	}
	t.Logf("%d cycles scored from carried scores", carried)
	if carried < 1000 {
		t.Errorf("only %d cycles scored from carried scores; the test does not exercise them", carried)
	}
}
