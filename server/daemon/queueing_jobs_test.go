package daemon

import (
	"slices"
	"strconv"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/integrations"
	"github.com/berthsched/berth/server/queuesvc"
)

// jobPods are the pods of Job name in team-a, queued in "lq", as an
// orchestrator sends them: the controller owner reference and Kueue's
// count annotation name the Job and its parallelism.
func jobPods(name string, n int) []*berthv1.Pod {
	var out []*berthv1.Pod
	for i := range n {
		p := queuedPod("team-a", name+"-"+strconv.Itoa(i), 1000)
		p.Runtime = &berthv1.PodRuntime{
			Owners:      []*berthv1.OwnerReference{{Kind: "Job", Name: name, Uid: "uid-job-" + name, Controller: true}},
			Annotations: map[string]string{integrations.PodGroupTotalCountAnnotation: strconv.Itoa(n)},
		}
		out = append(out, p)
	}
	return out
}

func jobWorkload(name string) string {
	return "team-a/" + integrations.Name("Job", "batch", name, "uid-job-"+name)
}

// A Job's pods sent to berthd are one workload, admitted whole (one Admit
// of its three pods, all bound) and, over the cohort's quota, gated whole;
// a reclaim preempts it whole. After a restart (bbolt) its pods still
// terminating hold its quota: the reclaiming pod waits until they are
// deleted, and nothing is admitted twice.
func TestKueueJobLive(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	config := func() Config { return Config{DataDir: dir, Deterministic: true} }
	e := start(t, config())
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 8000))
	e.apply(t, kueueWire()...)
	train, big := jobPods("train", 3), jobPods("big", 4)
	for _, p := range append(slices.Clone(train), big...) {
		e.apply(t, podObj(p))
	}
	ds := w.waitFor(t, "the Job admitted and its three pods bound", func(ds []*berthv1.Decision) bool {
		return len(admitted(ds)) == 1 && len(binds(ds)) == 3
	})
	for _, d := range ds {
		if a := d.GetAdmit(); a != nil && (a.GetWorkloadNamespace()+"/"+a.GetWorkloadName() != jobWorkload("train") ||
			len(a.GetPodSets()) != 1 || a.GetPodSets()[0].GetName() != "main" || a.GetPodSets()[0].GetCount() != 3) {
			t.Errorf("admit %v: want %s, pod set main of 3", a, jobWorkload("train"))
		}
	}
	e.settle(t)
	bound := binds(w.waitFor(t, "", func([]*berthv1.Decision) bool { return true }))
	for _, p := range train {
		if bound[p.GetName()] == "" {
			t.Errorf("%s of the admitted Job not bound", p.GetName())
		}
	}
	for _, p := range big {
		held, _ := e.d.Scheduler().View().Pod(p.GetUid())
		if bound[p.GetName()] != "" || held == nil || !slices.Contains(held.SchedulingGates, admission.AdmissionGate) {
			t.Errorf("%s of the Job over the cohort's quota: bound %q, held %+v; want gated", p.GetName(), bound[p.GetName()], held)
		}
	}
	st := workloadStatus(t, e.d.Queues().Status(), jobWorkload("big"))
	if st.Origin != queuesvc.OriginOwner || st.Pods != 4 || st.State == queuesvc.StateAdmitted {
		t.Errorf("the big Job's status %+v: want not admitted, of its 4 pods", st)
	}

	// Team b reclaims the quota the Job borrows: the whole Job is evicted.
	b1 := queuedPod("team-b", "b1", 1000, withPriority(100))
	e.apply(t, podObj(b1))
	w.waitFor(t, "the Job preempted whole", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD) == 1 && countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 3
	})
	e.settle(t)
	e.shutdown(t)

	// Restart: the orchestrator re-lists, the Job's pods still there
	// (terminating, bound); they hold its quota.
	e = start(t, config())
	w = e.startWatch(t, &berthv1.WatchRequest{})
	muts := upserts(append([]*berthv1.Object{nodeObj("n1", 8000)}, kueueWire()...)...)
	for _, p := range append(append(slices.Clone(train), big...), b1) {
		p.NodeName = bound[p.GetName()]
		muts = append(muts, upserts(podObj(p))...)
	}
	_, send := e.syncStream(t)
	for _, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: muts},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END},
	} {
		if resp := send(req); len(resp.GetErrors()) > 0 {
			t.Fatalf("batch %d: %v", req.GetBatchId(), resp.GetErrors())
		}
	}
	e.settle(t)
	after := w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })
	if got := admitted(after); len(got) != 0 {
		t.Errorf("admitted %v after the restart while the Job's pods terminate", got)
	}
	if st := workloadStatus(t, e.d.Queues().Status(), jobWorkload("train")); st.State != queuesvc.StateEvicting || len(st.PodSets) != 1 || st.PodSets[0].Count != 3 {
		t.Errorf("the preempted Job after the restart: %+v, want evicting, holding its 3 pods' quota", st)
	}
	var refs []*berthv1.ObjectRef
	for _, p := range train {
		refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "team-a", Name: p.GetName()})
	}
	if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: refs}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "b1 admitted once the Job's pods are gone", func(ds []*berthv1.Decision) bool {
		return slices.Contains(admitted(ds), workloadOf(b1))
	})
}
