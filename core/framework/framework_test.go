package framework_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestFitErrorMessage(t *testing.T) {
	tests := []struct {
		name     string
		numNodes int
		build    func(d *fw.Diagnosis)
		want     string
	}{
		{
			name:     "reasons counted and sorted",
			numNodes: 5,
			build: func(d *fw.Diagnosis) {
				d.NodeToStatus.Set("n1", fw.NewStatus(fw.Unschedulable, "Insufficient cpu"))
				d.NodeToStatus.Set("n2", fw.NewStatus(fw.Unschedulable, "Insufficient cpu", "Insufficient memory"))
				d.NodeToStatus.Set("n3", fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint {k: v}"))
				d.NodeToStatus.Set("n4", fw.NewStatus(fw.Unschedulable, "Insufficient cpu"))
				d.NodeToStatus.Set("n5", fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint {k: v}"))
			},
			// kube sorts the "count reason" strings as a whole
			want: "0/5 nodes are available: 1 Insufficient memory, 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu.",
		},
		{
			name:     "absent nodes share the absent status",
			numNodes: 3,
			build: func(d *fw.Diagnosis) {
				d.NodeToStatus.AbsentStatus = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeAffinity]")
				d.NodeToStatus.Set("n1", fw.NewStatus(fw.Unschedulable, "Insufficient cpu"))
			},
			want: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].",
		},
		{
			name:     "prefilter message replaces the histogram, postfilter appended",
			numNodes: 2,
			build: func(d *fw.Diagnosis) {
				d.PreFilterMsg = "node(s) didn't match pod topology spread constraints"
				d.NodeToStatus.Set("n1", fw.NewStatus(fw.Unschedulable, "ignored"))
				d.PostFilterMsg = "preemption: not eligible due to preemptionPolicy=Never."
			},
			want: "0/2 nodes are available: node(s) didn't match pod topology spread constraints. preemption: not eligible due to preemptionPolicy=Never.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &fw.FitError{NumAllNodes: tc.numNodes, Diagnosis: fw.Diagnosis{NodeToStatus: fw.NewNodeToStatus()}}
			tc.build(&e.Diagnosis)
			if got := e.Error(); got != tc.want {
				t.Errorf("Error()\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

func TestNodeInfoAddRemove(t *testing.T) {
	node := mt.MakeNode("n1").Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	web := fw.MustPodInfo(mt.MakePod("web").Req(mt.Res(500, mt.Gi)).HostPort(80, "", "").Obj())
	anti := fw.MustPodInfo(mt.MakePod("anti").Req(model.ResourceList{}).
		PodAntiAffinity(0, model.PodAffinityTerm{LabelSelector: &model.LabelSelector{}, TopologyKey: model.LabelHostname}).Obj())

	ni := fw.NewNodeInfo(node, web, anti)
	if got, want := ni.Requested, (model.Resources{MilliCPU: 500, Memory: mt.Gi}); !cmp.Equal(got, want) {
		t.Errorf("Requested = %+v, want %+v", got, want)
	}
	// the port container and anti's container request no cpu: scoring defaults apply
	if got, want := ni.NonZeroRequested.MilliCPU, 500+2*model.DefaultMilliCPURequest; got != want {
		t.Errorf("NonZeroRequested.MilliCPU = %d, want %d", got, want)
	}
	if len(ni.PodsWithAffinity) != 1 || len(ni.PodsWithRequiredAntiAffinity) != 1 {
		t.Errorf("affinity lists = %d/%d, want 1/1", len(ni.PodsWithAffinity), len(ni.PodsWithRequiredAntiAffinity))
	}
	if !ni.UsedPorts.Conflicts("10.0.0.1", "TCP", 80) {
		t.Error("port 80 on the wildcard address should conflict with any address")
	}

	clone := ni.Clone()
	if err := ni.RemovePod(anti.Pod); err != nil {
		t.Fatal(err)
	}
	if err := ni.RemovePod(web.Pod); err != nil {
		t.Fatal(err)
	}
	if !ni.Requested.IsZero() || ni.UsedPorts.Len() != 0 || len(ni.Pods) != 0 || len(ni.PodsWithAffinity) != 0 {
		t.Errorf("after removing every pod: requested %+v ports %d pods %d", ni.Requested, ni.UsedPorts.Len(), len(ni.Pods))
	}
	if len(clone.Pods) != 2 || clone.Requested.MilliCPU != 500 || clone.UsedPorts.Len() != 1 {
		t.Error("changing the original changed its clone")
	}
	if err := ni.RemovePod(web.Pod); err == nil {
		t.Error("removing an absent pod should fail")
	}
}

func TestHostPortConflicts(t *testing.T) {
	var h fw.HostPortInfo
	h.Add("10.0.0.1", "TCP", 8080)
	tests := []struct {
		ip, proto string
		port      int32
		want      bool
	}{
		{"10.0.0.1", "TCP", 8080, true},
		{"10.0.0.2", "TCP", 8080, false},
		{"", "TCP", 8080, true}, // wildcard wants every address
		{"10.0.0.1", "UDP", 8080, false},
		{"10.0.0.1", "", 8080, true}, // empty protocol is TCP
		{"10.0.0.1", "TCP", 0, false},
	}
	for _, tc := range tests {
		if got := h.Conflicts(tc.ip, tc.proto, tc.port); got != tc.want {
			t.Errorf("Conflicts(%q,%q,%d) = %v, want %v", tc.ip, tc.proto, tc.port, got, tc.want)
		}
	}
}

func TestNewPodInfoFoldsMatchLabelKeys(t *testing.T) {
	pod := mt.MakePod("p").Label("app", "web").Label("version", "v2").Label("tenant", "a").
		PodAffinity(0, model.PodAffinityTerm{
			LabelSelector:     &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			TopologyKey:       model.LabelZone,
			MatchLabelKeys:    []string{"version"},
			MismatchLabelKeys: []string{"tenant"},
		}).Obj()
	pi := fw.MustPodInfo(pod)
	term := pi.RequiredAffinityTerms[0]
	tests := []struct {
		labels map[string]string
		ns     string
		want   bool
	}{
		{map[string]string{"app": "web", "version": "v2", "tenant": "b"}, "default", true},
		{map[string]string{"app": "web", "version": "v1", "tenant": "b"}, "default", false},
		{map[string]string{"app": "web", "version": "v2", "tenant": "a"}, "default", false},
		{map[string]string{"app": "web", "version": "v2", "tenant": "b"}, "other", false}, // own namespace only
	}
	for _, tc := range tests {
		other := mt.MakePod("o").Namespace(tc.ns).Obj()
		other.Labels = tc.labels
		if got := term.Matches(other, nil); got != tc.want {
			t.Errorf("Matches(%v in %s) = %v, want %v", tc.labels, tc.ns, got, tc.want)
		}
	}
}

func TestStatus(t *testing.T) {
	var nilStatus *fw.Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != fw.Success || nilStatus.AsError() != nil {
		t.Error("nil status must be Success")
	}
	s := fw.NewStatus(fw.UnschedulableAndUnresolvable, "a", "b").WithPlugin("P")
	if !s.IsRejected() || s.Message() != "a, b" || s.Plugin() != "P" || s.AsError() == nil {
		t.Errorf("status = %v", s)
	}
	if fw.AsStatus(nil) != nil {
		t.Error("AsStatus(nil) must be nil")
	}
	if got := fw.NewStatus(fw.Skip).String(); got != "Skip" {
		t.Errorf("String = %q", got)
	}
}

type counter struct{ n int }

func (c *counter) Clone() fw.StateData { d := *c; return &d }

func TestCycleStateClone(t *testing.T) {
	cs := fw.NewCycleState()
	cs.Write("k", &counter{n: 1})
	clone := cs.Clone()
	c, _ := fw.ReadAs[*counter](clone, "k")
	c.n = 5
	orig, ok := fw.ReadAs[*counter](cs, "k")
	if !ok || orig.n != 1 {
		t.Errorf("clone shares data with the original: %v %v", orig, ok)
	}
}

func TestPreFilterResultMerge(t *testing.T) {
	set := func(names ...string) *fw.PreFilterResult {
		r := &fw.PreFilterResult{NodeNames: map[string]struct{}{}}
		for _, n := range names {
			r.NodeNames[n] = struct{}{}
		}
		return r
	}
	var all *fw.PreFilterResult
	if got := all.Merge(set("a")); len(got.NodeNames) != 1 {
		t.Error("all ∩ {a} should be {a}")
	}
	got := set("a", "b").Merge(set("b", "c"))
	if diff := cmp.Diff(map[string]struct{}{"b": {}}, got.NodeNames); diff != "" {
		t.Errorf("intersection (-want +got):\n%s", diff)
	}
}

func TestParallelizerCoversEveryPiece(t *testing.T) {
	for _, workers := range []int{1, 2, 16} {
		var hits [1000]atomic.Int32
		fw.NewParallelizer(workers).Until(context.Background(), len(hits), func(i int) { hits[i].Add(1) })
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("workers=%d: piece %d ran %d times", workers, i, hits[i].Load())
			}
		}
	}
}

// TestNodeInfoRemoveOrder pins kube's removal order (the last pod moves into
// the hole), which decides the reprieve order of equally important victims,
// and checks that a removal never shows through a clone or the slice it was
// taken from.
func TestNodeInfoRemoveOrder(t *testing.T) {
	node := mt.MakeNode("n1").Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	names := func(pis []*fw.PodInfo) []string {
		var out []string
		for _, pi := range pis {
			out = append(out, pi.Pod.Name)
		}
		return out
	}
	anti := model.PodAffinityTerm{LabelSelector: &model.LabelSelector{}, TopologyKey: model.LabelHostname}
	tests := []struct {
		name       string
		remove     []string
		wantPods   []string
		wantAffine []string
	}{
		{name: "first", remove: []string{"a"}, wantPods: []string{"d", "b", "c"}, wantAffine: []string{"b", "d"}},
		{name: "middle", remove: []string{"b"}, wantPods: []string{"a", "d", "c"}, wantAffine: []string{"d"}},
		{name: "last", remove: []string{"d"}, wantPods: []string{"a", "b", "c"}, wantAffine: []string{"b"}},
		{name: "two", remove: []string{"a", "d"}, wantPods: []string{"c", "b"}, wantAffine: []string{"b"}},
		{name: "all", remove: []string{"c", "a", "b", "d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := map[string]*fw.PodInfo{
				"a": fw.MustPodInfo(mt.MakePod("a").Obj()),
				"b": fw.MustPodInfo(mt.MakePod("b").PodAntiAffinity(0, anti).Obj()),
				"c": fw.MustPodInfo(mt.MakePod("c").Obj()),
				"d": fw.MustPodInfo(mt.MakePod("d").PodAntiAffinity(0, anti).Obj()),
			}
			ni := fw.NewNodeInfo(node, pods["a"], pods["b"], pods["c"], pods["d"])
			clone := ni.Clone()
			before := ni.Pods
			for _, n := range tc.remove {
				if err := ni.RemovePod(pods[n].Pod); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.wantPods, names(ni.Pods)); diff != "" {
				t.Errorf("Pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAffine, names(ni.PodsWithAffinity)); diff != "" {
				t.Errorf("PodsWithAffinity (-want +got):\n%s", diff)
			}
			for what, got := range map[string][]string{"clone": names(clone.Pods), "old slice": names(before)} {
				if diff := cmp.Diff([]string{"a", "b", "c", "d"}, got); diff != "" {
					t.Errorf("%s changed (-want +got):\n%s", what, diff)
				}
			}
		})
	}
}

func TestNodeToStatusFirstNodes(t *testing.T) {
	m := fw.NewNodeToStatus()
	for i := range 200 {
		// Names out of order, so the map's order and the sorted one differ.
		m.Set(fmt.Sprintf("node-%03d", (i*37)%200), fw.NewStatus(fw.Unschedulable, "Insufficient cpu"))
	}
	all := m.Nodes()
	for _, k := range []int{0, 1, 7, 100, 199, 200, 250} {
		want := all[:min(k, len(all))]
		if k == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, m.FirstNodes(k)); diff != "" {
			t.Errorf("FirstNodes(%d) (-Nodes()[:k] +got):\n%s", k, diff)
		}
	}
}
