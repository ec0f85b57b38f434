package defragsvc

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
)

// fakeCluster is the scheduler's read side and its controller planner in
// one: a committed Eviction marks the pod terminating, a Nomination sets
// the pod's nominated node, a ClearNomination clears it.
type fakeCluster struct {
	mu      sync.Mutex
	nodes   []*model.Node
	pods    map[string]*model.Pod // by uid
	queued  map[string]time.Time  // pending pods' queue times
	groups  []*model.PodGroup
	pdbs    []*model.PodDisruptionBudget
	budgets map[string][]disruption.Budget // by pod name
	evicted map[string]bool
	held    bool
	// refuse makes Submit refuse the items it says an error for.
	refuse func(framework.PlanItem) error
	plans  []framework.Plan
}

func newFakeCluster() *fakeCluster {
	return &fakeCluster{pods: map[string]*model.Pod{}, queued: map[string]time.Time{}, budgets: map[string][]disruption.Budget{}, evicted: map[string]bool{}}
}

func (f *fakeCluster) add(queuedAt time.Time, pods ...*model.Pod) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pods {
		f.pods[p.UID] = p
		if p.NodeName == "" {
			f.queued[p.UID] = queuedAt
		}
	}
}

func (f *fakeCluster) remove(uid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.pods, uid)
}

// bind binds the pod with uid to node.
func (f *fakeCluster) bind(uid, node string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := *f.pods[uid]
	p.NodeName, p.NominatedNodeName = node, ""
	f.pods[uid] = &p
}

// setNominated changes a pending pod's nominated node, as the scheduler's
// own attempts do.
func (f *fakeCluster) setNominated(uid, node string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := *f.pods[uid]
	p.NominatedNodeName = node
	f.pods[uid] = &p
}

func (f *fakeCluster) sorted() []*model.Pod {
	var out []*model.Pod
	for _, p := range f.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

func (f *fakeCluster) Pods() []*model.Pod {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sorted()
}

func (f *fakeCluster) Nodes() ([]scheduler.NodeUsage, error) {
	var out []scheduler.NodeUsage
	for _, n := range f.nodes {
		out = append(out, scheduler.NodeUsage{Node: n})
	}
	return out, nil
}

func (f *fakeCluster) PDBs() []*model.PodDisruptionBudget       { return f.pdbs }
func (f *fakeCluster) Namespaces() []*model.Namespace           { return nil }
func (f *fakeCluster) PriorityClasses() []*model.PriorityClass  { return nil }
func (f *fakeCluster) PodGroups() []*model.PodGroup             { return f.groups }
func (f *fakeCluster) Budgets(p *model.Pod) []disruption.Budget { return f.budgets[p.Name] }
func (f *fakeCluster) Held() bool                               { return f.held }
func (f *fakeCluster) isEvicted(uid string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.evicted[uid]
}
func (f *fakeCluster) Pod(uid string) (*model.Pod, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[uid]
	return p, ok
}
func (f *fakeCluster) submitted() []framework.Plan { f.mu.Lock(); defer f.mu.Unlock(); return f.plans }

func (f *fakeCluster) Pending() []scheduler.PendingPod {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []scheduler.PendingPod
	for _, p := range f.sorted() {
		if p.NodeName == "" {
			out = append(out, scheduler.PendingPod{Pod: p, Queue: scheduler.QueueState{SubQueue: queue.Unschedulable, Attempts: 1, NominatedNode: p.NominatedNodeName}})
		}
	}
	return out
}

func (f *fakeCluster) ExplainUID(uid string) (scheduler.Explanation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[uid]
	if !ok {
		return scheduler.Explanation{}, fmt.Errorf("explain %s: %w", uid, scheduler.ErrPodNotFound)
	}
	if p.NodeName != "" {
		return scheduler.Explanation{Pod: p, Phase: scheduler.PhaseBound, Node: p.NodeName}, nil
	}
	return scheduler.Explanation{Pod: p, Phase: scheduler.PhasePending, Queued: f.queued[uid], Diagnosis: &scheduler.Diagnosis{Message: "0/3 nodes are available"},
		Queue: scheduler.QueueState{SubQueue: queue.Unschedulable, Attempts: 1, NominatedNode: p.NominatedNodeName}}, nil
}

func (f *fakeCluster) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans = append(f.plans, plan)
	res := framework.PlanResult{Revisions: make([]uint64, len(plan.Items)), Refused: make([]error, len(plan.Items))}
	for i, item := range plan.Items {
		if f.refuse != nil {
			if err := f.refuse(item); err != nil {
				res.Refused[i] = err
				continue
			}
		}
		res.Revisions[i] = uint64(len(f.plans)*100 + i)
		switch it := item.(type) {
		case *framework.Eviction:
			p := *f.pods[it.Victim.UID]
			p.Terminating = true
			f.pods[p.UID] = &p
			f.evicted[p.UID] = true
		case *framework.Nomination:
			p := *f.pods[it.Pod.UID]
			p.NominatedNodeName = it.Node
			f.pods[p.UID] = &p
		case *framework.ClearNomination:
			p := *f.pods[it.Pod.UID]
			p.NominatedNodeName = ""
			f.pods[p.UID] = &p
		}
	}
	return res, nil
}

func testNode(name string, cpu int64) *model.Node {
	return &model.Node{Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: model.ResourceList{"cpu": cpu, "memory": 64 << 30, "pods": 110}}
}

// testPod is a pod owned by a ReplicaSet (movable by the DefaultEvictor).
func testPod(name, on string, cpu int64) *model.Pod {
	return &model.Pod{UID: "u-" + name, Namespace: "default", Name: name, NodeName: on, SchedulerName: model.DefaultSchedulerName,
		Labels:     map[string]string{"app": name},
		Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": cpu, "memory": 1 << 30}}},
		Runtime:    &model.PodRuntime{Owners: []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs-" + name, UID: "rs-" + name}}}}
}

// fragmented: three 4-cpu nodes, each 2.5 cpu used by a 1.5 and a 1 cpu
// pod: 1.5 cpu free on each, no node with 3.
func fragmented() *fakeCluster {
	f := newFakeCluster()
	for i := 1; i <= 3; i++ {
		n := fmt.Sprintf("n%d", i)
		f.nodes = append(f.nodes, testNode(n, 4000))
		f.add(time.Time{}, testPod(fmt.Sprintf("big-%d", i), n, 1500), testPod(fmt.Sprintf("small-%d", i), n, 1000))
	}
	return f
}

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newService(t *testing.T, f *fakeCluster, clock *testClock) *Service {
	t.Helper()
	s, err := New(Options{Registry: registry.InTree(), View: f, Planner: f, Evicted: f.isEvicted,
		Interval: time.Minute, Bound: 2 * time.Minute, Timeout: 30 * time.Second, Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var errTestRefused = fmt.Errorf("refused by the test: %w", decisionlog.ErrAlreadyEvicted)
