package queuesvc

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

func oneQueue(t *testing.T, h *harness) {
	t.Helper()
	cq := &quota.ClusterQueue{
		Name: "cq", NamespaceSelector: &model.LabelSelector{},
		ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
			Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: 1000}}},
		}}}},
		Preemption: quota.Preemption{WithinClusterQueue: quota.PolicyLowerPriority},
	}
	quota.DefaultClusterQueue(cq)
	for _, o := range []any{&quota.ResourceFlavor{Name: "default"}, cq, &quota.LocalQueue{Namespace: "ns", Name: "lq", ClusterQueue: "cq"}} {
		if err := h.upsert(t, o); err != nil {
			t.Fatal(err)
		}
	}
}

func labelled(name string, priority int32) *model.Pod {
	return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name, RequestedPriority: &priority,
		Labels:     map[string]string{integrations.QueueNameLabel: "lq"},
		Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 1000}}}}
}

// planned names a plan's items: "admit ns/w", "evict_workload ns/w",
// "evict ns/pod".
func planned(p framework.Plan) []string {
	var out []string
	for _, item := range p.Items {
		switch it := item.(type) {
		case *framework.Admission:
			out = append(out, "admit "+it.Workload.Key())
		case *framework.WorkloadEviction:
			out = append(out, "evict_workload "+it.Workload.Key()+" by "+it.PreemptedBy+" "+it.Reason)
		case *framework.Eviction:
			out = append(out, "evict "+it.Victim.Key()+" from "+it.Node)
		}
	}
	return out
}

// Within a ClusterQueue a higher-priority workload preempts: the round
// that preempts evicts the victim (its WorkloadEviction and a quota Evict
// of its bound pod) and does not admit the preemptor; the victim holds
// its quota while its pod runs, is not evicted twice, and once its pod is
// deleted the preemptor is admitted. Kueue's metrics count it all.
func TestEvictFirstAdmitAfter(t *testing.T) {
	ctx := t.Context()
	h := newHarness(t, quota.Config{})
	oneQueue(t, h)
	low, high := labelled("low", 0), labelled("high", 100)
	lowWL, highWL := runningKey(low), runningKey(high)
	round := func() []string {
		t.Helper()
		before := len(h.log.plans)
		if err := h.c.round(ctx, true); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range h.log.plans[before:] {
			out = append(out, planned(p)...)
		}
		return out
	}
	equal := func(what string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %q, want %q", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %q, want %q", what, got, want)
			}
		}
	}

	h.addPod(low)
	equal("first round", round(), "admit "+lowWL)
	boundLow := *low
	boundLow.NodeName = "n1"
	h.addPod(&boundLow)
	h.addPod(high)
	equal("the round that preempts", round(),
		"evict_workload "+lowWL+" by "+highWL+" InClusterQueue", "evict ns/low from n1")
	if st := statusOf(h.c.Status(), lowWL); st.State != StateEvicting {
		t.Errorf("victim %+v, want evicting", st)
	}
	if st := statusOf(h.c.Status(), highWL); st.State != StatePending || len(st.Victims) != 1 || st.Victims[0] != lowWL {
		t.Errorf("preemptor %+v, want pending for its victim %s", st, lowWL)
	}
	equal("a round while the victim's pod runs", round())

	h.objects.mu.Lock()
	delete(h.objects.pods, low.UID)
	h.objects.mu.Unlock()
	h.c.Handle(ctx, objstore.Event{Kind: objstore.KindPod, Old: &boundLow})
	equal("the round after the victim's pod is gone", round(), "admit "+highWL)

	if n := testutil.ToFloat64(h.c.m.admitted.WithLabelValues("cq")); n != 2 {
		t.Errorf("kueue_admitted_workloads_total{cq} = %v, want 2", n)
	}
	if n := testutil.ToFloat64(h.c.m.evicted.WithLabelValues("cq", "Preempted")); n != 1 {
		t.Errorf("kueue_evicted_workloads_total{cq,Preempted} = %v, want 1", n)
	}
	if n := testutil.ToFloat64(h.c.m.usage.WithLabelValues("cq", "default", "cpu")); n != 1000 {
		t.Errorf("kueue_cluster_queue_resource_usage{cq,default,cpu} = %v, want 1000", n)
	}
	if n := testutil.ToFloat64(h.c.m.pending.WithLabelValues("cq", "active")); n != 0 {
		t.Errorf("kueue_pending_workloads{cq,active} = %v, want 0", n)
	}
	if _, ok := h.log.admits[lowWL]; ok {
		t.Error("the victim's admission is still held")
	}
}

func statusOf(st Status, key string) WorkloadStatus {
	for _, w := range st.Workloads {
		if w.Key == key {
			return w
		}
	}
	return WorkloadStatus{}
}

// A victim none of whose pods runs releases its quota at once: the round
// after the one that evicts it admits the preemptor, with no event in
// between (the controller schedules it).
func TestVictimWithoutRunningPods(t *testing.T) {
	ctx := t.Context()
	h := newHarness(t, quota.Config{})
	oneQueue(t, h)
	low, high := labelled("low", 0), labelled("high", 100)
	h.addPod(low)
	if err := h.c.round(ctx, true); err != nil {
		t.Fatal(err)
	}
	h.addPod(high)
	if err := h.c.round(ctx, true); err != nil {
		t.Fatal(err)
	}
	last := planned(h.log.plans[len(h.log.plans)-1])
	if len(last) != 1 || last[0] != "evict_workload "+runningKey(low)+" by "+runningKey(high)+" InClusterQueue" {
		t.Fatalf("the preempting round planned %q, want only the WorkloadEviction (no pod runs)", last)
	}
	select {
	case <-h.c.kick:
	default:
		t.Fatal("no round scheduled after the eviction")
	}
	if err := h.c.round(ctx, true); err != nil {
		t.Fatal(err)
	}
	last = planned(h.log.plans[len(h.log.plans)-1])
	if len(last) != 1 || last[0] != "admit "+runningKey(high) {
		t.Fatalf("the next round planned %q, want the preemptor's Admit", last)
	}
	if st := statusOf(h.c.Status(), runningKey(low)); st.State == StateAdmitted || st.State == StateEvicting {
		t.Errorf("the victim %+v holds quota still", st)
	}
	if len(h.objects.refreshed) == 0 {
		t.Error("no pod was applied again (gated or released)")
	}
}
