package dra

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const testDriver = "gpu.example.com"

// gpuSlice is a slice of node's pool with devices of the given models.
func modelSlice(name, node string, models ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{Driver: testDriver, NodeName: new(node),
			Pool: resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}},
	}
	for i, m := range models {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{
			Name:       fmt.Sprintf("gpu-%d", i),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: new(m)}},
		})
	}
	return s
}

func selectors(exprs ...string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, e := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return out
}

func gpuClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourceapi.DeviceClassSpec{Selectors: selectors(fmt.Sprintf("device.driver == %q", testDriver))}}
}

// modelClaim asks for count devices of class gpu per selector given (one
// request each).
func modelClaim(name string, count int64, exprs ...string) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	for i, e := range exprs {
		c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, resourceapi.DeviceRequest{Name: fmt.Sprintf("r%d", i),
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count, Selectors: selectors(e)}})
	}
	return c
}

func modelIs(m string) string { return fmt.Sprintf("device.attributes[%q].model == %q", testDriver, m) }

func deviceNames(s *resourceapi.ResourceSlice) []string {
	var out []string
	for _, d := range s.Spec.Devices {
		out = append(out, d.Name)
	}
	return out
}

// viewOf returns the attempt view of the tracker's slices for claims.
func viewOf(t *testing.T, tr *Tracker, claims ...*resourceapi.ResourceClaim) *attemptView {
	t.Helper()
	tr.mu.Lock()
	snap, _ := tr.snapshotLocked()
	tr.mu.Unlock()
	as, ok := selectorsOf(snap, claims)
	if !ok {
		t.Fatal("no selector sets")
	}
	return tr.memo.attemptView(t.Context(), tr.cel, snap.sortedSlices(), snap.gen, as)
}

// The copies hold the devices some request matches, in their order; the
// rest of the slice is the slice's; a slice all of whose devices match
// goes as it is; uniform says whether the selectors can be left out.
func TestFilteredViews(t *testing.T) {
	tests := []struct {
		name        string
		models      []string
		exprs       []string
		wantDevices []string
		wantCopy    bool
		wantUniform bool
	}{
		{"some match", []string{"a", "b", "a", "b", "a"}, []string{modelIs("a")}, []string{"gpu-0", "gpu-2", "gpu-4"}, true, true},
		{"all match", []string{"a", "a"}, []string{modelIs("a")}, []string{"gpu-0", "gpu-1"}, false, true},
		{"none match", []string{"b", "b"}, []string{modelIs("a")}, nil, true, true},
		{"two requests, different devices", []string{"a", "b", "c"}, []string{modelIs("a"), modelIs("b")}, []string{"gpu-0", "gpu-1"}, true, false},
		{"two requests, same devices", []string{"a", "c", "a"}, []string{modelIs("a"), `device.attributes["gpu.example.com"].model != "c"`}, []string{"gpu-0", "gpu-2"}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker()
			tr.SetClass(gpuClass())
			s := modelSlice("n1-gpus", "n1", tc.models...)
			s.Labels = map[string]string{"kept": "yes"}
			tr.SetSlice(s)
			av := viewOf(t, tr, modelClaim("c", 1, tc.exprs...))
			v := av.views[0]
			if diff := cmp.Diff(tc.wantDevices, deviceNames(v.slice)); diff != "" {
				t.Errorf("devices (-want +got):\n%s", diff)
			}
			if got := v.slice != s; got != tc.wantCopy {
				t.Errorf("a copy: %v, want %v", got, tc.wantCopy)
			}
			if v.uniform != tc.wantUniform || av.uniformOn("n1") != tc.wantUniform {
				t.Errorf("uniform: %v (node %v), want %v", v.uniform, av.uniformOn("n1"), tc.wantUniform)
			}
			if v.slice.Name != s.Name || v.slice.Labels["kept"] != "yes" || v.slice.Spec.Pool != s.Spec.Pool || *v.slice.Spec.NodeName != "n1" {
				t.Errorf("the copy's other fields changed: %+v", v.slice.ObjectMeta)
			}
			if len(s.Spec.Devices) != len(tc.models) {
				t.Errorf("the slice itself lost devices: %v", deviceNames(s))
			}
		})
	}
}

// A copy is made once per slice and selector sets, and dropped when the
// slice is replaced or deleted.
func TestFilteredViewCacheInvalidation(t *testing.T) {
	tr := NewTracker()
	tr.SetClass(gpuClass())
	old := modelSlice("n1-gpus", "n1", "a", "b")
	tr.SetSlice(old)
	claim := modelClaim("c", 1, modelIs("a"))
	first := viewOf(t, tr, claim).views[0]
	if again := viewOf(t, tr, claim).views[0]; again != first {
		t.Errorf("the view was made again for the same slice and selectors")
	}
	if got := tr.memo.view(t.Context(), tr.cel, old, mustSelectors(t, tr, claim), true); got != first {
		t.Errorf("the slice's view is not the one kept")
	}
	tr.SetSlice(modelSlice("n1-gpus", "n1", "b", "a", "a"))
	tr.memo.mu.Lock()
	_, kept := tr.memo.bySlice[old]
	tr.memo.mu.Unlock()
	if kept {
		t.Errorf("the replaced slice is still remembered")
	}
	if got := deviceNames(viewOf(t, tr, claim).views[0].slice); !cmp.Equal(got, []string{"gpu-1", "gpu-2"}) {
		t.Errorf("after the update the allocator gets %v, want gpu-1 gpu-2", got)
	}
	cur := tr.objs.Slices["n1-gpus"]
	tr.DeleteSlice("n1-gpus")
	tr.memo.mu.Lock()
	_, kept = tr.memo.bySlice[cur]
	tr.memo.mu.Unlock()
	if kept {
		t.Errorf("the deleted slice is still remembered")
	}
	// An attempt still reading the deleted slice does not bring it back.
	tr.memo.view(t.Context(), tr.cel, cur, mustSelectors(t, tr, claim), true)
	tr.memo.mu.Lock()
	_, kept = tr.memo.bySlice[cur]
	tr.memo.mu.Unlock()
	if kept {
		t.Errorf("a view of a deleted slice made it remembered again")
	}
}

func mustSelectors(t *testing.T, tr *Tracker, claims ...*resourceapi.ResourceClaim) *attemptSelectors {
	t.Helper()
	as, ok := selectorsOf(tr.objs, claims)
	if !ok {
		t.Fatal("no selector sets")
	}
	return as
}

// Slices whose filtering could change what the allocator concludes go as
// they are: a selector failing on a device, counters, per-device node
// selection, binding conditions, device names repeated in the pool.
func TestFilterKeepsTheSlice(t *testing.T) {
	counterSet := func(s *resourceapi.ResourceSlice) {
		for i := range s.Spec.Devices {
			s.Spec.Devices[i].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: "mem", Counters: map[string]resourceapi.Counter{"gib": {Value: resource.MustParse("40Gi")}}}}
		}
	}
	tests := []struct {
		name   string
		change func(s *resourceapi.ResourceSlice)
		extra  *resourceapi.ResourceSlice
		expr   string
	}{
		{"runtime error", func(*resourceapi.ResourceSlice) {}, nil, `device.attributes["gpu.example.com"].missing == "a"`},
		{"counters", counterSet, nil, modelIs("a")},
		{"shared counters", func(s *resourceapi.ResourceSlice) {
			s.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "mem", Counters: map[string]resourceapi.Counter{"gib": {Value: resource.MustParse("80Gi")}}}}
		}, nil, modelIs("a")},
		{"per-device node selection", func(s *resourceapi.ResourceSlice) {
			s.Spec.NodeName, s.Spec.PerDeviceNodeSelection = nil, new(true)
			for i := range s.Spec.Devices {
				s.Spec.Devices[i].NodeName = new("n1")
			}
		}, nil, modelIs("a")},
		{"binding conditions", func(s *resourceapi.ResourceSlice) {
			s.Spec.Devices[1].BindingConditions = []string{"ready"}
			s.Spec.Devices[1].BindingFailureConditions = []string{"failed"}
		}, nil, modelIs("a")},
		{"name repeated in the pool", func(s *resourceapi.ResourceSlice) { s.Spec.Pool.ResourceSliceCount = 2 },
			func() *resourceapi.ResourceSlice {
				o := modelSlice("n1-more", "n1", "b")
				o.Spec.Devices[0].Name = "gpu-1"
				o.Spec.Pool.ResourceSliceCount = 2
				return o
			}(), modelIs("a")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker()
			tr.SetClass(gpuClass())
			s := modelSlice("n1-gpus", "n1", "a", "b")
			tc.change(s)
			tr.SetSlice(s)
			if tc.extra != nil {
				tr.SetSlice(tc.extra)
			}
			av := viewOf(t, tr, modelClaim("c", 1, tc.expr))
			for i, v := range av.views {
				if v.slice != av.views[i].slice || len(v.slice.Spec.Devices) != len(tr.objs.Slices[v.slice.Name].Spec.Devices) {
					t.Errorf("%s: filtered to %v", v.slice.Name, deviceNames(v.slice))
				}
				if v.slice != tr.objs.Slices[v.slice.Name] {
					t.Errorf("%s: the allocator gets a copy", v.slice.Name)
				}
			}
			if av.uniformOn("n1") {
				t.Errorf("n1 is uniform: the selectors would be left out")
			}
		})
	}
}

// On the clusters above and a few more, every node gets the same answer
// (results, reason, error) with every shortcut as without any.
func TestShortcutsGiveTheAllocatorsAnswers(t *testing.T) {
	counters := func() []*resourceapi.ResourceSlice {
		cs := modelSlice("n1-counters", "n1")
		cs.Spec.NodeName = new("n1")
		cs.Spec.Pool.ResourceSliceCount = 2
		cs.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "mem", Counters: map[string]resourceapi.Counter{"gib": {Value: resource.MustParse("80Gi")}}}}
		ds := modelSlice("n1-gpus", "n1", "a", "b", "a", "a")
		ds.Spec.Pool.ResourceSliceCount = 2
		for i := range ds.Spec.Devices {
			ds.Spec.Devices[i].ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: "mem", Counters: map[string]resourceapi.Counter{"gib": {Value: resource.MustParse("40Gi")}}}}
		}
		return []*resourceapi.ResourceSlice{cs, ds, modelSlice("n2-gpus", "n2", "b", "a")}
	}
	plain := func() []*resourceapi.ResourceSlice {
		return []*resourceapi.ResourceSlice{modelSlice("n1-gpus", "n1", "a", "b", "a"), modelSlice("n2-gpus", "n2", "b", "b"), modelSlice("n3-gpus", "n3", "a", "a", "a", "a")}
	}
	erring := func() []*resourceapi.ResourceSlice {
		s := modelSlice("n2-gpus", "n2", "a", "b")
		s.Spec.Devices[1].Attributes = nil
		return []*resourceapi.ResourceSlice{modelSlice("n1-gpus", "n1", "a", "b"), s}
	}
	tests := []struct {
		name   string
		slices func() []*resourceapi.ResourceSlice
		claims [][]*resourceapi.ResourceClaim // one attempt each, in order; each attempt's results on n1 are assumed
	}{
		{"plain", plain, [][]*resourceapi.ResourceClaim{
			{modelClaim("c1", 1, modelIs("a"))}, {modelClaim("c2", 2, modelIs("a"))}, {modelClaim("c3", 1, modelIs("a"), modelIs("b"))},
			{modelClaim("c4", 1, modelIs("a"))}, {modelClaim("c5", 3, modelIs("a"))},
		}},
		// c1 takes the "b" device, which the later attempts' copies would
		// not hold: its counters must still count.
		{"counters", counters, [][]*resourceapi.ResourceClaim{
			{modelClaim("c1", 1, modelIs("b"))}, {modelClaim("c2", 1, modelIs("a"))}, {modelClaim("c3", 1, modelIs("a"))},
		}},
		{"a selector failing", erring, [][]*resourceapi.ResourceClaim{
			{modelClaim("c1", 1, `device.attributes["gpu.example.com"].model == "a"`)},
		}},
	}
	nodes := []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, {ObjectMeta: metav1.ObjectMeta{Name: "n3"}}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := func(opts ...TrackerOption) []string {
				tr := NewTracker(opts...)
				tr.SetClass(gpuClass())
				for _, s := range tc.slices() {
					tr.SetSlice(s)
				}
				var out []string
				for i, claims := range tc.claims {
					// Twice, so the second reads what the first remembered.
					for range 2 {
						a, err := tr.NewAllocator(context.Background(), claims)
						if err != nil {
							t.Fatal(err)
						}
						for _, n := range nodes {
							res, reason, err := a.AllocateOnNode(context.Background(), n)
							out = append(out, fmt.Sprintf("attempt %d %s: %v %q %v", i, n.Name, devicesOf(res), reason, err))
						}
					}
					a, _ := tr.NewAllocator(context.Background(), claims)
					res, reason, err := a.AllocateOnNode(context.Background(), nodes[0])
					if err != nil || reason != "" {
						continue
					}
					for j, c := range claims {
						tr.SetClaim(c)
						done := c.DeepCopy()
						done.Status.Allocation = &res[j]
						if _, err := tr.SetClaim(done); err != nil {
							t.Fatal(err)
						}
					}
				}
				return out
			}
			want := run(WithoutPrecheck(), WithoutSliceFilter(), WithoutNodeMemo())
			if diff := cmp.Diff(want, run()); diff != "" {
				t.Errorf("answers (-without shortcuts +with):\n%s", diff)
			}
		})
	}
}

func devicesOf(res []resourceapi.AllocationResult) []string {
	var out []string
	for _, r := range res {
		for _, d := range r.Devices.Results {
			out = append(out, d.Request+"="+d.Pool+"/"+d.Device)
		}
	}
	return out
}
