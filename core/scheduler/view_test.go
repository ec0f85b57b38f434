package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// explained is what TestExplainThroughBinding checks of an Explanation.
type explained struct {
	Phase           PodPhase
	Attempts        int
	Queued          time.Time
	Diagnosis       string
	LastBindFailure string
}

func summary(ex Explanation) explained {
	out := explained{Phase: ex.Phase, Attempts: ex.Queue.Attempts, Queued: ex.Queued, LastBindFailure: ex.LastBindFailure}
	if ex.Diagnosis != nil {
		out.Diagnosis = ex.Diagnosis.Message
	}
	return out
}

// TestExplainThroughBinding follows a pod rejected once, then bound, then
// reported failed: Explain keeps when it was queued, keeps its attempts
// while it binds, and after the failed bind shows the failure, not the
// older rejection.
func TestExplainThroughBinding(t *testing.T) {
	ctx := context.Background()
	filter := &fakeFilter{name: "Picky", reject: map[string]reject{"n1": {code: framework.Unschedulable, reason: "not today"}}}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{filter}}, nil)
	queued := e.clock.Now()
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	explain := func() explained {
		t.Helper()
		ex, err := e.s.View().Explain("default", "p")
		if err != nil {
			t.Fatal(err)
		}
		return summary(ex)
	}
	if diff := cmp.Diff(explained{Phase: PhasePending, Queued: queued}, explain()); diff != "" {
		t.Errorf("queued (-want +got):\n%s", diff)
	}

	e.clock.Step(time.Second)
	rejection := "0/1 nodes are available: 1 not today."
	if att := e.scheduleOne(); att.Result != ResultUnschedulable || att.Message != rejection {
		t.Fatalf("first attempt: %s %q", att.Result, att.Message)
	}
	if diff := cmp.Diff(explained{Phase: PhasePending, Attempts: 1, Queued: queued, Diagnosis: rejection}, explain()); diff != "" {
		t.Errorf("rejected (-want +got):\n%s", diff)
	}

	filter.mu.Lock()
	filter.reject = nil
	filter.mu.Unlock()
	e.addNodes(mt.MakeNode("n1").Label("fixed", "yes").Obj()) // moves the pod back
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.BindStatus != nil {
		t.Fatalf("second attempt: %s %v", att.Result, att.BindStatus)
	}
	if diff := cmp.Diff(explained{Phase: PhaseBinding, Attempts: 2, Queued: queued, Diagnosis: rejection}, explain()); diff != "" {
		t.Errorf("binding (-want +got):\n%s", diff)
	}

	if err := e.s.ReportBindResult(ctx, "uid-p", "n1", false, "node went away"); err != nil {
		t.Fatal(err)
	}
	want := explained{Phase: PhasePending, Attempts: 2, Queued: queued, Diagnosis: "binding default/p to n1 failed: node went away", LastBindFailure: "node went away"}
	if diff := cmp.Diff(want, explain()); diff != "" {
		t.Errorf("bind failed (-want +got):\n%s", diff)
	}
	// The failure is an error, not a verdict: no Unschedulable is reported.
	if diff := cmp.Diff([]string{"default/p: " + rejection}, e.reporter.reports()); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}

	// Bound, the pod's records go; deleted, nothing of it stays.
	e.expireBackoff()
	e.scheduleOne()
	e.addPods(mt.MakePod("p").Node("n1").Obj())
	if diff := cmp.Diff(explained{Phase: PhaseBound}, explain()); diff != "" {
		t.Errorf("bound (-want +got):\n%s", diff)
	}
	if err := e.s.DeletePod(ctx, mt.MakePod("p").Obj()); err != nil {
		t.Fatal(err)
	}
	e.s.state.mu.RLock()
	defer e.s.state.mu.RUnlock()
	if len(e.s.state.records) != 0 {
		t.Errorf("records left after the pod was deleted: %v", e.s.state.records)
	}
}

// TestViewListsBudgetsAndNamespaces lists the budgets and the namespaces
// sent, sorted, leaving out namespaces only implied by pods: what a copy
// of the cluster (AdminService.Simulate) needs.
func TestViewListsBudgetsAndNamespaces(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)
	for _, pdb := range []*model.PodDisruptionBudget{{Namespace: "prod", Name: "web"}, {Namespace: "dev", Name: "web"}, {Namespace: "dev", Name: "api"}} {
		if err := e.s.setPDB(ctx, pdb); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []*model.Namespace{{Name: "prod", Labels: map[string]string{"team": "a"}}, {Name: "dev"}} {
		if err := e.s.setNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	e.addPods(mt.MakePod("p").Namespace("implied").Obj())
	var budgets []string
	for _, pdb := range e.s.View().PDBs() {
		budgets = append(budgets, pdb.Namespace+"/"+pdb.Name)
	}
	if diff := cmp.Diff([]string{"dev/api", "dev/web", "prod/web"}, budgets); diff != "" {
		t.Errorf("PDBs (-want +got):\n%s", diff)
	}
	want := []*model.Namespace{
		{Name: "dev", Labels: map[string]string{labelMetadataName: "dev"}},
		{Name: "prod", Labels: map[string]string{labelMetadataName: "prod", "team": "a"}},
	}
	if diff := cmp.Diff(want, e.s.View().Namespaces()); diff != "" {
		t.Errorf("Namespaces (-want +got):\n%s", diff)
	}
}
