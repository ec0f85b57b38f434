package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fleetAdmin is fakeAdmin over a generated fleet: nodes node-00000 on,
// in zones zone-0..zone-2 and pools a and b, node i requesting i%101 of
// 1000 millicores (so some are over), every 7th cordoned, every 11th
// NotReady, every 13th tainted; and pods ns-(i%3)/pod-i with priority
// i%10, every other one bound. It pages as the AdminService does: by
// name, the token the last name.
type fleetAdmin struct {
	fakeAdmin
	nodes     []*berthv1.NodeUsage
	pods      []*berthv1.PendingPod
	podsCalls atomic.Int32 // ListPods calls
}

func newFleet(nodes, pods int) *fleetAdmin {
	f := &fleetAdmin{}
	for i := range nodes {
		n := &berthv1.NodeUsage{Name: fmt.Sprintf("node-%05d", i),
			Labels: map[string]string{"kubernetes.io/hostname": fmt.Sprintf("node-%05d", i),
				"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3), "node.kubernetes.io/pool": []string{"a", "b"}[i%2]},
			Allocatable:   map[string]int64{"cpu": 1000, "memory": 1 << 30, "pods": 10},
			Requested:     map[string]int64{"cpu": int64(i % 121 * 10), "pods": int64(i % 10)},
			Unschedulable: i%7 == 0,
		}
		if i%11 == 0 {
			n.Conditions = []*berthv1.NodeCondition{{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE}}
		}
		if i%13 == 0 {
			n.Taints = []*berthv1.Taint{{Key: "gpu", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}}
		}
		f.nodes = append(f.nodes, n)
	}
	for i := range pods {
		p := &berthv1.PendingPod{Pod: &berthv1.PodRef{Namespace: fmt.Sprintf("ns-%d", i%3), Name: fmt.Sprintf("pod-%05d", i)},
			SchedulerName: []string{"default-scheduler", "batch"}[(i/2)%2], Priority: int32(i % 10),
			State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, Attempts: uint32(i % 5), EnqueuedTime: timestamppb.New(testTime)}
		if i%2 == 0 {
			p.State, p.Node = berthv1.QueueState_QUEUE_STATE_BOUND, f.nodes[i%len(f.nodes)].GetName()
		}
		f.pods = append(f.pods, p)
	}
	slices.SortFunc(f.pods, byPod)
	return f
}

func (f *fleetAdmin) ListNodes(_ context.Context, req *berthv1.ListNodesRequest) (*berthv1.ListNodesResponse, error) {
	resp := &berthv1.ListNodesResponse{}
	for _, n := range f.nodes {
		if n.GetName() <= req.GetPageToken() || !labelsHave(n.GetLabels(), req.GetMatchLabels()) {
			continue
		}
		if len(resp.Nodes) == int(req.GetPageSize()) {
			resp.NextPageToken = resp.Nodes[len(resp.Nodes)-1].GetName()
			break
		}
		resp.Nodes = append(resp.Nodes, n)
	}
	return resp, nil
}

func (f *fleetAdmin) AllNodes(context.Context) ([]*berthv1.NodeUsage, error) { return f.nodes, nil }

func labelsHave(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (f *fleetAdmin) ListPods(_ context.Context, req *berthv1.ListPodsRequest) (*berthv1.ListPodsResponse, error) {
	f.podsCalls.Add(1)
	resp := &berthv1.ListPodsResponse{}
	for _, p := range f.pods {
		key := p.GetPod().GetNamespace() + "/" + p.GetPod().GetName()
		switch {
		case key <= req.GetPageToken(),
			len(req.GetStates()) > 0 && !slices.Contains(req.GetStates(), p.GetState()),
			req.GetNamespace() != "" && p.GetPod().GetNamespace() != req.GetNamespace(),
			req.GetSchedulerName() != "" && p.GetSchedulerName() != req.GetSchedulerName(),
			req.GetNode() != "" && p.GetNode() != req.GetNode(),
			!strings.Contains(key, req.GetContains()):
			continue
		}
		if len(resp.Pods) == int(req.GetPageSize()) {
			last := resp.Pods[len(resp.Pods)-1].GetPod()
			resp.NextPageToken = last.GetNamespace() + "/" + last.GetName()
			break
		}
		resp.Pods = append(resp.Pods, p)
	}
	return resp, nil
}

func newFleetTest(t *testing.T, f *fleetAdmin, log *fakeLog) *Dashboard {
	t.Helper()
	if log == nil {
		log = &fakeLog{first: 1}
	}
	d, err := New(f, fakeExplainer{}, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rowNames are the names of the rows of the table with id in body, in
// order: the text of each row's first link.
func rowNames(body, id string) []string {
	start := strings.Index(body, `<table id="`+id+`"`)
	if start < 0 {
		return nil
	}
	table := body[start:]
	table = table[:strings.Index(table, "</table>")]
	var out []string
	for _, row := range strings.Split(table, "<tr")[1:] {
		if i := strings.Index(row, `<a href="`); i >= 0 && !strings.Contains(row[:i], "<th aria-sort") {
			rest := row[i:]
			rest = rest[strings.Index(rest, ">")+1:]
			out = append(out, rest[:strings.Index(rest, "<")])
		}
	}
	return out
}

func TestNodesTablePagesSortsAndFilters(t *testing.T) {
	d := newFleetTest(t, newFleet(250, 0), nil)
	tests := []struct {
		target string
		want   []string // the rows, in order
		has    []string
	}{
		{target: "/nodes?size=3", want: []string{"node-00000", "node-00001", "node-00002"},
			has: []string{"1–3 of 250", "page 1 of 84", `<a href="/nodes?page=2&amp;size=3" rel="next">`,
				// The page sizes offered, back to the first page.
				`rows a page: <a href="/nodes?size=25">25</a> <a href="/nodes?size=100">100</a>`}},
		{target: "/nodes?page=2", has: []string{`<strong aria-current="true">100</strong>`, `<a href="/nodes?size=250">250</a>`}},
		{target: "/nodes?size=3&page=84", want: []string{"node-00249"}, has: []string{"250–250 of 250", `rel="first"`}},
		// Past the last page: the last page.
		{target: "/nodes?size=100&page=9", want: nil, has: []string{"201–250 of 250"}},
		// cpu use descending: 1200m of 1000m is the most, node i%121 == 120.
		{target: "/nodes?size=3&sort=-cpu", want: []string{"node-00120", "node-00241", "node-00119"},
			has: []string{`<th aria-sort="descending"><a href="/nodes?size=3&amp;sort=cpu">cpu ▼</a></th>`}},
		{target: "/nodes?size=2&sort=state", want: []string{"node-00000", "node-00011"}},
		{target: "/nodes?size=4&state=ok&sort=-name", want: []string{"node-00249", "node-00248", "node-00246", "node-00244"}},
		{target: "/nodes?size=3&state=tainted&sel=" + "topology.kubernetes.io/zone+in+(zone-1)", want: []string{"node-00013", "node-00052", "node-00091"},
			has: []string{"7 nodes matching"}},
		{target: "/nodes?size=2&sel=node.kubernetes.io/pool!=a,!gpu&q=node-001", want: []string{"node-00101", "node-00103"}},
		{target: "/nodes?size=2&sort=group&group=node.kubernetes.io/pool", want: []string{"node-00000", "node-00002"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			w := get(d, tt.target, nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d\n%s", w.Code, w.Body)
			}
			body := w.Body.String()
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, rowNames(body, "nodes")); diff != "" {
					t.Errorf("rows (-want +got):\n%s", diff)
				}
			}
			for _, s := range tt.has {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
		})
	}
}

func TestPodListsPageSortAndFilter(t *testing.T) {
	d := newFleetTest(t, newFleet(10, 300), nil)
	tests := []struct {
		target string
		want   []string
		has    []string
	}{
		{target: "/pods?size=2", want: []string{"ns-0/pod-00000", "ns-0/pod-00003"}, has: []string{"1–2 of 300"}},
		{target: "/pods?size=2&sort=-priority&ns=ns-1", want: []string{"ns-1/pod-00019", "ns-1/pod-00049"}},
		{target: "/pods?size=2&priority=9&state=unschedulable", want: []string{"ns-0/pod-00009", "ns-0/pod-00039"}, has: []string{"1–2 of 30"}},
		{target: "/pods?size=2&profile=batch&sort=-pod", want: []string{"ns-2/pod-00299", "ns-2/pod-00290"}},
		// The queue page lists the pending pods alone, with the same controls.
		{target: "/?size=2&sort=-attempts", want: []string{"ns-0/pod-00009", "ns-0/pod-00039"}, has: []string{"1–2 of 150"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			w := get(d, tt.target, nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d\n%s", w.Code, w.Body)
			}
			body := w.Body.String()
			id := "pods"
			if strings.HasPrefix(tt.target, "/?") {
				id = "pending"
			}
			if diff := cmp.Diff(tt.want, rowNames(body, id)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			for _, s := range tt.has {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
		})
	}
}

// The heatmap's data comes in pages of one snapshot, grouped and
// filtered as the page's address says.
func TestHeatmapDataPages(t *testing.T) {
	const fleet = 12000
	d := newFleetTest(t, newFleet(fleet, 0), nil)
	read := func(target string) heatPage {
		t.Helper()
		w := get(d, target, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", target, w.Code, w.Body)
		}
		var p heatPage
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := read("/api/heatmap")
	if first.Total != fleet || len(first.Nodes) != heatPageSize || first.Next != heatPageSize {
		t.Fatalf("first page: total %d, %d nodes, next %d", first.Total, len(first.Nodes), first.Next)
	}
	var names []string
	seen := map[string]bool{}
	for p := first; ; {
		for _, n := range p.Nodes {
			name := n[0].(string)
			if seen[name] {
				t.Fatalf("%s twice", name)
			}
			seen[name] = true
			names = append(names, p.Groups[int(n[1].(float64))]+" "+name)
		}
		if p.Next == 0 {
			break
		}
		next := read(fmt.Sprintf("/api/heatmap?from=%d&snap=%s", p.Next, first.Snapshot))
		if next.Snapshot != first.Snapshot {
			t.Fatalf("page from %d read snapshot %s, want %s", p.Next, next.Snapshot, first.Snapshot)
		}
		p = next
	}
	if len(names) != fleet || !slices.IsSorted(names) || !strings.HasPrefix(names[0], "zone-0 / a node-00000") {
		t.Errorf("%d nodes, sorted by group and name: %v; first %q", len(names), slices.IsSorted(names), names[0])
	}
	// node-00000: 0% cpu, 0 pods of 10, no devices; NotReady, cordoned, tainted.
	if diff := cmp.Diff([]any{"node-00000", 0.0, 0.0, 0.0, 0.0, -1.0, float64(stateNotReady | stateCordoned | stateTainted)}, first.Nodes[0]); diff != "" {
		t.Errorf("node-00000 (-want +got):\n%s", diff)
	}

	// A snapshot no longer the last is read afresh.
	if again := read("/api/heatmap?from=10000&snap=" + first.Snapshot); again.Snapshot != first.Snapshot {
		t.Errorf("the last snapshot was not reused")
	}
	second := read("/api/heatmap")
	if stale := read("/api/heatmap?from=10000&snap=" + first.Snapshot); stale.Snapshot == first.Snapshot || stale.Snapshot == second.Snapshot {
		t.Errorf("a stale snapshot (%s, the last %s) was answered by %s, want a fresh one", first.Snapshot, second.Snapshot, stale.Snapshot)
	}

	filtered := read("/api/heatmap?group=-&state=notready&sel=node.kubernetes.io/pool=b")
	want := 0 // newFleet's NotReady nodes (every 11th) in pool b (the odd ones)
	for i := range fleet {
		if i%11 == 0 && i%2 == 1 {
			want++
		}
	}
	if filtered.Total != want || len(filtered.Groups) != 1 || filtered.Groups[0] != "all nodes" {
		t.Errorf("NotReady nodes of pool b, ungrouped: total %d (want %d), groups %v", filtered.Total, want, filtered.Groups)
	}
	for _, target := range []string{"/api/heatmap?from=-1", "/api/heatmap?snap=x", "/api/heatmap?sel=a+in+()", "/api/heatmap?group=a+b"} {
		if w := get(d, target, nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":`) {
			t.Errorf("%s: %d %s, want 400 with an error", target, w.Code, w.Body)
		}
	}
}

// ?part=live answers a page's live parts alone, which the script swaps
// in; a page without one answers whole.
func TestLivePartAlone(t *testing.T) {
	d := newFleetTest(t, newFleet(20, 20), nil)
	for _, target := range []string{"/nodes?part=live&size=5", "/pods?part=live", "/?part=live", "/nodes/node-00001?part=live"} {
		body := get(d, target, nil).Body.String()
		if strings.Contains(body, "<html") || !strings.HasPrefix(body, `<div id="live-`) {
			t.Errorf("%s answers more than its live part:\n%.300s", target, body)
		}
	}
	if body := get(d, "/nodes?size=5", nil).Body.String(); !strings.Contains(body, "<html") || !strings.Contains(body, `<div id="live-table" data-live data-refresh="5">`) {
		t.Errorf("the whole nodes page lacks its live part:\n%.300s", body)
	}
	// Paging links leave the part out.
	if body := get(d, "/nodes?part=live&size=5", nil).Body.String(); strings.Contains(body, "part=live") {
		t.Errorf("a link of the live part keeps part=live")
	}
}

// The node page lists the recent decisions naming the node, newest
// first, among the last ones of the log.
func TestNodePageRecentDecisions(t *testing.T) {
	log := &fakeLog{first: 1, froms: make(chan uint64, 1), decisions: []*berthv1.Decision{
		bindDecision(1, "a", "node-00001"), bindDecision(2, "b", "node-00002"), bindDecision(3, "c", "node-00001"),
	}}
	d := newFleetTest(t, newFleet(5, 10), log)
	body := get(d, "/nodes/node-00001", nil).Body.String()
	start := strings.Index(body, `<table id="node-decisions"`)
	if start < 0 {
		t.Fatalf("no decisions table:\n%s", body)
	}
	table := body[start:]
	c, a := strings.Index(table, "default/c"), strings.Index(table, "default/a")
	if c < 0 || a < 0 || c > a || strings.Contains(table[:strings.Index(table, "</table>")], "default/b") {
		t.Errorf("decisions table, want c then a and not b:\n%s", table)
	}
	if !strings.Contains(body, "among the last 3 decisions") {
		t.Errorf("the page does not say how many decisions it looked through")
	}
	// The node's pods, bound there (pod 6 on node-00001 of 5 nodes).
	if !strings.Contains(body, `<a href="/pods/ns-0/pod-00006">ns-0/pod-00006</a>`) {
		t.Errorf("the node page lacks its pod:\n%s", body)
	}
}

func TestParseSelector(t *testing.T) {
	labels := map[string]string{"zone": "a", "pool": "gpu", "env": "prod"}
	tests := []struct {
		sel     string
		matches bool
		err     string
	}{
		{sel: "", matches: true},
		{sel: "zone=a", matches: true},
		{sel: "zone==a,pool=gpu", matches: true},
		{sel: "zone!=a", matches: false},
		{sel: "zone in (a, b), env notin (dev)", matches: true},
		{sel: "zone notin (a)", matches: false},
		{sel: "pool", matches: true},
		{sel: "!pool", matches: false},
		{sel: "!missing,zone", matches: true},
		{sel: "zone in ()", err: "in needs at least one value"},
		{sel: "zone in a", err: "is not a requirement"},
		{sel: "=a", err: `"" is not a label key`},
		{sel: "zone=a b", err: `"a b" is not a label value`},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			s, err := parseSelector(tt.sel)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Matches(labels); got != tt.matches {
				t.Errorf("matches %v, want %v", got, tt.matches)
			}
		})
	}
}

// /api/nodes and /api/pods answer the lists' pages as JSON, with the
// same filter, order and paging as the pages at the same address.
func TestListsAsJSON(t *testing.T) {
	d := newFleetTest(t, newFleet(250, 300), nil)
	var nodes struct {
		Total, Page, Pages int
		Items              []nodeItem
	}
	w := get(d, "/api/nodes?size=2&sort=-cpu&state=tainted", nil)
	if err := json.Unmarshal(w.Body.Bytes(), &nodes); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	// The table at the same address.
	if want := rowNames(get(d, "/nodes?size=2&sort=-cpu&state=tainted", nil).Body.String(), "nodes"); !cmp.Equal(names, want) || nodes.Total != 20 || nodes.Pages != 10 {
		t.Errorf("/api/nodes: %v of %d in %d pages, want %v of 20 in 10", names, nodes.Total, nodes.Pages, want)
	}
	if n := nodes.Items[0]; !slices.Contains(n.States, "tainted") || n.Allocatable["cpu"] != 1000 || n.Taints[0] != "gpu:NoSchedule" {
		t.Errorf("first node %+v", n)
	}
	var pods struct {
		Total int
		Items []struct {
			Pod      struct{ Namespace, Name string }
			Priority int32
		}
	}
	w = get(d, "/api/pods?size=3&sort=-priority&ns=ns-1", nil)
	if err := json.Unmarshal(w.Body.Bytes(), &pods); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	var got []string
	for _, p := range pods.Items {
		got = append(got, p.Pod.Namespace+"/"+p.Pod.Name)
	}
	if want := rowNames(get(d, "/pods?size=3&sort=-priority&ns=ns-1", nil).Body.String(), "pods"); !cmp.Equal(got, want) || pods.Total != 100 {
		t.Errorf("/api/pods: %v of %d, want %v of 100", got, pods.Total, want)
	}
	for _, target := range []string{"/api/pods?priority=x", "/api/nodes?sort=x", "/api/nodes?state=x"} {
		if w := get(d, target, nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":`) {
			t.Errorf("%s: %d %s, want 400 with an error", target, w.Code, w.Body)
		}
	}
}

// A list in the API's order (namespace/name) reads only as far as the page
// shown; in any other order it reads every pod to sort them.
func TestPodListReadsOnlyWhatItShows(t *testing.T) {
	f := newFleet(10, 2500)
	d := newFleetTest(t, f, nil)
	tests := []struct {
		target string
		calls  int32 // of ListPods, 1,000 pods each
		want   []string
		has    []string
	}{
		{target: "/pods?size=2", calls: 1, want: []string{"ns-0/pod-00000", "ns-0/pod-00003"},
			has: []string{"1–2 of more than 1000", `<a href="/pods?page=2&amp;size=2" rel="next">`}},
		// Row 1,491: ns-0 holds 834 pods (every third), so the 657th of
		// ns-1, pod 1+3×656.
		{target: "/pods?size=10&page=150", calls: 2, want: []string{"ns-1/pod-01969"}, has: []string{"1491–1500 of more than 2000"}},
		{target: "/pods?size=10&page=250", calls: 3, has: []string{"2491–2500 of 2500", "page 250 of 250"}},
		{target: "/pods?size=2&sort=-pod", calls: 3, want: []string{"ns-2/pod-02498", "ns-2/pod-02495"}, has: []string{"1–2 of 2500"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			f.podsCalls.Store(0)
			body := get(d, tt.target, nil).Body.String()
			if got := f.podsCalls.Load(); got != tt.calls {
				t.Errorf("%d calls of ListPods, want %d", got, tt.calls)
			}
			if got := rowNames(body, "pods"); tt.want != nil && !cmp.Equal(got[:len(tt.want)], tt.want) {
				t.Errorf("rows %v, want %v first", got, tt.want)
			}
			for _, s := range tt.has {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
		})
	}
}
