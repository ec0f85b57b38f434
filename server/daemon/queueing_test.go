package daemon

import (
	"slices"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/integrations"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/queuesvc"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

// kueueObjects are two ClusterQueues in a cohort sharing one flavor:
// cq-a with 2 cpus, cq-b with 1, which it reclaims from a borrower.
func kueueObjects() []any {
	all := &model.LabelSelector{}
	cq := func(name string, cpu int64) *quota.ClusterQueue {
		q := &quota.ClusterQueue{
			Name: name, Cohort: "pool", NamespaceSelector: all,
			ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
				Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: cpu}}},
			}}}},
			Preemption: quota.Preemption{WithinClusterQueue: quota.PolicyLowerPriority, ReclaimWithinCohort: quota.PolicyAny},
		}
		quota.DefaultClusterQueue(q)
		return q
	}
	return []any{
		&quota.ResourceFlavor{Name: "default"},
		&quota.Cohort{Name: "pool", FairWeight: 1},
		cq("cq-a", 2000), cq("cq-b", 1000),
		&quota.LocalQueue{Namespace: "team-a", Name: "lq", ClusterQueue: "cq-a"},
		&quota.LocalQueue{Namespace: "team-b", Name: "lq", ClusterQueue: "cq-b"},
	}
}

// kueueWire is kueueObjects as the orchestrator sends them.
func kueueWire() []*berthv1.Object {
	var out []*berthv1.Object
	for _, o := range kueueObjects() {
		out = append(out, convert.QueueObjectToProto(o))
	}
	return out
}

// queuedPod is a pod of namespace ns labelled with LocalQueue "lq".
func queuedPod(ns, name string, cpu int64, opts ...podOpt) *berthv1.Pod {
	p := podWire(name, cpu, opts...)
	p.Namespace, p.Uid = ns, "uid-"+ns+"-"+name
	p.Labels = map[string]string{integrations.QueueNameLabel: "lq"}
	return p
}

// workloadOf is the name of a one-pod workload.
func workloadOf(p *berthv1.Pod) string {
	return p.GetNamespace() + "/" + integrations.Name("Pod", "", p.GetName(), p.GetUid())
}

func admitted(ds []*berthv1.Decision) []string {
	var out []string
	for _, d := range ds {
		if a := d.GetAdmit(); a != nil {
			out = append(out, a.GetWorkloadNamespace()+"/"+a.GetWorkloadName())
		}
	}
	slices.Sort(out)
	return out
}

// settle waits until the controllers handled every change and the
// admission controller ran a round over them.
func (e *env) settle(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	if err := e.d.Objects().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.d.Queues().Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

func workloadStatus(t *testing.T, st queuesvc.Status, key string) queuesvc.WorkloadStatus {
	t.Helper()
	for _, w := range st.Workloads {
		if w.Key == key {
			return w
		}
	}
	t.Fatalf("no status of workload %s in %+v", key, st.Workloads)
	return queuesvc.WorkloadStatus{}
}

// Kueue admission live: pods within quota (borrowing included) are
// admitted, ungated and bound; one over the cohort's quota waits gated
// with Kueue's message; a workload of the ClusterQueue lent from
// reclaims its quota (WorkloadEviction and a quota Evict of the
// borrower's pod) and is admitted only once the test deletes the
// victim's pod; a restart (bbolt) or a new leader (etcd) keeps every
// admission and admits none twice.
func TestKueueAdmissionLive(t *testing.T) {
	backends := map[string]func(t *testing.T) func() Config{
		"bbolt": func(t *testing.T) func() Config {
			dir := t.TempDir()
			return func() Config { return Config{DataDir: dir, Deterministic: true} }
		},
		// A new daemon on the same etcd prefix is a failover's new leader.
		"etcd": func(t *testing.T) func() Config {
			_, cli := etcdtest.New(t)
			return func() Config {
				st, err := etcdstore.Open(t.Context(), cli, etcdstore.Options{Prefix: "/kueue/", CompactInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				return Config{Store: st, Deterministic: true}
			}
		},
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) { kueueAdmissionLive(t, backend(t)) })
	}
}

func kueueAdmissionLive(t *testing.T, config func() Config) {
	ctx := t.Context()
	e := start(t, config())
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 8000))
	e.apply(t, kueueWire()...)
	var a []*berthv1.Pod
	for _, name := range []string{"a1", "a2", "a3", "a4"} {
		a = append(a, queuedPod("team-a", name, 1000))
	}
	for _, p := range a {
		e.apply(t, podObj(p))
	}
	ds := w.waitFor(t, "three pods admitted and bound", func(ds []*berthv1.Decision) bool {
		return len(admitted(ds)) == 3 && len(binds(ds)) == 3
	})
	want := []string{workloadOf(a[0]), workloadOf(a[1]), workloadOf(a[2])}
	slices.Sort(want)
	if got := admitted(ds); !slices.Equal(got, want) {
		t.Errorf("admitted %v, want %v", got, want)
	}
	for _, d := range ds {
		if ad := d.GetAdmit(); ad != nil && (ad.GetClusterQueue() != "cq-a" || ad.GetPodSets()[0].GetFlavors()["cpu"] != "default") {
			t.Errorf("admission %v: want cq-a, cpu in flavor default", ad)
		}
	}
	e.settle(t)
	if _, bound := binds(w.waitFor(t, "", func([]*berthv1.Decision) bool { return true }))["a4"]; bound {
		t.Error("a4, over the cohort's quota, was bound")
	}
	held, _ := e.d.Scheduler().View().Pod(a[3].GetUid())
	if held == nil || !slices.Contains(held.SchedulingGates, admission.AdmissionGate) {
		t.Errorf("a4 as the scheduler holds it: %+v, want it gated by %s", held, admission.AdmissionGate)
	}
	st := workloadStatus(t, e.d.Queues().Status(), workloadOf(a[3]))
	if st.State != queuesvc.StateInadmissible || !strings.Contains(st.Message, "insufficient unused quota for cpu in flavor default") {
		t.Errorf("a4's status %+v: want inadmissible (BestEffortFIFO) for want of cpu quota, in Kueue's words", st)
	}
	// The same, as the admin API and the dashboard serve it.
	qs := queueStatus{e.d.Queues()}
	if ws := qs.PodWorkload("team-a", "a4"); ws.GetState() != berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE ||
		ws.GetOrigin() != berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD || ws.GetQueueName() != "lq" || ws.GetPods() != 1 || ws.GetMessage() != st.Message {
		t.Errorf("a4's workload as served: %v, want inadmissible, of a pod, in lq, with %q", ws, st.Message)
	}
	if ws := qs.PodWorkload("team-a", "nobody"); ws != nil {
		t.Errorf("the workload of a pod Berth does not hold: %v, want none", ws)
	}
	for _, cq := range qs.ClusterQueues() {
		if cq.GetName() == "cq-a" && (cq.GetCohort() != "pool" || len(cq.GetResources()) != 1 || cq.GetResources()[0].GetNominal() != 2000 ||
			cq.GetResources()[0].GetUsage() != cq.GetResources()[0].GetNominal()+cq.GetResources()[0].GetBorrowed()) {
			t.Errorf("cq-a as served: %v, want cohort pool, nominal 2000 cpu, usage = nominal + borrowed", cq)
		}
	}

	// Team b reclaims its lent quota.
	b1 := queuedPod("team-b", "b1", 1000, withPriority(100))
	e.apply(t, podObj(b1))
	ds = w.waitFor(t, "a workload of team a preempted", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD) == 1 && countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 1
	})
	var victim string
	for _, d := range ds {
		if ev := d.GetEvictWorkload(); ev != nil {
			if ev.GetPreemptedBy() != workloadOf(b1) || ev.GetReason() != "InCohortReclamation" || ev.GetClusterQueue() != "cq-a" {
				t.Errorf("workload eviction %v: want by %s, InCohortReclamation, from cq-a", ev, workloadOf(b1))
			}
		}
		if ev := d.GetEvict(); ev != nil {
			victim = ev.GetVictim().GetName()
			if ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_QUOTA || !strings.Contains(ev.GetReason(), workloadOf(b1)) {
				t.Errorf("evict %v: want cause quota naming %s", ev, workloadOf(b1))
			}
		}
	}
	e.settle(t)
	if ev := e.d.Scheduler().View().Evicted(); !slices.Contains(ev, "uid-team-a-"+victim) {
		t.Errorf("pods held terminating %v, want the victim %s", ev, victim)
	}
	if got := admitted(w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })); slices.Contains(got, workloadOf(b1)) {
		t.Fatal("b1 was admitted before its victim's pod was deleted")
	}
	if st := workloadStatus(t, e.d.Queues().Status(), workloadOf(b1)); st.State != queuesvc.StatePending || len(st.Victims) != 1 {
		t.Errorf("b1's status %+v: want pending, with its victim", st)
	}
	if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "team-a", Name: victim}}}); err != nil {
		t.Fatal(err)
	}
	ds = w.waitFor(t, "b1 admitted and bound", func(ds []*berthv1.Decision) bool {
		return slices.Contains(admitted(ds), workloadOf(b1)) && binds(ds)["b1"] != ""
	})
	e.settle(t)
	admits := countType(ds, berthv1.DecisionType_DECISION_TYPE_ADMIT)
	var cqb queuesvc.ClusterQueueStatus
	for _, cq := range e.d.Queues().Status().ClusterQueues {
		if cq.Name == "cq-b" {
			cqb = cq
		}
	}
	if cqb.Admitted != 1 || len(cqb.Resources) != 1 || cqb.Resources[0].Usage != 1000 || cqb.Resources[0].Nominal != 1000 {
		t.Errorf("cq-b's status %+v: want one admitted using its 1000m", cqb)
	}
	e.shutdown(t)

	// Restart on the same store: the admissions are restored, the
	// orchestrator re-lists its pods (the bound ones with their node), and
	// nothing is admitted again.
	e = start(t, config())
	w = e.startWatch(t, &berthv1.WatchRequest{})
	bound := binds(ds)
	// A full re-list: the queueing objects are kinds of the API like the
	// others, so they are re-sent too.
	muts := upserts(append([]*berthv1.Object{nodeObj("n1", 8000)}, kueueWire()...)...)
	for _, p := range append(a, b1) {
		if p.GetName() == victim {
			continue
		}
		if n := bound[p.GetName()]; n != "" {
			p.NodeName = n
		}
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
	if n := countType(after, berthv1.DecisionType_DECISION_TYPE_ADMIT); n != 0 {
		t.Errorf("%d Admits after the restart (of %d before), want none: %v", n, admits, admitted(after))
	}
	if n := len(e.d.Book().Admissions()); n != 3 {
		t.Errorf("%d admissions held after the restart, want 3 (two of team a, b1)", n)
	}
	if st := workloadStatus(t, e.d.Queues().Status(), workloadOf(a[3])); st.State != queuesvc.StateInadmissible {
		t.Errorf("a4 after the restart: %+v, want still waiting for quota", st)
	}
}
