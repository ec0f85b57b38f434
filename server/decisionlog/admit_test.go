package decisionlog

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

func admission(name string) *framework.Admission {
	return &framework.Admission{
		Workload: framework.WorkloadRef{Namespace: "ns", Name: name, UID: "wl-" + name}, ClusterQueue: "cq",
		PodSets: []framework.PodSetAdmission{{Name: "main", Count: 2, Flavors: map[string]string{"cpu": "on-demand"}}},
	}
}

// An Admit and a WorkloadEviction with the Evict of the workload's pod
// are one plan, one commit: the records say what was decided, the
// admission is in store.Admissions from the Admit to the eviction, and a
// second Admit or an eviction of a workload not admitted are refused.
func TestAdmitAndEvictWorkload(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	if _, err := framework.SubmitOne(ctx, l, admission("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := framework.SubmitOne(ctx, l, admission("a")); !errors.Is(err, ErrAlreadyAdmitted) {
		t.Fatalf("second Admit: %v, want ErrAlreadyAdmitted", err)
	}
	v, ok, err := st.Get(store.Admissions, []byte("ns/a"))
	if err != nil || !ok {
		t.Fatalf("store.Admissions[ns/a]: %v %v", ok, err)
	}
	if d, err := decodePayload(v); err != nil || d.GetAdmit().GetClusterQueue() != "cq" {
		t.Fatalf("stored admission %v, %v", d, err)
	}
	if a, ok := l.Book().Admission("ns", "a"); !ok || a.GetWorkloadUid() != "wl-a" {
		t.Fatalf("book's admission of ns/a: %v %v", a, ok)
	}

	victim := pod("a-0")
	plan := framework.Plan{Items: []framework.PlanItem{
		&framework.WorkloadEviction{Workload: framework.WorkloadRef{Namespace: "ns", Name: "a", UID: "wl-a"}, ClusterQueue: "cq",
			Reason: "InClusterQueue", PreemptedBy: "ns/b", Message: "Preempted to accommodate a workload"},
		&framework.Eviction{Victim: victim, Node: "n1", Cause: framework.EvictQuota, Message: "Preempted by workload ns/b (InClusterQueue)"},
		&framework.WorkloadEviction{Workload: framework.WorkloadRef{Namespace: "ns", Name: "never"}, ClusterQueue: "cq"},
	}}
	res, err := l.Submit(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err(0) != nil || res.Err(1) != nil || !errors.Is(res.Err(2), ErrNotAdmitted) {
		t.Fatalf("refusals %v, want only the third (not admitted)", res.Refused)
	}
	var wr *WorkloadRefusal
	if !errors.As(res.Err(2), &wr) || wr.ErrorReason() != "WORKLOAD_NOT_ADMITTED" || wr.ErrorMetadata()["workload"] != "ns/never" {
		t.Errorf("refusal %#v does not name the workload and reason", res.Err(2))
	}
	if res.Revision(1) != res.Revision(0)+1 {
		t.Errorf("revisions %v: the eviction's records are not consecutive", res.Revisions)
	}
	if _, ok, _ := st.Get(store.Admissions, []byte("ns/a")); ok {
		t.Error("the evicted workload's admission is still in store.Admissions")
	}
	if _, ok := l.Book().Admission("ns", "a"); ok {
		t.Error("the book still holds the evicted workload's admission")
	}
	want := []*berthv1.Decision{
		{Revision: 1, SchedulerName: "default-scheduler", Action: &berthv1.Decision_Admit{Admit: &berthv1.Admit{
			WorkloadNamespace: "ns", WorkloadName: "a", WorkloadUid: "wl-a", ClusterQueue: "cq",
			PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 2, Flavors: map[string]string{"cpu": "on-demand"}}},
		}}},
		{Revision: 2, SchedulerName: "default-scheduler", Action: &berthv1.Decision_EvictWorkload{EvictWorkload: &berthv1.WorkloadEviction{
			WorkloadNamespace: "ns", WorkloadName: "a", WorkloadUid: "wl-a", ClusterQueue: "cq",
			Reason: "InClusterQueue", PreemptedBy: "ns/b", Message: "Preempted to accommodate a workload",
		}}},
		{Revision: 3, SchedulerName: "default-scheduler", Pod: ref("a-0"), Action: &berthv1.Decision_Evict{Evict: &berthv1.Evict{
			Victim: ref("a-0"), Node: "n1", Cause: berthv1.EvictCause_EVICT_CAUSE_QUOTA, Reason: "Preempted by workload ns/b (InClusterQueue)",
		}}},
	}
	got := readAll(t, st)
	for _, d := range got {
		d.Time = nil
	}
	if diff := diffDecisions(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if TypeOf(got[0]) != berthv1.DecisionType_DECISION_TYPE_ADMIT || TypeOf(got[1]) != berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD {
		t.Errorf("types %v %v", TypeOf(got[0]), TypeOf(got[1]))
	}
	if CauseLabel(got[2].GetEvict().GetCause()) != "quota" {
		t.Errorf("cause label %q, want quota", CauseLabel(got[2].GetEvict().GetCause()))
	}
	// Evicted, the workload may be admitted again.
	if _, err := framework.SubmitOne(ctx, l, admission("a")); err != nil {
		t.Fatalf("Admit after the eviction: %v", err)
	}
}

// A restart restores the admissions: the workload is not admitted twice.
func TestAdmitAfterRestart(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, bboltstore.Options{})
	l := New(st, Options{})
	if _, err := framework.SubmitOne(t.Context(), l, admission("a")); err != nil {
		t.Fatal(err)
	}
	l2, _ := reopenRestored(t, l, st, dir)
	if _, err := framework.SubmitOne(t.Context(), l2, admission("a")); !errors.Is(err, ErrAlreadyAdmitted) {
		t.Fatalf("Admit after restart: %v, want ErrAlreadyAdmitted", err)
	}
	got := l2.Book().Admissions()
	want := admitDecision(admission("a")).GetAdmit()
	if len(got) != 1 || !proto.Equal(got[0], want) {
		t.Errorf("restored admissions %v, want [%v]", got, want)
	}
	if err := l2.Book().ForgetAdmission(t.Context(), "ns", "a", "wl-other"); err != nil {
		t.Fatal(err)
	}
	if _, ok := l2.Book().Admission("ns", "a"); !ok {
		t.Error("forgetting another uid's admission dropped this one")
	}
	if err := l2.Book().ForgetAdmission(t.Context(), "ns", "a", "wl-a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := l2.Book().Admission("ns", "a"); ok {
		t.Error("a forgotten admission is still held")
	}
}

// Many Admits of one workload at once: exactly one is written.
func TestAdmitAtMostOnce(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, err := framework.SubmitOne(t.Context(), l, admission("a"))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrAlreadyAdmitted):
				refused.Add(1)
			default:
				t.Errorf("Admit: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != 15 {
		t.Fatalf("written %d, refused %d; want 1 and 15", ok.Load(), refused.Load())
	}
	if _, last := st.Revisions(); last != 1 {
		t.Errorf("log holds %d decisions, want 1", last)
	}
}
