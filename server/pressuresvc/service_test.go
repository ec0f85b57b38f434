package pressuresvc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/pressure"
	"github.com/berthsched/berth/store/bboltstore"
)

// fakes: one node with pods; the scheduler's nodes and marks; the log.
type fakeCluster struct {
	node *model.Node
	pods []*model.Pod
}

func (f *fakeCluster) RunningOn(name string) (*model.Node, []*model.Pod, []*model.Pod, bool) {
	if f.node == nil || name != f.node.Name {
		return nil, nil, nil, false
	}
	var running, others []*model.Pod
	for _, p := range f.pods {
		if p.Terminating {
			others = append(others, p)
		} else {
			running = append(running, p)
		}
	}
	return f.node, running, others, true
}

// fakeScheduler records the nodes applied to it through the object store.
type fakeScheduler struct {
	sent []*model.Node
}

func (f *fakeScheduler) kinds(t *testing.T) *objstore.Registry {
	r := objstore.NewRegistry()
	err := objstore.Register(r, objstore.Type[*model.Node]{
		Kind: objstore.KindNode,
		Ref:  func(n *model.Node) objstore.Ref { return objstore.Ref{Name: n.Name} },
		Upsert: func(_ context.Context, n *model.Node) error {
			f.sent = append(f.sent, n)
			return nil
		},
		Delete: func(context.Context, objstore.Ref) error { return nil },
		List:   func() []*model.Node { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fakeLog records the evictions and holds the pods terminating, as
// server/eviction does.
type fakeLog struct {
	cluster   *fakeCluster
	evictions []framework.Eviction
}

func (f *fakeLog) Evict(_ context.Context, e framework.Eviction) error {
	f.evictions = append(f.evictions, e)
	for _, p := range f.cluster.pods {
		if p.UID == e.Victim.UID {
			p.Terminating = true
		}
	}
	return nil
}

type harness struct {
	svc   *Service
	nodes *objstore.Store
	clus  *fakeCluster
	sched *fakeScheduler
	log   *fakeLog
	now   time.Time
	dir   string
	st    *bboltstore.Store
}

func newHarness(t *testing.T, settings Settings, dir string) *harness {
	t.Helper()
	cfg, err := settings.Parse()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{clus: &fakeCluster{node: &model.Node{Name: "n1", Labels: map[string]string{"pool": "batch"}}},
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), dir: dir}
	for _, name := range []string{"a", "b"} {
		h.clus.pods = append(h.clus.pods, &model.Pod{UID: "u-" + name, Namespace: "d", Name: name, NodeName: "n1",
			Containers: []model.Container{{Name: "c", Requests: model.ResourceList{model.ResourceMemory: 1 << 30}}}})
	}
	h.sched = &fakeScheduler{}
	h.log = &fakeLog{cluster: h.clus}
	h.nodes = objstore.New(h.sched.kinds(t), objstore.Options{NodeMutators: []objstore.NodeMutator{
		func(n *model.Node) *model.Node { return h.svc.Taints(n) },
	}})
	st, err := bboltstore.Open(t.Context(), dir, bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	h.st = st
	h.svc, err = New(Options{Config: cfg, Cluster: h.clus, Nodes: h.nodes, Evictor: h.log, Store: st,
		Now: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.svc.Close)
	return h
}

// summary: node n1 with availMi MiB available; a uses 2Gi, b 1.5Gi.
func summary(availMi int, at string) []byte {
	timeField := ""
	if at != "" {
		timeField = fmt.Sprintf(`"time":%q,`, at)
	}
	return fmt.Appendf(nil, `{"node":{"nodeName":"n1","memory":{%s"availableBytes":%d,"workingSetBytes":8589934592}},
"pods":[{"podRef":{"name":"a","namespace":"d"},"memory":{"workingSetBytes":2147483648},"containers":[{"name":"c","memory":{"workingSetBytes":2147483648}}]},
{"podRef":{"name":"b","namespace":"d"},"memory":{"workingSetBytes":1610612736},"containers":[{"name":"c","memory":{"workingSetBytes":1610612736}}]}]}`,
		timeField, availMi<<20)
}

func (h *harness) report(t *testing.T, data []byte) *berthv1.ReportNodeStatsResponse {
	t.Helper()
	resp, err := h.svc.ReportNodeStats(t.Context(), &berthv1.ReportNodeStatsRequest{SummaryJson: data})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func taintKeys(n *model.Node) []string {
	var out []string
	for _, t := range n.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

// TestTaintsFollowConditions: the node as sent gets the memory-pressure
// taint when a report meets the threshold, keeps it through the
// transition period, and is sent again without it after; one pod is
// evicted per report and an evicted pod is not chosen again.
func TestTaintsFollowConditions(t *testing.T) {
	h := newHarness(t, Settings{}, t.TempDir())
	if err := h.nodes.Upsert(t.Context(), h.clus.node); err != nil {
		t.Fatal(err)
	}
	if got := taintKeys(h.sched.sent[0]); got != nil {
		t.Fatalf("before any report: taints %v", got)
	}
	resp := h.report(t, summary(50, ""))
	if got := resp.GetEvict().GetVictim().GetName(); got != "a" || len(h.log.evictions) != 1 || h.log.evictions[0].Cause != framework.EvictNodePressure {
		t.Fatalf("first report evicted %q (log %v), want a with cause NODE_PRESSURE", got, h.log.evictions)
	}
	last := h.sched.sent[len(h.sched.sent)-1]
	if d := cmp.Diff([]string{"node.kubernetes.io/memory-pressure:NoSchedule"}, taintKeys(last)); d != "" {
		t.Fatalf("taints after pressure (-want +got):\n%s", d)
	}
	if h.clus.node.Taints != nil {
		t.Fatalf("the node as sent was changed: %v", h.clus.node.Taints)
	}
	h.now = h.now.Add(10 * time.Second)
	if got := h.report(t, summary(50, "")).GetEvict().GetVictim().GetName(); got != "b" {
		t.Fatalf("second report evicted %q, want b (a is terminating)", got)
	}
	h.now = h.now.Add(10 * time.Second)
	resp = h.report(t, summary(4096, ""))
	if resp.GetEvict() != nil || !cmp.Equal(resp.GetPressure().GetConditions(), []string{"MemoryPressure"}) {
		t.Fatalf("relieved report: %v, want no eviction and MemoryPressure kept for the transition period", resp)
	}
	// The transition period ends 5m after the last observation (t=10s).
	h.now = h.now.Add(5*time.Minute - 10*time.Second)
	h.svc.expire("n1")
	if got := taintKeys(h.sched.sent[len(h.sched.sent)-1]); got != nil {
		t.Fatalf("after the transition period: taints %v, want none", got)
	}
}

// TestStaleStatsNeverEvict: a Summary measured longer ago than
// evictionStatsMaxAge changes nothing.
func TestStaleStatsNeverEvict(t *testing.T) {
	h := newHarness(t, Settings{EvictionStatsMaxAge: "30s"}, t.TempDir())
	resp := h.report(t, summary(50, h.now.Add(-31*time.Second).Format(time.RFC3339)))
	if !resp.GetStale() || resp.GetEvict() != nil || len(h.log.evictions) != 0 || len(resp.GetPressure().GetConditions()) != 0 {
		t.Fatalf("stale report: %v, want stale, no eviction, no pressure", resp)
	}
	resp = h.report(t, summary(50, h.now.Add(-29*time.Second).Format(time.RFC3339)))
	if resp.GetStale() || resp.GetEvict().GetVictim().GetName() != "a" {
		t.Fatalf("fresh report: %v, want a evicted", resp)
	}
}

// TestPoolsAndRestart: a pool's thresholds apply to its nodes, and the
// state (here a soft threshold's first observation) survives a restart:
// the grace period counts from before it.
func TestPoolsAndRestart(t *testing.T) {
	dir := t.TempDir()
	s := Settings{EvictionPools: []Pool{{NodeSelector: "pool=batch", Settings: pressure.Settings{
		EvictionSoft: map[string]string{"memory.available": "1Gi"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "30s"},
		EvictionMaxPodGracePeriod: 20,
	}}}}
	h := newHarness(t, s, dir)
	if resp := h.report(t, summary(800, "")); resp.GetEvict() != nil || len(resp.GetPressure().GetConditions()) != 1 {
		t.Fatalf("soft threshold at t=0: %v, want pressure without eviction", resp)
	}
	h.svc.Close()
	if err := h.st.Close(); err != nil {
		t.Fatal(err)
	}
	start := h.now
	h = newHarness(t, s, dir) // same store directory: a restart
	h.now = start.Add(30 * time.Second)
	resp := h.report(t, summary(800, ""))
	if resp.GetEvict().GetVictim().GetName() != "a" || resp.GetEvict().GetGracePeriodSeconds() != 20 {
		t.Fatalf("after the restart at t=30s: %v, want a evicted with grace min(20, 30)", resp)
	}
}
