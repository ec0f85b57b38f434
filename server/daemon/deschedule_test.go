package daemon

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

const taintsPolicy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: maint
  pluginConfig:
  - name: RemovePodsViolatingNodeTaints
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
`

// ownedPod is a pod on node owned by a ReplicaSet (the DefaultEvictor
// leaves bare pods alone).
func ownedPod(name, node string, opts ...podOpt) *berthv1.Object {
	p := podWire(name, 500, append([]podOpt{withNode(node)}, opts...)...)
	p.Runtime = &berthv1.PodRuntime{Owners: []*berthv1.OwnerReference{{Kind: "ReplicaSet", Name: "web", Uid: "rs-web"}}}
	return podObj(p)
}

// Deschedule plans with the policy and Berth's scheduler, commits
// nothing in a dry run, then evicts the moves with cause DESCHEDULE and
// the strategy in the reason, once per pod.
func TestDeschedule(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir(), DeschedulerPolicy: []byte(taintsPolicy), Dashboard: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	tainted := nodeObj("n1", 4000)
	tainted.GetNode().Taints = []*berthv1.Taint{{Key: "maint", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}}
	pinned := func(p *berthv1.Pod) { p.NodeSelector = map[string]string{model.LabelHostname: "n1"} }
	e.apply(t, tainted, nodeObj("n2", 4000), ownedPod("web-a", "n1"), ownedPod("web-pinned", "n1", pinned), podObj(podWire("bare", 100, withNode("n1"))))

	dry, err := e.admin().Deschedule(t.Context(), &berthv1.DescheduleRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	plan := dry.GetPlan()
	if len(plan.GetMoves()) != 1 || plan.GetMoves()[0].GetPod().GetName() != "web-a" || plan.GetMoves()[0].GetTo() != "n2" ||
		plan.GetMoves()[0].GetStrategy() != "RemovePodsViolatingNodeTaints" || plan.GetMoves()[0].GetRevision() != 0 || !plan.GetDryRun() {
		t.Fatalf("dry-run moves: %v", plan.GetMoves())
	}
	if len(plan.GetSkipped()) != 1 || plan.GetSkipped()[0].GetPod().GetName() != "web-pinned" ||
		!strings.Contains(plan.GetSkipped()[0].GetReason(), "place it nowhere") {
		t.Fatalf("dry-run skipped: %v", plan.GetSkipped())
	}
	w.quiet(t, 200*time.Millisecond, "no Evict in a dry run", func(d *berthv1.Decision) bool { return d.GetEvict() != nil })

	done, err := e.admin().Deschedule(t.Context(), &berthv1.DescheduleRequest{})
	if err != nil {
		t.Fatal(err)
	}
	m := done.GetPlan().GetMoves()
	if len(m) != 1 || m[0].GetRevision() == 0 {
		t.Fatalf("committed moves: %v", m)
	}
	ds := w.waitFor(t, "the Evict", func(ds []*berthv1.Decision) bool { return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 1 })
	for _, d := range ds {
		if ev := d.GetEvict(); ev != nil {
			if ev.GetVictim().GetName() != "web-a" || ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_DESCHEDULE ||
				!strings.Contains(ev.GetReason(), "maint/RemovePodsViolatingNodeTaints") {
				t.Errorf("Evict %v", ev)
			}
		}
	}
	ex, err := e.admin().Explain(t.Context(), &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "web-a"}})
	if err != nil || !strings.Contains(ex.GetEviction().GetReason(), "RemovePodsViolatingNodeTaints") {
		t.Errorf("explain: %v %v", ex.GetEviction(), err)
	}
	last, err := e.admin().Deschedule(t.Context(), &berthv1.DescheduleRequest{Last: true})
	if err != nil || last.GetPlan().GetDryRun() || len(last.GetPlan().GetMoves()) != 1 {
		t.Errorf("last plan: %v %v", last.GetPlan(), err)
	}
	// The dashboard's page shows the same plan.
	rec := httptest.NewRecorder()
	e.d.dash.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/deschedule", nil))
	page := rec.Body.String()
	for _, want := range []string{`href="/pods/default/web-a"`, `href="/nodes/n2"`, "RemovePodsViolatingNodeTaints",
		fmt.Sprintf("<td>%d</td>", m[0].GetRevision()), `<dd id="skipped-count">1</dd>`} {
		if rec.Code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("dashboard /deschedule (status %d) lacks %q", rec.Code, want)
		}
	}
	// Again: web-a is terminating, so no second Evict.
	again, err := e.admin().Deschedule(t.Context(), &berthv1.DescheduleRequest{})
	if err != nil || len(again.GetPlan().GetMoves()) != 0 {
		t.Errorf("second pass: %v %v", again.GetPlan(), err)
	}
	w.quiet(t, 200*time.Millisecond, "a second Evict", func(d *berthv1.Decision) bool {
		return d.GetEvict() != nil && d.GetEvict().GetVictim().GetName() != "web-a"
	})
}

func TestDescheduleWithoutPolicy(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	_, err := e.admin().Deschedule(t.Context(), &berthv1.DescheduleRequest{DryRun: true})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "--descheduler-policy") {
		t.Errorf("err %v; want FAILED_PRECONDITION naming --descheduler-policy", err)
	}
}
