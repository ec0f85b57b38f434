package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// groupSink is fakeSink recording each plan of a group's binds (the
// scheduler runs with GroupDecisions) as one "commit" listing its binds.
type groupSink struct {
	*fakeSink
	mu      sync.Mutex
	commits [][]string
}

func (g *groupSink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	if plan.Group == "" {
		return g.fakeSink.Submit(ctx, plan)
	}
	var c []string
	for _, item := range plan.Items {
		b := item.(*framework.Bind)
		if b.Pod.GroupKey() != plan.Group {
			return framework.PlanResult{}, fmt.Errorf("pod %s is not in group %s", b.Pod.Key(), plan.Group)
		}
		if err := g.Bind(ctx, b.Pod, b.Node); err != nil {
			return framework.PlanResult{}, err
		}
		c = append(c, b.Pod.Name+"->"+b.Node)
	}
	g.mu.Lock()
	g.commits = append(g.commits, c)
	g.mu.Unlock()
	return framework.PlanResult{}, nil
}

func newGangEnv(t *testing.T) (*env, *groupSink) {
	gs := &groupSink{fakeSink: &fakeSink{}}
	e := newFitEnv(t, func(o *Options) { o.Decisions, o.GroupDecisions = gs, true })
	e.sink = gs.fakeSink
	return e, gs
}

// member is a pod of group g taking one "slot" (1 CPU).
func member(g string, i int) *model.Pod {
	return mt.MakePod(fmt.Sprintf("%s-%d", g, i)).Group(g).Req(mt.Res(1000, mt.Gi)).Obj()
}

func slotNodes(n, slots int) []*model.Node {
	out := make([]*model.Node, n)
	for i := range out {
		out[i] = mt.MakeNode(fmt.Sprintf("n%d", i)).Capacity(mt.Res(int64(slots)*1000, 64*mt.Gi)).Obj()
	}
	return out
}

func (e *env) setGroup(name string, min int32) {
	e.t.Helper()
	if err := e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: name, MinCount: min}); err != nil {
		e.t.Fatal(err)
	}
}

// confirmBinds sends every bound pod back bound, as an orchestrator does.
func (e *env) confirmBinds() {
	e.t.Helper()
	for _, d := range e.sink.decisions() {
		if d.Kind != "bind" {
			continue
		}
		p, ok := e.s.state.find("default", strings.TrimPrefix(d.Pod, "default/"))
		if !ok || p.NodeName != "" {
			continue
		}
		b := *p
		b.NodeName = d.Node
		if err := e.s.AddPod(context.Background(), &b); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestGroupWaitsForGroupAndMinCount(t *testing.T) {
	e, gs := newGangEnv(t)
	e.addNodes(slotNodes(3, 1)...)
	e.addPods(member("g", 0), member("g", 1))
	if st := e.s.queue.Stats(); st.Active != 0 || st.Gated != 2 {
		t.Fatalf("members of a missing group: queue %+v, want 2 gated", st)
	}
	ex, err := e.s.View().Explain("default", "g-0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ex.Queue.GatingMessage, "waiting for pod group default/g: it does not exist") {
		t.Errorf("explain: %q, want the missing group named", ex.Queue.GatingMessage)
	}
	e.setGroup("g", 3)
	if st := e.s.queue.Stats(); st.Active != 0 || st.Gated != 2 {
		t.Fatalf("2 of min_count 3: queue %+v, want 2 gated", st)
	}
	e.addPods(member("g", 2))
	att := e.scheduleOne()
	if att.Result != ResultScheduled {
		t.Fatalf("group attempt: %s %q", att.Result, att.Message)
	}
	want := [][]string{{"g-0->n0", "g-1->n1", "g-2->n2"}}
	if diff := cmp.Diff(want, gs.commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	if st := e.s.queue.Stats(); st.Active+st.Backoff+st.Unschedulable+st.Gated != 0 {
		t.Errorf("queue after the group bound: %+v", st)
	}
}

// With GenericWorkload=false, as kube 1.37 by default, a pod group's
// members are ordinary pods: no gate, no group cycle, each bound alone.
func TestGenericWorkloadOff(t *testing.T) {
	gates, _, err := features.Parse("GenericWorkload=false")
	if err != nil {
		t.Fatal(err)
	}
	gs := &groupSink{fakeSink: &fakeSink{}}
	e := newFitEnv(t, func(o *Options) { o.Decisions = gs; o.Config.FeatureGates = gates })
	e.sink = gs.fakeSink
	e.addNodes(slotNodes(1, 4)...)
	e.setGroup("g", 3)
	e.addPods(member("g", 0))
	if st := e.s.queue.Stats(); st.Gated != 0 || st.Active != 1 {
		t.Fatalf("queue: %+v, want the member active, not gated", st)
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Node != "n0" {
		t.Fatalf("member alone: %s on %q (%s)", att.Result, att.Node, att.Message)
	}
	if len(gs.commits) != 0 {
		t.Errorf("group commits %v, want none", gs.commits)
	}
	ex, err := e.s.View().Explain("default", "g-0")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Group != nil {
		t.Errorf("explain shows a group state %+v without GenericWorkload", ex.Group)
	}
}

func TestTwoGroupsThatFitOnlyAlone(t *testing.T) {
	e, gs := newGangEnv(t)
	e.addNodes(slotNodes(2, 2)...) // 4 slots
	e.setGroup("a", 4)
	e.setGroup("b", 4)
	for i := range 4 {
		e.addPods(member("a", i), member("b", i))
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("first group: %s %q", att.Result, att.Message)
	}
	e.confirmBinds()
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable {
		t.Fatalf("second group: %s, want unschedulable", att.Result)
	}
	wantMsg := "pod group default/b: 0 of 4 pending members fit, 4 needed (min_count 4); b-0, b-1, b-2, b-3: 0/2 nodes are available: 2 Insufficient cpu."
	if att.Message != wantMsg {
		t.Errorf("message:\n got %q\nwant %q", att.Message, wantMsg)
	}
	if len(gs.commits) != 1 || e.s.cache.Counts().AssumedPods != 0 {
		t.Fatalf("after the failed group: %d commits, %d assumed", len(gs.commits), e.s.cache.Counts().AssumedPods)
	}
	for i := range 4 {
		p, _ := e.s.state.find("default", fmt.Sprintf("a-%d", i))
		if err := e.s.DeletePod(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("second group after the first left: %s %q", att.Result, att.Message)
	}
	if len(gs.commits) != 2 || len(gs.commits[1]) != 4 || !strings.HasPrefix(gs.commits[1][0], "b-") {
		t.Errorf("commits: %v", gs.commits)
	}
}

func TestGroupPartialQuorumAndLateMembers(t *testing.T) {
	e, gs := newGangEnv(t)
	e.addNodes(slotNodes(1, 3)...)
	e.setGroup("g", 2)
	for i := range 4 {
		e.addPods(member("g", i))
	}
	att := e.scheduleOne()
	if att.Result != ResultScheduled {
		t.Fatalf("%s %q", att.Result, att.Message)
	}
	if diff := cmp.Diff([][]string{{"g-0->n0", "g-1->n0", "g-2->n0"}}, gs.commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	e.confirmBinds()
	// The group is placed: its last member is an ordinary pod now.
	p, _ := e.s.state.find("default", "g-0")
	if err := e.s.DeletePod(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Pod.Name != "g-3" {
		t.Fatalf("late member: %s %s %q", att.Pod.Name, att.Result, att.Message)
	}
	if len(gs.commits) != 1 {
		t.Errorf("a late member went through a group commit: %v", gs.commits)
	}
}

func TestPodGroupSpecImmutable(t *testing.T) {
	e, _ := newGangEnv(t)
	e.setGroup("g", 2)
	err := e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: "g", MinCount: 3})
	if !errors.Is(err, gang.ErrSpecImmutable) {
		t.Errorf("changing min_count: %v, want ErrSpecImmutable", err)
	}
	err = e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: "h", MinCount: 0})
	if !errors.Is(err, gang.ErrInvalid) {
		t.Errorf("min_count 0: %v, want ErrInvalid", err)
	}
	if err := e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: "g", MinCount: 2}); err != nil {
		t.Errorf("the same spec again: %v", err)
	}
}

// A group that does not fit holds nothing and does not stop the pods
// queued behind it; after its failed attempt it waits for an event.
func TestGroupThatDoesNotFitDoesNotBlock(t *testing.T) {
	e, gs := newGangEnv(t)
	e.addNodes(slotNodes(1, 2)...)
	e.setGroup("big", 3)
	for i := range 3 {
		e.addPods(mt.MakePod(fmt.Sprintf("big-%d", i)).Group("big").Priority(10).Req(mt.Res(1000, mt.Gi)).Obj())
	}
	e.addPods(mt.MakePod("small-0").Req(mt.Res(1000, mt.Gi)).Obj(), mt.MakePod("small-1").Req(mt.Res(1000, mt.Gi)).Obj())
	if att := e.scheduleOne(); att.Pod.SchedulingGroup != "big" || att.Result != ResultUnschedulable {
		t.Fatalf("first attempt: %s %s, want the higher-priority group unschedulable", att.Pod.Name, att.Result)
	}
	for range 2 {
		if att := e.scheduleOne(); att.Result != ResultScheduled {
			t.Fatalf("a small pod behind the group: %s %q", att.Result, att.Message)
		}
	}
	if st := e.s.queue.Stats(); st.Active+st.Backoff != 0 || st.Unschedulable != 3 {
		t.Errorf("queue %+v: want the group's 3 members waiting among the unschedulable", st)
	}
	if len(gs.commits) != 0 {
		t.Errorf("group commits %v", gs.commits)
	}
}

// One member's bind reported failed: that member alone is requeued, as
// kube does; the others' binds stand.
func TestGroupMemberBindFailure(t *testing.T) {
	e, _ := newGangEnv(t)
	e.addNodes(slotNodes(3, 1)...)
	e.setGroup("g", 3)
	for i := range 3 {
		e.addPods(member("g", i))
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("%s %q", att.Result, att.Message)
	}
	if err := e.s.ReportBindResult(context.Background(), "uid-g-1", "n1", false, "kubelet refused"); err != nil {
		t.Fatal(err)
	}
	if got := e.s.cache.Counts().AssumedPods; got != 2 {
		t.Errorf("%d pods assumed after one member's bind failed, want the other 2", got)
	}
	e.expireBackoff()
	att := e.scheduleOne()
	if att.Pod.Name != "g-1" || att.Result != ResultScheduled || att.Node != "n1" {
		t.Errorf("retry: %s %s on %s, want g-1 scheduled alone to n1", att.Pod.Name, att.Result, att.Node)
	}
}

// With a topology key, a group's members all land in one domain: the
// first (by name) where the group fits; a group that fits only across
// domains is not placed.
func TestGroupTopology(t *testing.T) {
	zoned := func(name, zone string) *model.Node {
		return mt.MakeNode(name).Label("zone", zone).Capacity(mt.Res(1000, 64*mt.Gi)).Obj()
	}
	e, gs := newGangEnv(t)
	e.addNodes(zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"), zoned("b2", "b"), zoned("b3", "b"))
	if err := e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: "g", MinCount: 3, TopologyKey: "zone"}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		e.addPods(member("g", i))
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("%s %q", att.Result, att.Message)
	}
	if diff := cmp.Diff([][]string{{"g-0->b1", "g-1->b2", "g-2->b3"}}, gs.commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	e.confirmBinds()

	if err := e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: "h", MinCount: 3, TopologyKey: "zone"}); err != nil {
		t.Fatal(err)
	}
	e.addNodes(zoned("c1", "c")) // 3 free nodes, at most 2 in one zone
	for i := range 3 {
		e.addPods(member("h", i))
	}
	att := e.scheduleOne()
	want := "pod group default/h: 2 of 3 pending members fit, 3 needed (min_count 3) in zone=a, the best of its domains; " +
		"h-2: 0/6 nodes are available: 2 Insufficient cpu, 4 node(s) outside the pod group's topology domain."
	if att.Result != ResultUnschedulable || !strings.HasPrefix(att.Message, want) {
		t.Errorf("across domains: %s %q, want unschedulable %q...", att.Result, att.Message, want)
	}
	if a := e.s.cache.Counts().AssumedPods; a != 0 || len(gs.commits) != 1 {
		t.Errorf("after the failed group: %d assumed, commits %v", a, gs.commits)
	}
}
