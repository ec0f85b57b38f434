package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fakeDescheduler returns one plan.
type fakeDescheduler struct{ plan *berthv1.DeschedulePlan }

func (f fakeDescheduler) Last() *berthv1.DeschedulePlan { return f.plan }

func newDescheduleTest(t *testing.T, d Descheduler) *Dashboard {
	t.Helper()
	dash, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1, froms: make(chan uint64, 8)},
		Options{Now: func() time.Time { return testTime }, Descheduler: d})
	if err != nil {
		t.Fatal(err)
	}
	return dash
}

func TestDeschedulePage(t *testing.T) {
	ref := func(name string) *berthv1.PodRef { return &berthv1.PodRef{Namespace: "shop", Name: name} }
	plan := &berthv1.DeschedulePlan{
		Time: timestamppb.New(testTime), DryRun: true, PlanSeconds: 0.0125,
		Moves: []*berthv1.DescheduleMove{{Pod: ref("web-1"), From: "n1", To: "n3", Profile: "p", Strategy: "LowNodeUtilization",
			Reason: "n1 is over its target thresholds"}},
		Skipped: []*berthv1.DescheduleSkip{
			{Pod: ref("web-2"), From: "n1", Profile: "p", Strategy: "LowNodeUtilization", Reason: "the scheduler would place it back on n1", LandsBack: true},
			{Pod: ref("db-0"), From: "n2", Profile: "p", Strategy: "RemoveDuplicates", Reason: "its disruption budget allows no eviction"},
		},
	}
	tests := []struct {
		name      string
		d         Descheduler
		want, not []string
	}{
		{name: "no policy", d: nil,
			want: []string{"runs no descheduler policy", "--descheduler-policy FILE"},
			not:  []string{`href="/deschedule"`, `id="moves"`}},
		{name: "no plan yet", d: fakeDescheduler{},
			want: []string{`href="/deschedule"`, "No plan yet", "berthctl deschedule --dry-run"},
			not:  []string{`id="moves"`}},
		{name: "a plan", d: fakeDescheduler{plan: plan},
			want: []string{`aria-current="page"`, "dry run", "0.013 s", `<dd id="moves-count">1</dd>`,
				`<dd id="skipped-count">2</dd>`, `<dd id="landsback-count">1</dd>`, `href="/pods/shop/web-1"`,
				`href="/nodes/n3"`, "LowNodeUtilization", "the scheduler would place it back on n1",
				"its disruption budget allows no eviction"},
			not: []string{"more moves", "more left out"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := get(newDescheduleTest(t, tc.d), "/deschedule", nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			body := w.Body.String()
			for _, s := range tc.want {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(body, s) {
					t.Errorf("page has %q", s)
				}
			}
		})
	}
}

// TestDeschedulePageCapsRows: a pass that names thousands of candidates
// shows the first planRowsShown of each table and counts the rest.
func TestDeschedulePageCapsRows(t *testing.T) {
	plan := &berthv1.DeschedulePlan{Time: timestamppb.New(testTime)}
	for i := range planRowsShown + 7 {
		plan.Moves = append(plan.Moves, &berthv1.DescheduleMove{Pod: &berthv1.PodRef{Namespace: "a", Name: fmt.Sprintf("m-%04d", i)}, From: "n1", To: "n2"})
	}
	for i := range planRowsShown + 30 {
		plan.Skipped = append(plan.Skipped, &berthv1.DescheduleSkip{Pod: &berthv1.PodRef{Namespace: "a", Name: fmt.Sprintf("s-%04d", i)}, From: "n1"})
	}
	body := get(newDescheduleTest(t, fakeDescheduler{plan: plan}), "/deschedule", nil).Body.String()
	if got := strings.Count(body, `href="/pods/a/m-`); got != planRowsShown {
		t.Errorf("%d move rows, want %d", got, planRowsShown)
	}
	if got := strings.Count(body, `href="/pods/a/s-`); got != planRowsShown {
		t.Errorf("%d skipped rows, want %d", got, planRowsShown)
	}
	for _, s := range []string{"7 more moves", "30 more left out", fmt.Sprintf(`<dd id="moves-count">%d</dd>`, planRowsShown+7)} {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}
