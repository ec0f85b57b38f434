package dashboard

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
)

func TestExplainTableMarksTheFailingPlugin(t *testing.T) {
	ctx := context.Background()
	ex, _ := fakeAdmin{}.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "big-1"}})
	live, _ := fakeExplainer{}.Explain("default", "big-1")
	sim, _ := fakeAdmin{}.Simulate(ctx, &berthv1.SimulateRequest{Pods: []*berthv1.Pod{{Namespace: "default", Name: "big-1"}}})
	got := newExplainTable(ex, live.Diagnosis, sim.GetAttempts()[0])
	want := explainTable{
		Filters: []string{"NodeResourcesFit", "TaintToleration"},
		Scores:  []string{},
		Rows: []explainRow{
			{Node: "n1", Rejected: true, Tried: true, Reasons: "Insufficient cpu",
				Filters: []verdict{{Failed: true, Reasons: "Insufficient cpu"}, {}}},
			{Node: "n2", Rejected: true, Tried: true, Reasons: "node(s) had untolerated taint {gpu: true}",
				Filters: []verdict{{}, {Failed: true, Reasons: "node(s) had untolerated taint {gpu: true}"}}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}

	// The page shows the same: n1's NodeResourcesFit cell is the failing one.
	body := get(newTest(t, nil, nil), "/pods/default/big-1", nil).Body.String()
	row := regexp.MustCompile(`(?s)<th scope="row">n1</th>\s*<td class="fail"[^>]*>✗ Insufficient cpu</td><td class="pass"></td>`)
	if !row.MatchString(body) {
		t.Errorf("the explain table does not mark NodeResourcesFit failing on n1:\n%s", body)
	}
}

func TestExplainTableScoresTheDryRun(t *testing.T) {
	ex := &berthv1.ExplainResponse{State: berthv1.QueueState_QUEUE_STATE_ACTIVE}
	att := &berthv1.SimulateAttempt{Result: berthv1.SimulateResult_SIMULATE_RESULT_BOUND, Node: "n2", Nodes: []*berthv1.NodeVerdict{
		{Node: "n1", Feasible: true, TotalScore: 120, PluginScores: map[string]int64{"NodeResourcesFit": 70, "TaintToleration": 50}},
		{Node: "n2", Feasible: true, TotalScore: 150, PluginScores: map[string]int64{"NodeResourcesFit": 100, "TaintToleration": 50}},
		{Node: "n3", Reasons: []string{"node(s) were unschedulable"}},
	}}
	got := newExplainTable(ex, nil, att)
	want := explainTable{
		Filters: []string{},
		Scores:  []string{"NodeResourcesFit", "TaintToleration"},
		Rows: []explainRow{
			{Node: "n1", Tried: true, Feasible: true, Total: 120, Scores: []int64{70, 50}},
			{Node: "n2", Tried: true, Feasible: true, Total: 150, Scores: []int64{100, 50}, Chosen: true},
			{Node: "n3", Tried: true, Reasons: "node(s) were unschedulable", Scores: []int64{0, 0}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// The pod page lists, per node, the claims and requests that cannot be
// allocated there; a pod without them has no such section.
func TestPodPageDevices(t *testing.T) {
	d := newTest(t, nil, nil)
	body := get(d, "/pods/default/train-1", nil).Body.String()
	want := `<tbody>
<tr><th scope="row">n1</th><td>claim default/train-1-gpu-abcde, request g: the devices matching it are in use<br>claim default/nic, request n: the devices matching it are in use</td></tr>
<tr><th scope="row">n2</th><td>claim default/train-1-gpu-abcde, request g: not enough devices on the node match it</td></tr>
</tbody>`
	if !strings.Contains(body, `<table id="devices"`) || !strings.Contains(body, want) {
		t.Errorf("the pod page lacks the device reasons %s:\n%s", want, body)
	}
	if body := get(d, "/pods/default/big-1", nil).Body.String(); strings.Contains(body, `id="devices"`) {
		t.Errorf("big-1 claims no device, yet its page has a devices table:\n%s", body)
	}
}

// manyShort is fakeAdmin where big-1 is short of cpu on 12 nodes.
type manyShort struct{ fakeAdmin }

func (a manyShort) Explain(ctx context.Context, req *berthv1.ExplainRequest) (*berthv1.ExplainResponse, error) {
	ex, err := a.fakeAdmin.Explain(ctx, req)
	if err != nil {
		return nil, err
	}
	ex = proto.Clone(ex).(*berthv1.ExplainResponse)
	ex.Shortfalls = nil
	for i := range 12 {
		ex.Shortfalls = append(ex.Shortfalls, &berthv1.NodeShortfall{Node: fmt.Sprintf("s%02d", i),
			Resources: []*berthv1.ResourceShortfall{{Resource: "cpu", Requested: 2000, Free: 1000, Allocatable: 4000}}})
	}
	return ex, nil
}

// On a large cluster the nodes short of a resource are many: the page
// lists the first shortfallNodesShown and counts the others.
func TestPodPageBoundsTheShortfalls(t *testing.T) {
	d, err := New(manyShort{}, fakeExplainer{}, &fakeLog{first: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := get(d, "/pods/default/big-1", nil).Body.String()
	if !strings.Contains(body, `<th scope="row">s09</th>`) || strings.Contains(body, `<th scope="row">s10</th>`) ||
		!strings.Contains(body, "And 2 more nodes short") {
		t.Errorf("the shortfalls are not bounded to 10 nodes with a count of the rest:\n%s", body)
	}
}

// TestPodPageShowsVolumes: the pod page lists the pod's claims with where
// each stands, and the nodes the volume plugins rejected with their
// reasons.
func TestPodPageShowsVolumes(t *testing.T) {
	body := get(newTest(t, nil, nil), "/pods/default/db-1", nil).Body.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?s)<table id="volumes".*<th scope="row">data</th><td>default/db-data</td><td>local</td><td class="num">10Gi</td><td>bound to pv-local-n3</td>`),
		regexp.MustCompile(`<th scope="row">scratch \(ephemeral\)</th><td>default/db-1-scratch</td><td>fast</td><td class="num">1Gi</td><td>unbound</td>`),
		regexp.MustCompile(`<th scope="row">logs</th><td>default/db-logs</td><td></td><td class="num"></td><td>not found</td>`),
		regexp.MustCompile(`(?s)<table id="volume-reasons".*<th scope="row">n1</th><td>VolumeBinding</td><td>node\(s\) didn&#39;t match PersistentVolume&#39;s node affinity</td>.*<th scope="row">n2</th><td>NodeVolumeLimits</td><td>node\(s\) exceed max volume count</td>`),
	} {
		if !want.MatchString(body) {
			t.Errorf("the pod page does not match %s:\n%s", want, body)
		}
	}
	// A pod without claims has no volume section.
	if body := get(newTest(t, nil, nil), "/pods/default/big-1", nil).Body.String(); strings.Contains(body, `id="volumes"`) || strings.Contains(body, "<h2>Volumes</h2>") {
		t.Errorf("big-1 has no claims, yet its page has a volume section")
	}
}

func TestVolumeRowsAndReasons(t *testing.T) {
	rows := volumeRows([]scheduler.ClaimVolume{
		{Name: "a", Claim: "ns/a", Found: true, Chosen: "pv-1"},
		{Name: "b", Claim: "ns/b", Found: true, SelectedNode: "n3"},
		{Name: "c", Claim: "ns/c", Found: true, BoundTo: "pv-2", Chosen: "pv-2"},
	})
	var states []string
	for _, r := range rows {
		states = append(states, r.State)
	}
	if diff := cmp.Diff([]string{"volume pv-1 chosen, to be bound", "to be provisioned on n3", "bound to pv-2"}, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	d := &scheduler.Diagnosis{OtherPlugin: "VolumeBinding", OtherReasons: []string{`persistentvolumeclaim "x" not found`}}
	for i := range 5 {
		d.Nodes = append(d.Nodes, scheduler.NodeDiagnosis{Node: fmt.Sprintf("n%d", i), Plugin: []string{"VolumeZone", "NodeResourcesFit"}[i%2], Reasons: []string{"r"}})
	}
	got, more := volumeReasons(d, 2)
	want := []nodeReasonsRow{{Node: "every node", Plugin: "VolumeBinding", Reasons: `persistentvolumeclaim "x" not found`}, {Node: "n0", Plugin: "VolumeZone", Reasons: "r"}}
	if diff := cmp.Diff(want, got); diff != "" || more != 2 {
		t.Errorf("reasons (-want +got), %d more (want 2):\n%s", more, diff)
	}
}
