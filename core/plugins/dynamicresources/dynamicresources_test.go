package dynamicresources

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// devicesHandle is a framework handle that only has DRA state.
type devicesHandle struct {
	framework.Handle
	t *dra.Tracker
}

func (h devicesHandle) Devices() *dra.Tracker { return h.t }

func claim(name string, allocated bool) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if allocated {
		c.Status.Allocation = &resourceapi.AllocationResult{}
	}
	return c
}

func newPlugin(t *testing.T, claims ...*resourceapi.ResourceClaim) *DynamicResources {
	t.Helper()
	tr := dra.NewTracker()
	objs := dra.NewObjects()
	for _, c := range claims {
		objs.Claims[dra.Key(c.Namespace, c.Name)] = c
	}
	tr.Load(objs)
	pl, err := New(context.Background(), nil, devicesHandle{t: tr})
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*DynamicResources)
}

// The claim hint is kube's: nothing while a claim of the pod is missing,
// a deallocation always, else only a new claim of the pod or a change of
// its status.
func TestClaimHint(t *testing.T) {
	pod := &model.Pod{Namespace: "default", Name: "p", UID: "uid-p", ResourceClaims: []model.PodResourceClaim{{Name: "c", ClaimName: "mine"}}}
	relabelled := claim("mine", false)
	relabelled.Labels = map[string]string{"a": "b"}
	for _, tc := range []struct {
		name     string
		have     []*resourceapi.ResourceClaim
		old, cur *resourceapi.ResourceClaim
		want     framework.QueueingHint
	}{
		{"the pod's claim created", []*resourceapi.ResourceClaim{claim("mine", false)}, nil, claim("mine", false), framework.Queue},
		{"another claim created", []*resourceapi.ResourceClaim{claim("mine", false)}, nil, claim("other", false), framework.QueueSkip},
		{"another claim deallocated", []*resourceapi.ResourceClaim{claim("mine", false)}, claim("other", true), claim("other", false), framework.Queue},
		{"a claim of the pod still missing", nil, claim("other", true), claim("other", false), framework.QueueSkip},
		{"the pod's claim relabelled", []*resourceapi.ResourceClaim{claim("mine", false)}, claim("mine", false), relabelled, framework.QueueSkip},
		{"the pod's claim allocated", []*resourceapi.ResourceClaim{claim("mine", true)}, claim("mine", false), claim("mine", true), framework.Queue},
	} {
		pl := newPlugin(t, tc.have...)
		var old any
		if tc.old != nil {
			old = tc.old
		}
		got, err := pl.isSchedulableAfterClaimChange(pod, old, tc.cur)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
}

// Score adds 8 minus the index of each firstAvailable alternative chosen.
func TestScoreFirstAvailable(t *testing.T) {
	c := claim("c", false)
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{
		{Name: "r0", FirstAvailable: []resourceapi.DeviceSubRequest{{Name: "a"}, {Name: "b"}}},
		{Name: "r1", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "x"}},
	}
	pl := newPlugin(t, c)
	s := &stateData{claims: []*resourceapi.ResourceClaim{c}, allocator: &dra.Allocator{}, nodeAllocations: map[string][]resourceapi.AllocationResult{
		"n1": {{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "r0/b"}, {Request: "r1"}}}}},
		"n2": {{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "r0/a"}, {Request: "r1"}}}}},
	}}
	cs := framework.NewCycleState()
	cs.Write(stateKey, s)
	pod := &model.Pod{Name: "p", ResourceClaims: []model.PodResourceClaim{{Name: "c", ClaimName: "c"}}}
	for node, want := range map[string]int64{"n1": 7, "n2": 8, "n3": 0} {
		ni := framework.NewNodeInfo(&model.Node{Name: node})
		if got, st := pl.Score(context.Background(), cs, pod, ni); got != want || !st.IsSuccess() {
			t.Errorf("%s: %d %v, want %d", node, got, st, want)
		}
	}
	if got, _ := pl.Score(context.Background(), cs, &model.Pod{Name: "plain"}, framework.NewNodeInfo(&model.Node{Name: "n1"})); got != 0 {
		t.Errorf("a pod without claims scores %d", got)
	}
}

// A Filter the cycle stopped (enough feasible nodes found) rejects the
// node in kube's words instead of failing the attempt; args are checked.
func TestFilterStoppedAndArgs(t *testing.T) {
	c := claim("c", false)
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "g", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
	pl := newPlugin(t, c)
	pl.t.SetClass(&resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}})
	pl.t.SetSlice(&resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Spec:       resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: new("n1"), Pool: resourceapi.ResourcePool{Name: "n1", ResourceSliceCount: 1}, Devices: []resourceapi.Device{{Name: "gpu-0"}}},
	})
	pod := &model.Pod{Namespace: "default", Name: "p", UID: "uid-p", ResourceClaims: []model.PodResourceClaim{{Name: "c", ClaimName: "c"}}}
	cs := framework.NewCycleState()
	if _, st := pl.PreFilter(context.Background(), cs, pod, nil); !st.IsSuccess() {
		t.Fatal(st)
	}
	ni := framework.NewNodeInfo(&model.Node{Name: "n1"})
	if st := pl.Filter(context.Background(), cs, pod, ni); !st.IsSuccess() {
		t.Fatalf("n1: %v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st := pl.Filter(ctx, cs, pod, ni)
	if st.Code() != framework.UnschedulableAndUnresolvable || st.Message() != "asked by caller to stop allocating devices: context canceled" {
		t.Errorf("stopped: %v", st)
	}
	if _, err := New(context.Background(), []byte(`{"filterTimeout": "-1s"}`), devicesHandle{t: pl.t}); err == nil {
		t.Errorf("a negative filterTimeout is accepted")
	}
}
