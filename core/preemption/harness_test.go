package preemption_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/registry"
)

// t0 is the fixed "now" of the tests.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return t0 }

// nominator is a minimal framework.PodNominator.
type nominator struct {
	mu     sync.Mutex
	byNode map[string][]*framework.PodInfo
}

func newNominator(pods ...*model.Pod) *nominator {
	n := &nominator{byNode: map[string][]*framework.PodInfo{}}
	for _, p := range pods {
		n.AddNominatedPod(framework.MustPodInfo(p), nil)
	}
	return n
}

func (n *nominator) AddNominatedPod(pi *framework.PodInfo, info *framework.NominatingInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	node := pi.Pod.NominatedNodeName
	if info != nil && info.Mode == framework.ModeOverride {
		node = info.NominatedNodeName
	}
	if node != "" {
		n.byNode[node] = append(n.byNode[node], pi)
	}
}

func (n *nominator) DeleteNominatedPodIfExists(pod *model.Pod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for node, pis := range n.byNode {
		n.byNode[node] = slices.DeleteFunc(pis, func(pi *framework.PodInfo) bool { return pi.Pod.UID == pod.UID })
	}
}

func (n *nominator) UpdateNominatedPod(old *model.Pod, pi *framework.PodInfo) {
	n.DeleteNominatedPodIfExists(old)
	n.AddNominatedPod(pi, nil)
}

func (n *nominator) AnyNominated() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, pis := range n.byNode {
		if len(pis) > 0 {
			return true
		}
	}
	return false
}

func (n *nominator) NominatedPodsForNode(node string) []*framework.PodInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.byNode[node])
}

// pdbLister serves fixed budgets.
type pdbLister []framework.PDBStatus

func (l pdbLister) List() []framework.PDBStatus { return l }

// budget returns a PDB over pods labelled app=<app> allowing n disruptions.
func budget(app string, n int32) framework.PDBStatus {
	ls := &model.LabelSelector{MatchLabels: map[string]string{"app": app}}
	return framework.PDBStatus{
		PDB:                &model.PodDisruptionBudget{Namespace: "default", Name: "pdb-" + app, Selector: ls},
		Selector:           ls.MustCompile(),
		DisruptionsAllowed: n,
	}
}

// recorder records decisions as strings.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(format string, a ...any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf(format, a...))
	return nil
}

func (f *recorder) Bind(_ context.Context, pod *model.Pod, node string) error {
	return f.add("bind %s %s", pod.Key(), node)
}

func (f *recorder) Evict(_ context.Context, v *model.Pod, node string, p *model.Pod, reason string) error {
	return f.add("evict %s from %s for %s: %s", v.Key(), node, p.Key(), reason)
}

func (f *recorder) Nominate(_ context.Context, pod *model.Pod, node string) error {
	return f.add("nominate %s %s", pod.Key(), node)
}

func (f *recorder) ClearNomination(_ context.Context, pod *model.Pod, reason string) error {
	return f.add("clear %s: %s", pod.Key(), reason)
}

// cluster is a snapshot with bound pods and a framework over it with the
// default profile.
type cluster struct {
	fwk       *runtime.Framework
	nodes     []*framework.NodeInfo
	nominator *nominator
	sink      *recorder
}

type clusterSpec struct {
	nodes     []*model.Node
	pods      []*model.Pod // bound: NodeName set
	nominated []*model.Pod // pending with NominatedNodeName
	pdbs      []framework.PDBStatus
	// parallelism 0 means 1 (deterministic order).
	parallelism int
	// budgets, when set, serves the budgets instead of pdbs (tests change
	// them between calls).
	budgets framework.PDBLister
	// noPreemptionMemo turns the preemption memo off.
	noPreemptionMemo bool
	// clock, when set, replaces the fixed clock at t0.
	clock framework.Clock
}

func newCluster(t testing.TB, spec clusterSpec) *cluster {
	t.Helper()
	c := &cluster{nominator: newNominator(spec.nominated...), sink: &recorder{}}
	byName := map[string]*framework.NodeInfo{}
	for _, n := range spec.nodes {
		ni := framework.NewNodeInfo(n)
		byName[n.Name] = ni
		c.nodes = append(c.nodes, ni)
	}
	for _, p := range spec.pods {
		ni, ok := byName[p.NodeName]
		if !ok {
			t.Fatalf("pod %s on unknown node %q", p.Key(), p.NodeName)
		}
		ni.AddPodInfo(framework.MustPodInfo(p))
	}
	par := spec.parallelism
	if par == 0 {
		par = 1
	}
	var budgets framework.PDBLister = pdbLister(spec.pdbs)
	if spec.budgets != nil {
		budgets = spec.budgets
	}
	opts := []runtime.Option{
		runtime.WithSnapshotLister(&plugintest.Lister{Nodes: c.nodes}),
		runtime.WithPodNominator(c.nominator),
		runtime.WithNamespaceLister(plugintest.Namespaces{}),
		runtime.WithPDBLister(budgets),
		runtime.WithDecisions(c.sink),
		runtime.WithClock(cmp.Or[framework.Clock](spec.clock, fixedClock{})),
		runtime.WithParallelism(par),
		runtime.WithDeterministic(true),
	}
	if spec.noPreemptionMemo {
		opts = append(opts, runtime.WithoutPreemptionMemo())
	}
	fwk, err := runtime.New(context.Background(), registry.InTree(), config.Default().Profiles[0], opts...)
	if err != nil {
		t.Fatal(err)
	}
	c.fwk = fwk
	return c
}

// filter runs PreFilter and Filter over every node as the scheduling cycle
// does and returns the state and the statuses of the nodes that failed.
func (c *cluster) filter(t testing.TB, pod *model.Pod) (*framework.CycleState, *framework.NodeToStatus) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	m := framework.NewNodeToStatus()
	_, st, _ := c.fwk.RunPreFilterPlugins(ctx, state, pod, c.nodes)
	if !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	for _, ni := range c.nodes {
		if st := c.fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); !st.IsSuccess() {
			m.Set(ni.Name(), st)
		} else {
			t.Fatalf("pod %s fits node %s: the test needs it not to fit anywhere", pod.Key(), ni.Name())
		}
	}
	return state, m
}

// Submit hands each decision of the plan to the fake's method for it.
func (f *recorder) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Bind:
			err = f.Bind(ctx, it.Pod, it.Node)
		case *framework.Eviction:
			err = f.Evict(ctx, it.Victim, it.Node, it.Preemptor, it.Message)
		case *framework.Nomination:
			err = f.Nominate(ctx, it.Pod, it.Node)
		case *framework.ClearNomination:
			err = f.ClearNomination(ctx, it.Pod, it.Reason)
		}
		if err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}
