package daemon

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/workloadpods"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/queuesvc"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

// heldWorkload is team-a's explicit Workload "train" holding its pods: 4
// workers of 1 cpu, admitted with at least 1 (partial admission).
func heldWorkload(count int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
		Namespace: "team-a", Name: "train", Uid: "wl-train", QueueName: "lq", HoldPods: true,
		PodSets: []*berthv1.PodSet{{Name: "workers", Count: count, MinCount: proto.Int32(1), Template: &berthv1.PodSetTemplate{
			Requests: map[string]int64{"cpu": 1000},
		}}},
	}}}
}

// heldBinds are the Binds of train's pods, by pod name: their node.
func heldBinds(t *testing.T, ds []*berthv1.Decision) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range ds {
		b := d.GetBind()
		if b == nil || !strings.HasPrefix(d.GetPod().GetName(), "train-") {
			continue
		}
		h := b.GetHeldPod()
		if h.GetWorkloadName() != "train" || h.GetWorkloadUid() != "wl-train" || h.GetPodSet() != "workers" ||
			workloadpods.PodName("train", "workers", h.GetIndex()) != d.GetPod().GetName() {
			t.Errorf("bind of %s: held_pod %v, want train's workers pod of its index", d.GetPod().GetName(), h)
		}
		out[d.GetPod().GetName()] = b.GetNode()
	}
	return out
}

// An explicit Workload with hold_pods, end to end: its pods are held,
// partially admitted (3 of 4 fit the cohort's 3 cpus: those are released
// and bound, Binds naming the pod set; the fourth stays gated), a pod of
// a held name is refused, a changed count of the admitted workload is
// refused naming the field, a CONFIRMED report keeps the durable bind, a
// held pod the orchestrator deletes comes back and is bound again; after
// a restart and the orchestrator's re-list (which does not send held
// pods) nothing is admitted or bound again and the pods are where they
// were; deleting the Workload deletes its pods and its admission.
func TestHeldPodsLive(t *testing.T) {
	t.Run("bbolt", func(t *testing.T) {
		dir := t.TempDir()
		heldPodsLive(t, func() Config { return Config{DataDir: dir, Deterministic: true} })
	})
	// A new daemon on the same etcd prefix is a failover's new leader.
	t.Run("etcd", func(t *testing.T) {
		_, cli := etcdtest.New(t)
		heldPodsLive(t, func() Config {
			st, err := etcdstore.Open(t.Context(), cli, etcdstore.Options{Prefix: "/held/", CompactInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			return Config{Store: st, Deterministic: true}
		})
	})
}

func heldPodsLive(t *testing.T, cfg func() Config) {
	ctx := t.Context()
	e := start(t, cfg())
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 8000))
	e.apply(t, kueueWire()...)
	e.apply(t, heldWorkload(4))
	ds := w.waitFor(t, "train admitted, 3 pods bound", func(ds []*berthv1.Decision) bool {
		return slices.Contains(admitted(ds), "team-a/train") && len(binds(ds)) == 3
	})
	e.settle(t)
	for _, d := range ds {
		if a := d.GetAdmit(); a != nil && (a.GetPodSets()[0].GetCount() != 3 || a.GetWorkloadUid() != "wl-train") {
			t.Errorf("admit %v: want 3 workers of wl-train", a)
		}
	}
	bound := heldBinds(t, ds)
	for _, name := range []string{"train-workers-0", "train-workers-1", "train-workers-2"} {
		if bound[name] != "n1" {
			t.Errorf("binds %v: want %s on n1", bound, name)
		}
	}
	view := e.d.Scheduler().View()
	gated, ok := view.Pod("wl-train-workers-3")
	if !ok || !slices.Contains(gated.SchedulingGates, admission.AdmissionGate) {
		t.Errorf("train-workers-3 as held: %+v, want gated (beyond the admitted count)", gated)
	}
	if ws := workloadStatus(t, e.d.Queues().Status(), "team-a/train"); ws.Pods != 4 {
		t.Errorf("train's status %+v: want its 4 held pods", ws)
	}
	// The orchestrator's own pod of a held name, and the count of the
	// admitted workload changed, are refused with their fields.
	refused := func(obj *berthv1.Object, field string) {
		t.Helper()
		resp, err := e.state.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{obj}})
		if err != nil {
			t.Fatal(err)
		}
		if errs := resp.GetErrors(); len(errs) != 1 || errs[0].GetFieldPath() != field {
			t.Errorf("Apply: errors %v, want one at %s", errs, field)
		}
	}
	clash := queuedPod("team-a", "train-workers-0", 1000)
	refused(podObj(clash), "pod.name")
	refused(heldWorkload(5), "workload.pod_sets[0].count")

	// Confirmed, the bind stays the durable record of where it runs.
	var rev uint64
	for _, d := range ds {
		if d.GetBind() != nil && d.GetPod().GetName() == "train-workers-0" {
			rev = d.GetRevision()
		}
	}
	if _, err := e.state.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{Revision: rev,
		Pod: &berthv1.PodRef{Namespace: "team-a", Name: "train-workers-0", Uid: "wl-train-workers-0"}, Node: "n1",
		Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
	}); err != nil {
		t.Fatalf("confirm: %v", err)
	}
	if _, ok := e.d.Book().Outstanding(podbook.KindBind, "wl-train-workers-0"); !ok {
		t.Error("the confirmed bind of a held pod was ended")
	}
	if p, _ := view.Pod("wl-train-workers-0"); p == nil || p.NodeName != "n1" {
		t.Errorf("train-workers-0 after its report: %+v, want bound to n1", p)
	}

	// Finished, train-workers-1 is deleted: it comes back, released, and is
	// bound again.
	if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "team-a", Name: "train-workers-1"}}}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "train-workers-1 bound again", func(ds []*berthv1.Decision) bool {
		n := 0
		for _, d := range ds {
			if d.GetBind() != nil && d.GetPod().GetName() == "train-workers-1" {
				n++
			}
		}
		return n == 2
	})
	e.settle(t)
	ds = w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })
	admits, bindCount := countType(ds, berthv1.DecisionType_DECISION_TYPE_ADMIT), countType(ds, berthv1.DecisionType_DECISION_TYPE_BIND)
	e.shutdown(t)

	// Restart: the orchestrator re-lists everything it has (held pods are
	// not its own); the Workload brings its pods back, held where their
	// binds put them.
	e = start(t, cfg())
	w = e.startWatch(t, &berthv1.WatchRequest{})
	_, send := e.syncStream(t)
	for _, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(append([]*berthv1.Object{nodeObj("n1", 8000), heldWorkload(4)}, kueueWire()...)...)},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END},
	} {
		if resp := send(req); len(resp.GetErrors()) > 0 {
			t.Fatalf("batch %d: %v", req.GetBatchId(), resp.GetErrors())
		}
	}
	e.settle(t)
	e.settle(t) // the round's releases applied again
	after := w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })
	if n := countType(after, berthv1.DecisionType_DECISION_TYPE_ADMIT); n != 0 {
		t.Errorf("%d Admits after the restart (of %d before), want none", n, admits)
	}
	if n := countType(after, berthv1.DecisionType_DECISION_TYPE_BIND); n != 0 {
		t.Errorf("%d Binds after the restart (of %d before), want none: %v", n, bindCount, binds(after))
	}
	view = e.d.Scheduler().View()
	for i := range 4 {
		uid := "wl-train-workers-" + string(rune('0'+i))
		p, ok := view.Pod(uid)
		switch {
		case !ok:
			t.Errorf("%s not held after the restart", uid)
		case i < 3 && p.NodeName != "n1":
			t.Errorf("%s after the restart: node %q, want n1", uid, p.NodeName)
		case i == 3 && (p.NodeName != "" || !slices.Contains(p.SchedulingGates, admission.AdmissionGate)):
			t.Errorf("%s after the restart: %+v, want gated", uid, p)
		}
	}

	// Deleted, the Workload takes its pods and its admission with it.
	if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, Namespace: "team-a", Name: "train"}}}); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	e.settle(t)
	for i := range 4 {
		if p, ok := view.Pod("wl-train-workers-" + string(rune('0'+i))); ok {
			t.Errorf("pod %s still held after its Workload's deletion", p.Key())
		}
	}
	if n := len(e.d.Book().Admissions()); n != 0 {
		t.Errorf("%d admissions held after the Workload's deletion, want none", n)
	}
}

// A preempted Workload holding pods: its bound pods get quota Evicts; the
// orchestrator stops and deletes them, they come back gated, the
// preemptor is admitted once they are gone, and the Workload is admitted
// again with what is left (partial: 2 of 4), its pods of index 0 and 1
// bound again.
func TestHeldPodsEvicted(t *testing.T) {
	ctx := t.Context()
	e := start(t, Config{DataDir: t.TempDir(), Deterministic: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 8000))
	e.apply(t, kueueWire()...)
	e.apply(t, heldWorkload(4))
	w.waitFor(t, "train admitted, 3 pods bound", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 3 })
	e.settle(t)

	b1 := queuedPod("team-b", "b1", 1000, withPriority(100))
	e.apply(t, podObj(b1))
	ds := w.waitFor(t, "train preempted", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD) == 1 && countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 3
	})
	e.settle(t)
	var victims []string
	for _, d := range ds {
		if ev := d.GetEvictWorkload(); ev != nil && ev.GetWorkloadName() != "train" {
			t.Errorf("workload eviction %v: want train", ev)
		}
		if ev := d.GetEvict(); ev != nil {
			if ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_QUOTA {
				t.Errorf("evict %v: want cause quota", ev)
			}
			victims = append(victims, ev.GetVictim().GetName())
		}
	}
	slices.Sort(victims)
	if want := []string{"train-workers-0", "train-workers-1", "train-workers-2"}; !slices.Equal(victims, want) {
		t.Errorf("evicted %v, want %v", victims, want)
	}
	if slices.Contains(admitted(ds), workloadOf(b1)) {
		t.Fatal("b1 admitted before train's pods were gone")
	}
	// The orchestrator stops them and deletes them: they come back gated.
	for _, name := range victims {
		if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "team-a", Name: name}}}); err != nil {
			t.Fatal(err)
		}
	}
	ds = w.waitFor(t, "b1 admitted and bound, train admitted again with 2", func(ds []*berthv1.Decision) bool {
		// 3 binds of train's, b1's, then 2 of train's again.
		return binds(ds)["b1"] != "" && countType(ds, berthv1.DecisionType_DECISION_TYPE_ADMIT) == 3 && countType(ds, berthv1.DecisionType_DECISION_TYPE_BIND) == 6
	})
	e.settle(t)
	var again []*berthv1.Admit
	for _, d := range ds {
		if a := d.GetAdmit(); a != nil && a.GetWorkloadName() == "train" {
			again = append(again, a)
		}
	}
	if len(again) != 2 || again[1].GetPodSets()[0].GetCount() != 2 {
		t.Errorf("train's admissions %v: want a second one of 2 workers", again)
	}
	view := e.d.Scheduler().View()
	for i, want := range []bool{true, true, false, false} {
		uid := "wl-train-workers-" + string(rune('0'+i))
		p, ok := view.Pod(uid)
		if !ok {
			t.Fatalf("%s not held", uid)
		}
		if released := !slices.Contains(p.SchedulingGates, admission.AdmissionGate); released != want {
			t.Errorf("%s: released %v, want %v (gates %v, node %q)", uid, released, want, p.SchedulingGates, p.NodeName)
		}
	}
}

// Placement-aware admission nominates a held Workload's pods in the
// Admit's commit, as it does the other workloads' pods: two pods of one
// cpu on two nodes of 1.5 cpus are nominated one to each right after the
// Admit and bound there; a second Workload, for which no room is left,
// waits gated with the placement's message.
func TestHeldPodsPlacementAware(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir(), Deterministic: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1500), nodeObj("n2", 1500))
	e.apply(t, placementQueue(true)...)
	held := func(name string, count int32) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
			Namespace: "team", Name: name, Uid: "wl-" + name, QueueName: "lq", HoldPods: true,
			PodSets: []*berthv1.PodSet{{Name: "main", Count: count, Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 1000}}}},
		}}}
	}
	e.apply(t, held("gang", 2))
	w.waitFor(t, "gang admitted, its 2 pods bound", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
	e.settle(t)
	e.apply(t, held("late", 2))
	e.settle(t)
	e.settle(t)
	// Not admitted, a Workload re-sent with a lower count holds fewer pods.
	e.apply(t, held("late", 1))
	e.settle(t)
	e.settle(t)
	if p, ok := e.d.Scheduler().View().Pod("wl-late-main-1"); ok {
		t.Errorf("late-main-1 still held after late's count went down to 1: %+v", p)
	}
	ds := w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })
	var admitRev uint64
	nominated := map[string]string{}
	for _, d := range ds {
		if a := d.GetAdmit(); a != nil {
			if a.GetWorkloadName() != "gang" {
				t.Errorf("admitted %s, want only gang", a.GetWorkloadName())
			}
			admitRev = d.GetRevision()
		}
		if n := d.GetNominate(); n != nil {
			if d.GetRevision() > admitRev+2 {
				t.Errorf("nomination of %s at revision %d: want it in the Admit's commit (after %d)", d.GetPod().GetName(), d.GetRevision(), admitRev)
			}
			nominated[d.GetPod().GetName()] = n.GetNode()
		}
	}
	bound := binds(ds)
	if len(nominated) != 2 || nominated["gang-main-0"] == nominated["gang-main-1"] {
		t.Errorf("nominations %v: want gang's two pods, one per node", nominated)
	}
	for pod, node := range nominated {
		if bound[pod] != node {
			t.Errorf("%s bound to %q, nominated to %q", pod, bound[pod], node)
		}
	}
	st := workloadStatus(t, e.d.Queues().Status(), "team/late")
	if st.State != queuesvc.StateInadmissible || !strings.HasPrefix(st.Message, "couldn't place the workload on the nodes") {
		t.Errorf("late's status %+v: want inadmissible for want of room", st)
	}
	if p, ok := e.d.Scheduler().View().Pod("wl-late-main-0"); !ok || !slices.Contains(p.SchedulingGates, admission.AdmissionGate) {
		t.Errorf("late-main-0 as held: %+v, want gated", p)
	}
}

// The pods of a Workload sent admitted (by another Kueue) are released
// with that admission, with no Admit of Berth's; sent again without it
// (and inactive, so that Berth does not admit it itself), its pending
// pods are gated again.
func TestHeldPodsAdmittedElsewhere(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir(), Deterministic: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1500))
	e.apply(t, kueueWire()...)
	wl := func(admitted bool) *berthv1.Object {
		o := heldWorkload(2)
		o.GetWorkload().PodSets[0].MinCount = nil
		if admitted {
			o.GetWorkload().Admission = &berthv1.WorkloadAdmission{ClusterQueue: "cq-a", PodSets: []*berthv1.PodSetAdmission{
				{Name: "workers", Count: 2, Flavors: map[string]string{"cpu": "default"}},
			}}
		}
		return o
	}
	e.apply(t, wl(true))
	ds := w.waitFor(t, "a pod bound (room for one)", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 1 })
	e.settle(t)
	e.settle(t)
	if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_ADMIT); n != 0 {
		t.Errorf("%d Admits of a workload admitted elsewhere, want none", n)
	}
	view := e.d.Scheduler().View()
	for _, uid := range []string{"wl-train-workers-0", "wl-train-workers-1"} {
		if p, ok := view.Pod(uid); !ok || slices.Contains(p.SchedulingGates, admission.AdmissionGate) {
			t.Errorf("%s: %+v, want released", uid, p)
		}
	}
	inactive := wl(false)
	inactive.GetWorkload().Active = proto.Bool(false)
	e.apply(t, inactive)
	e.settle(t)
	e.settle(t)
	var pending *model.Pod
	for _, uid := range []string{"wl-train-workers-0", "wl-train-workers-1"} {
		if p, ok := view.Pod(uid); ok && p.NodeName == "" {
			pending = p
		}
	}
	if pending == nil || !slices.Contains(pending.SchedulingGates, admission.AdmissionGate) {
		t.Errorf("the pending pod once the admission is gone: %+v, want gated", pending)
	}
}
