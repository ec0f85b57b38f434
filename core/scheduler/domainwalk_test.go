package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
)

// walkOutcome is what an attempt decided and what it leaves to the next
// cycle (the round-robin start index); with details, also what it saw.
type walkOutcome struct {
	Pod, Result, Node, Message string
	NextStart                  int
	Feasible                   []string
	Reasons                    map[string][]string
	Scores                     map[string]int64
}

func outcomeOf(s *Scheduler, att *Attempt) walkOutcome {
	o := walkOutcome{Pod: att.Pod.Key(), Result: string(att.Result), Node: att.Node, Message: att.Message,
		NextStart: s.nextStartNodeIndex, Feasible: att.Feasible}
	for _, ns := range att.Scores {
		if o.Scores == nil {
			o.Scores = map[string]int64{}
		}
		o.Scores[ns.Name] = ns.TotalScore
	}
	if m := att.Diagnosis.NodeToStatus; m != nil && !att.lean {
		o.Reasons = map[string][]string{}
		for _, n := range m.Nodes() {
			o.Reasons[n] = m.Get(n).Reasons()
		}
	}
	return o
}

// spreadCluster drives a scheduler through a random cluster heavy in zone
// spread: nodes in several zones (some without a zone, some tainted, some
// relabelled to another zone later), pods with DoNotSchedule zone spread
// (maxSkew 1 or 2, some with minDomains, some also spread by hostname,
// some too large for any node), and between pods, nodes joining and
// leaving and running pods deleted.
type spreadCluster struct {
	r     *rand.Rand
	zones int
	// key is the spread's topology key: the zone (which orders the
	// nodes), or a rack label (which does not).
	key     string
	nodes   []string
	running []*model.Pod
	next    int
}

func (c *spreadCluster) node(i int) *model.Node {
	name := fmt.Sprintf("node-%04d", i)
	b := mt.MakeNode(name).Capacity(mt.Res(4000, 16*mt.Gi))
	if c.r.IntN(20) > 0 {
		b.Label(c.key, fmt.Sprintf("zone-%d", c.r.IntN(c.zones)))
	}
	if c.r.IntN(10) == 0 {
		b.Taint("dedicated", "infra", model.TaintEffectNoSchedule)
	}
	return b.Obj()
}

func (c *spreadCluster) pod() *model.Pod {
	c.next++
	app := fmt.Sprintf("app-%d", c.r.IntN(3))
	b := mt.MakePod(fmt.Sprintf("pod-%05d", c.next)).Label("app", app).Req(mt.Res(int64(100+c.r.IntN(4)*300), 256*mt.Mi))
	kind := c.r.IntN(12)
	switch kind {
	case 0:
		b.Req(mt.Res(64000, mt.Gi)) // fits no node
	case 1:
		b.Req(mt.Res(2900, mt.Gi)).PreemptionPolicy(model.PreemptLowerPriority) // fits by preempting
	}
	sel := &model.LabelSelector{MatchLabels: map[string]string{"app": app}}
	zone := model.TopologySpreadConstraint{MaxSkew: int32(1 + c.r.IntN(2)), TopologyKey: c.key,
		WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel}
	if c.r.IntN(8) == 0 {
		md := int32(c.zones + 1)
		zone.MinDomains = &md
	}
	if c.r.IntN(10) > 0 {
		b.Spread(zone)
	}
	if c.r.IntN(6) == 0 {
		b.Spread(model.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: model.LabelHostname,
			WhenUnsatisfiable: model.DoNotSchedule, LabelSelector: sel})
	}
	switch c.r.IntN(4) {
	case 0: // scored spread
		b.Spread(model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: c.key, WhenUnsatisfiable: model.ScheduleAnyway, LabelSelector: sel})
	case 1: // the system default spreading, when the pod has no constraint
		b.Workload(map[string]string{"app": app})
	}
	p := b.Obj()
	if kind == 1 {
		high := int32(1000)
		p.RequestedPriority = &high
	}
	return p
}

// step applies one random change to both schedulers.
func (c *spreadCluster) step(t *testing.T, ctx context.Context, ss []*Scheduler) {
	t.Helper()
	apply := func(f func(s *Scheduler) error) {
		for _, s := range ss {
			if err := f(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	switch k := c.r.IntN(40); {
	case k == 0 && len(c.nodes) > 0: // a node leaves
		i := c.r.IntN(len(c.nodes))
		name := c.nodes[i]
		c.nodes = append(c.nodes[:i], c.nodes[i+1:]...)
		apply(func(s *Scheduler) error { return s.deleteNode(ctx, name) })
	case k == 1: // a node joins
		n := c.node(len(c.nodes) + 10000 + c.next)
		c.nodes = append(c.nodes, n.Name)
		apply(func(s *Scheduler) error { return s.addNode(ctx, n) })
	case k == 2 && len(c.nodes) > 0: // a node moves to another zone
		n := mt.MakeNode(c.nodes[c.r.IntN(len(c.nodes))]).Capacity(mt.Res(4000, 16*mt.Gi)).
			Label(c.key, fmt.Sprintf("zone-%d", c.r.IntN(c.zones))).Obj()
		apply(func(s *Scheduler) error { return s.addNode(ctx, n) })
	case k < 8 && len(c.running) > 0: // a running pod ends
		i := c.r.IntN(len(c.running))
		p := c.running[i]
		c.running = append(c.running[:i], c.running[i+1:]...)
		apply(func(s *Scheduler) error { return s.DeletePod(ctx, p) })
	}
}

// deleteVictims deletes, from both schedulers, the pods the first one
// evicted since the last call (the second evicts the same ones, or the
// outcomes differ): the preemptors stay nominated until then.
func (c *spreadCluster) deleteVictims(t *testing.T, ctx context.Context, ss []*Scheduler, sink *fakeSink) {
	t.Helper()
	sink.mu.Lock()
	calls := sink.calls
	sink.calls = nil
	sink.mu.Unlock()
	for _, d := range calls {
		if d.Kind != "evict" {
			continue
		}
		for i, p := range c.running {
			if p.Key() == d.Pod {
				c.running = append(c.running[:i], c.running[i+1:]...)
				for _, s := range ss {
					if err := s.DeletePod(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				break
			}
		}
	}
}

// TestDomainWalkChangesNothing replays random spread-heavy clusters with
// the domain walk (and the other incremental indexes) on and off, in
// cycles that keep their details and in lean ones (Run's, where passed
// over nodes get no status), at several percentages of nodes to score,
// and requires the same outcomes: placements, messages of unschedulable
// pods (their per-reason node counts), feasible sets, per-node reasons
// and scores with details, and the round-robin start index after every
// cycle. The spread score index (PreScore's counts by deltas) is under
// the same switch.
func TestDomainWalkChangesNothing(t *testing.T) {
	ctx := context.Background()
	walks := 0
	for seed := uint64(1); seed <= 6; seed++ {
		for _, record := range []bool{true, false} {
			r := rand.New(rand.NewPCG(seed, 77))
			percentage := []int32{5, 10, 30, 100}[seed%4]
			c := &spreadCluster{r: r, zones: 3 + r.IntN(6), key: []string{model.LabelZone, "example.com/rack"}[seed%2]}
			var ss [2]*Scheduler
			sink := &fakeSink{} // the first scheduler's
			clock := newFakeClock()
			for i := range ss {
				reg := registry.InTree()
				var decisions framework.Planner = &fakeSink{}
				if i == 0 {
					decisions = sink
				}
				s, err := New(ctx, Options{Config: withoutMissing(config.Default(), reg), Registry: reg,
					Decisions: decisions, Deterministic: true, PercentageOfNodesToScore: &percentage,
					// One clock, stepped between pods: backoffs end alike.
					Clock:  clock,
					Replay: Replay{BindInline: true, NoIncrementalIndexes: i == 1}})
				if err != nil {
					t.Fatal(err)
				}
				ss[i] = s
			}
			for i := range 150 + r.IntN(300) {
				n := c.node(i)
				c.nodes = append(c.nodes, n.Name)
				// A low-priority filler on every node: the high-priority
				// pods fit only by preempting it.
				filler := mt.MakePod("filler-" + n.Name).Node(n.Name).Req(mt.Res(2000, mt.Gi)).Obj()
				c.running = append(c.running, filler)
				for _, s := range ss {
					if err := s.addNode(ctx, n); err != nil {
						t.Fatal(err)
					}
					if err := s.AddPod(ctx, filler); err != nil {
						t.Fatal(err)
					}
				}
			}
			for k := range 160 {
				// Every tenth pod, the pods whose backoff ended are tried
				// again.
				if k%10 == 0 {
					clock.Step(10 * time.Second)
					for _, s := range ss {
						s.queue.FlushBackoffQCompleted(ctx)
					}
				}
				c.step(t, ctx, ss[:])
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
						t.Fatalf("seed %d record %v: the domain walk changed an attempt (-full walk +domain walk):\n%s", seed, record, diff)
					}
					c.deleteVictims(t, ctx, ss[:], sink)
				}
			}
			walks += ss[0].domainWalks
		}
	}
	t.Logf("%d domain walks", walks)
	if walks < 500 {
		t.Errorf("only %d cycles took the domain walk; the test does not exercise it", walks)
	}
}
