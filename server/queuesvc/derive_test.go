package queuesvc

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// planText is what a plan decides, for comparing two controllers.
func planText(p framework.Plan) []string {
	var out []string
	for _, item := range p.Items {
		switch it := item.(type) {
		case *framework.Admission:
			out = append(out, fmt.Sprintf("admit %s to %s %v", it.Workload.Key(), it.ClusterQueue, it.PodSets))
		case *framework.WorkloadEviction:
			out = append(out, fmt.Sprintf("evict workload %s (%s by %s)", it.Workload.Key(), it.Reason, it.PreemptedBy))
		case *framework.Eviction:
			out = append(out, fmt.Sprintf("evict %s from %s: %s", it.Victim.Key(), it.Node, it.Message))
		default:
			out = append(out, fmt.Sprintf("%T", it))
		}
	}
	return out
}

// The rounds keep derived workloads between them and re-derive only the
// pods that changed; a controller deriving everything anew each round is
// the reference. On random event sequences (pods added, changed, bound,
// deleted, evicted pods deleted, priority classes changed) both must
// decide the same admissions and evictions and report the same status.
func TestIncrementalDerivationChangesNothing(t *testing.T) {
	evictions := 0
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 31))
			inc, ref := newHarness(t, quota.Config{}), newHarness(t, quota.Config{})
			ref.c.derived.fromScratch = true
			clock := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			now := func() time.Time { return clock }
			inc.c.opts.Clock, ref.c.opts.Clock = now, now
			both := []*harness{inc, ref}

			cq := func(name string) *quota.ClusterQueue {
				q := &quota.ClusterQueue{Name: name, Cohort: "pool", NamespaceSelector: &model.LabelSelector{},
					ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
						Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: 1000 * (2 + rng.Int64N(4))}}},
					}}}},
					Preemption: quota.Preemption{WithinClusterQueue: quota.PolicyLowerPriority, ReclaimWithinCohort: quota.PolicyAny}}
				quota.DefaultClusterQueue(q)
				return q
			}
			objs := []any{&quota.ResourceFlavor{Name: "default"}, &quota.Cohort{Name: "pool", FairWeight: 1}, cq("cq-a"), cq("cq-b"),
				&quota.LocalQueue{Namespace: "ns-a", Name: "lq", ClusterQueue: "cq-a"}, &quota.LocalQueue{Namespace: "ns-b", Name: "lq", ClusterQueue: "cq-b"}}
			for _, h := range both {
				for _, o := range objs {
					if err := h.upsert(t, o); err != nil {
						t.Fatal(err)
					}
				}
			}
			handle := func(ev objstore.Event) {
				for _, h := range both {
					if p, ok := ev.New.(*model.Pod); ok {
						h.objects.mu.Lock()
						h.objects.pods[p.UID] = p
						h.objects.mu.Unlock()
					}
					h.c.Handle(t.Context(), ev)
				}
			}
			classes := []string{"", "low", "high"}
			setClass := func(name string, value int32) {
				handle(objstore.Event{Kind: objstore.KindPriorityClass, New: &model.PriorityClass{Name: name, Value: value}})
			}
			setClass("low", 10)
			setClass("high", 100)
			pods := map[string]*model.Pod{}
			next := 0
			for step := range 80 {
				clock = clock.Add(time.Second)
				uids := slices.Sorted(func(yield func(string) bool) {
					for u := range pods {
						if !yield(u) {
							return
						}
					}
				})
				pick := func() *model.Pod {
					if len(uids) == 0 {
						return nil
					}
					return pods[uids[rng.IntN(len(uids))]]
				}
				switch op := rng.IntN(10); {
				case op < 4 || len(pods) == 0: // a new pod
					ns := []string{"ns-a", "ns-b"}[rng.IntN(2)]
					p := &model.Pod{UID: fmt.Sprint("u", next), Namespace: ns, Name: fmt.Sprint("p", next), CreationTime: clock,
						Labels:            map[string]string{integrations.QueueNameLabel: "lq"},
						PriorityClassName: classes[rng.IntN(len(classes))],
						Containers:        []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 500 * (1 + rng.Int64N(3))}}}}
					next++
					pods[p.UID] = p
					handle(objstore.Event{Kind: objstore.KindPod, New: p})
				case op < 5: // a pending pod changed
					if old := pick(); old.NodeName == "" {
						cp := *old
						cp.PriorityClassName = classes[rng.IntN(len(classes))]
						cp.Containers = []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 500 * (1 + rng.Int64N(3))}}}
						pods[cp.UID] = &cp
						handle(objstore.Event{Kind: objstore.KindPod, Old: old, New: &cp})
					}
				case op < 7: // an admitted pod bound, as the scheduler would
					old := pick()
					if _, ok := inc.log.admits[old.Namespace+"/"+integrations.Name("Pod", "", old.Name, old.UID)]; ok && old.NodeName == "" {
						cp := *old
						cp.NodeName = "n1"
						pods[cp.UID] = &cp
						handle(objstore.Event{Kind: objstore.KindPod, Old: old, New: &cp})
					}
				case op < 8: // a pod deleted
					old := pick()
					delete(pods, old.UID)
					handle(objstore.Event{Kind: objstore.KindPod, Old: old})
				case op < 9: // a priority class changed
					setClass([]string{"low", "high"}[rng.IntN(2)], rng.Int32N(200))
				default: // the orchestrator deletes the pods Berth evicted
					for _, p := range inc.log.plans[len(inc.log.plans)-1:] {
						for _, item := range p.Items {
							if ev, ok := item.(*framework.Eviction); ok && pods[ev.Victim.UID] != nil {
								old := pods[ev.Victim.UID]
								delete(pods, old.UID)
								handle(objstore.Event{Kind: objstore.KindPod, Old: old})
							}
						}
					}
				}
				for _, h := range both {
					if err := h.c.round(t.Context(), true); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				}
				if len(inc.log.plans) != len(ref.log.plans) {
					t.Fatalf("step %d: %d plans submitted incrementally, %d from scratch", step, len(inc.log.plans), len(ref.log.plans))
				}
				if n := len(inc.log.plans); n > 0 {
					if a, b := planText(inc.log.plans[n-1]), planText(ref.log.plans[n-1]); !slices.Equal(a, b) {
						t.Fatalf("step %d: incremental plan\n%q\nfrom scratch\n%q", step, a, b)
					}
				}
				if a, b := inc.c.Status(), ref.c.Status(); !reflect.DeepEqual(a, b) {
					t.Fatalf("step %d: statuses differ:\n%+v\n%+v", step, a, b)
				}
			}
			for _, p := range inc.log.plans {
				for _, item := range p.Items {
					if _, ok := item.(*framework.WorkloadEviction); ok {
						evictions++
					}
				}
			}
			if len(inc.c.derived.pods) == 0 || len(inc.log.admissions()) == 0 {
				t.Errorf("%d pods derived and kept, %d admissions: the sequence tested nothing", len(inc.c.derived.pods), len(inc.log.admissions()))
			}
		})
	}
	if evictions == 0 {
		t.Error("no workload was preempted in any sequence: evictions were not compared")
	}
	t.Logf("%d workload evictions compared", evictions)
}

// compareKeys orders as the keys it does not build would.
func TestCompareKeys(t *testing.T) {
	names := []string{"", "a", "ns", "ns-b", "ns/", "nsa", "p", "p1", "p10", "p2", "x/y"}
	for _, an := range names {
		for _, ap := range names {
			for _, bn := range names {
				for _, bp := range names {
					if got, want := compareKeys(an, ap, bn, bp), strings.Compare(an+"/"+ap, bn+"/"+bp); got != want {
						t.Fatalf("compareKeys(%q, %q, %q, %q) = %d, want %d", an, ap, bn, bp, got, want)
					}
				}
			}
		}
	}
}
