package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
)

// draEnv is a scheduler with the default profile (DynamicResources
// included) and a device sink, with nodes n1 and n2.
func draEnv(t *testing.T) (*env, *deviceSink) {
	t.Helper()
	sink := &deviceSink{}
	reg := registry.InTree()
	e := &env{t: t, sink: &sink.fakeSink, reporter: &fakeReporter{}, clock: newFakeClock()}
	sink.reporter = e.reporter
	s, err := New(context.Background(), Options{
		Config: config.Default(), Registry: reg, Decisions: sink, Clock: e.clock,
		Deterministic: true, Replay: Replay{BindInline: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	for _, n := range []string{"n1", "n2"} {
		e.addNodes(mt.MakeNode(n).Label(model.LabelHostname, n).Capacity(model.ResourceList{model.ResourceCPU: 8000, model.ResourceMemory: 8 * mt.Gi, model.ResourcePods: 110}).Obj())
	}
	return e, sink
}

func (e *env) upsert(objs ...any) {
	e.t.Helper()
	for _, o := range objs {
		if err := e.s.upsertDeviceObject(context.Background(), o); err != nil {
			e.t.Fatal(err)
		}
	}
}

func gpuClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec:       resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}},
	}
}

// gpuSlice is node's slice of GPUs gpu-0 ... gpu-(n-1).
func gpuSlice(node string, n int) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: new(node),
			Pool: resourceapi.ResourcePool{Name: node, ResourceSliceCount: 1},
		},
	}
	for i := range n {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: "gpu-" + string(rune('0'+i))})
	}
	return s
}

func gpuClaim(name string, count int64) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{
			{Name: "g", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", Count: count}},
		}}},
	}
}

func claimPod(name string, claims ...string) *model.Pod {
	p := mt.MakePod(name).Req(mt.Res(100, 0)).Obj()
	for i, c := range claims {
		p.ResourceClaims = append(p.ResourceClaims, model.PodResourceClaim{Name: "c" + string(rune('0'+i)), ClaimName: c})
	}
	return p
}

func (e *env) subQueue(uid string) queue.SubQueue {
	e.t.Helper()
	ex, err := e.s.View().ExplainUID(uid)
	if err != nil {
		e.t.Fatal(err)
	}
	return ex.Queue.SubQueue
}

// A pod whose claim does not exist waits among the gated pods with kube's
// message, and is queued when the claim arrives; its bind carries the
// allocation.
func TestDRAPodWaitsForItsClaim(t *testing.T) {
	e, sink := draEnv(t)
	e.upsert(gpuClass(), gpuSlice("n2", 1))
	p := claimPod("p", "c")
	e.addPods(p)
	ex, _ := e.s.View().ExplainUID(p.UID)
	if ex.Queue.GatingPlugin != "DynamicResources" || ex.Queue.GatingMessage != `could not find ResourceClaim "default/c"` {
		t.Fatalf("gated by %q: %q", ex.Queue.GatingPlugin, ex.Queue.GatingMessage)
	}
	e.upsert(gpuClaim("c", 1))
	if got := e.subQueue(p.UID); got == queue.Gated {
		t.Fatalf("still gated after the claim arrived")
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Node != "n2" {
		t.Fatalf("attempt: %v on %q (%s)", att.Result, att.Node, att.Message)
	}
	if diff := cmp.Diff(map[string][]string{"default/p": {"c: gpu-0"}}, sink.boundClaims); diff != "" {
		t.Errorf("BindWithClaims (-want +got):\n%s", diff)
	}
	c, _ := e.s.View().Claim("default", "c")
	if len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].UID != "uid-p" {
		t.Errorf("claim consumers after the bind: %v", c.Status.ReservedFor)
	}
}

// Queueing hints: a pod that waits for devices is requeued by a new
// slice and by devices freed, not by an unrelated claim.
func TestDRAHintsRequeueWaitingPods(t *testing.T) {
	e, sink := draEnv(t)
	e.upsert(gpuClass(), gpuClaim("a", 1), gpuClaim("b", 1))
	a, b := claimPod("a", "a"), claimPod("b", "b")
	e.addPods(a)
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable || !strings.Contains(att.Message, "2 cannot allocate all claims") {
		t.Fatalf("a without devices: %v %q", att.Result, att.Message)
	}
	e.upsert(gpuClaim("unrelated", 1))
	if got := e.subQueue(a.UID); got != queue.Unschedulable {
		t.Fatalf("a after an unrelated claim: %v, want unschedulable", got)
	}
	e.upsert(gpuSlice("n1", 1))
	if got := e.subQueue(a.UID); got == queue.Unschedulable {
		t.Fatalf("a stayed unschedulable after a new slice")
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("a after the slice: %v %q", att.Result, att.Message)
	}
	bound := *a
	bound.NodeName = "n1"
	e.addPods(&bound, b)
	if att := e.scheduleOne(); att.Result != ResultUnschedulable {
		t.Fatalf("b while a holds the GPU: %v", att.Result)
	}
	if err := e.s.DeletePod(context.Background(), &bound); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sink.deallocations, []string{"default/a (" + DeallocationReason + ")"}) {
		t.Errorf("deallocations: %v", sink.deallocations)
	}
	if got := e.subQueue(b.UID); got == queue.Unschedulable {
		t.Fatalf("b stayed unschedulable after a freed the GPU")
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Node != "n1" {
		t.Fatalf("b after a left: %v %q", att.Result, att.Node)
	}
}

// PreFilter rejects on every node, in kube's words: a class that does not
// exist, a claim whose allocation is in flight for another pod.
func TestDRAPreFilterRejections(t *testing.T) {
	e, _ := draEnv(t)
	e.upsert(gpuSlice("n1", 2), gpuClaim("c", 1), gpuClaim("shared", 1))
	p := claimPod("p", "c")
	e.addPods(p)
	att := e.scheduleOne()
	if want := "0/2 nodes are available: request g: device class gpu does not exist."; !strings.HasPrefix(att.Message, want) {
		t.Fatalf("no class: %q, want %q...", att.Message, want)
	}
	e.upsert(gpuClass())
	// Another pod's allocation of the shared claim is in flight.
	other := claimPod("other", "shared")
	c, _ := e.s.View().Claim("default", "shared")
	res := []resourceapi.AllocationResult{{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}}}}}
	if err := e.s.devices.Assume(other, []*resourceapi.ResourceClaim{c}, res); err != nil {
		t.Fatal(err)
	}
	q := claimPod("q", "shared")
	e.addPods(q)
	e.expireBackoff()
	for range 2 {
		att = e.scheduleOne()
		if att.Pod.UID == q.UID {
			break
		}
	}
	if want := "resource claim default/shared is in the process of being allocated"; att.Pod.UID != q.UID || !strings.Contains(att.Message, want) {
		t.Fatalf("%s: %q, want %q", att.Pod.Key(), att.Message, want)
	}
}

// A claim may name a class that does not exist yet (kube-apiserver takes
// it): its pod is unschedulable with kube 1.37's message, waits among the
// unschedulable pods through unrelated events, and is requeued and bound
// when the class arrives.
func TestDRAClassArrivesAfterTheClaim(t *testing.T) {
	e, _ := draEnv(t)
	e.upsert(gpuSlice("n1", 1), gpuClaim("c", 1))
	p := claimPod("p", "c")
	e.addPods(p)
	att := e.scheduleOne()
	if want := "0/2 nodes are available: request g: device class gpu does not exist. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."; att.Result != ResultUnschedulable || att.Message != want {
		t.Fatalf("before the class: %v %q, want unschedulable %q", att.Result, att.Message, want)
	}
	e.upsert(gpuClaim("unrelated", 1))
	if got := e.subQueue(p.UID); got != queue.Unschedulable {
		t.Fatalf("after an unrelated claim: %v, want unschedulable", got)
	}
	e.upsert(gpuClass())
	if got := e.subQueue(p.UID); got == queue.Unschedulable {
		t.Fatalf("still unschedulable after its class arrived")
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Node != "n1" {
		t.Fatalf("after the class: %v on %q (%s)", att.Result, att.Node, att.Message)
	}
}

// A claim allocated on a node the pod cannot use and reserved by nobody
// is deallocated by PostFilter (reported to the sink); the next attempt
// allocates it where the pod fits.
func TestDRAPostFilterDeallocates(t *testing.T) {
	e, sink := draEnv(t)
	stale := gpuClaim("stale", 1)
	stale.Status.Allocation = &resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}},
		NodeSelector: nodeNameSelector("n1"),
	}
	e.upsert(gpuClass(), gpuSlice("n1", 1), gpuSlice("n2", 1), stale)
	e.addPods(mt.MakePod("hog").Node("n1").Req(mt.Res(8000, 0)).Obj())
	p := claimPod("p", "stale")
	e.addPods(p)
	att := e.scheduleOne()
	if !strings.Contains(att.Message, "deallocation of ResourceClaim completed") || !slices.Equal(sink.deallocations, []string{"default/stale (" + dynamicResourcesDeallocation + ")"}) {
		t.Fatalf("attempt: %q; deallocations %v", att.Message, sink.deallocations)
	}
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.Node != "n2" {
		t.Fatalf("after the deallocation: %v on %q (%s)", att.Result, att.Node, att.Message)
	}
}

const dynamicResourcesDeallocation = "allocated for nodes the pod cannot use and reserved by no other pod"

func nodeNameSelector(node string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}
}

// Explain says, per node, which claim and request cannot be allocated and
// why.
func TestDRAExplainSaysWhichRequestFails(t *testing.T) {
	e, _ := draEnv(t)
	held := gpuClaim("held", 1)
	held.Status.Allocation = &resourceapi.AllocationResult{
		Devices:      resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}},
		NodeSelector: nodeNameSelector("n1"),
	}
	held.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "user", UID: "uid-user"}}
	e.upsert(gpuClass(), gpuSlice("n1", 2), held, gpuClaim("want", 2))
	p := claimPod("p", "want")
	e.addPods(p)
	if att := e.scheduleOne(); att.Result != ResultUnschedulable {
		t.Fatalf("p: %v", att.Result)
	}
	ex, err := e.s.View().ExplainUID(p.UID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"n1": {"claim default/want, request g: the devices matching it are in use"},
		"n2": {"claim default/want, request g: not enough devices on the node match it"},
	}
	if diff := cmp.Diff(want, ex.Devices); diff != "" {
		t.Errorf("Explanation.Devices (-want +got):\n%s", diff)
	}
}

// groupDeviceSink is deviceSink counting plans of group binds, which the
// scheduler must not make for members with claims: each is bound alone,
// with its claims.
type groupDeviceSink struct {
	*deviceSink
	groupBinds int
}

func (g *groupDeviceSink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	if plan.Group != "" {
		g.groupBinds++
	}
	return g.deviceSink.Submit(ctx, plan)
}

// Members of a pod group sharing a claim no one allocated yet share the
// allocation one of them put in flight in the group cycle (as kube shares
// pending allocations within a PodGroup cycle); each member's bind carries
// the claim.
func TestDRAGangSharesAClaim(t *testing.T) {
	e, sink := draEnv(t)
	gs := &groupDeviceSink{deviceSink: sink}
	e.s.opts.Decisions, e.s.opts.GroupDecisions = gs, true
	e.s.decisions.next = gs
	e.upsert(gpuClass(), gpuSlice("n2", 1), gpuClaim("shared", 1))
	e.setGroup("g", 2)
	var members []*model.Pod
	for i := range 2 {
		p := claimPod(fmt.Sprintf("m%d", i), "shared")
		p.SchedulingGroup = "g"
		members = append(members, p)
	}
	e.addPods(members...)
	e.scheduleOne()
	want := map[string][]string{"default/m0": {"shared: gpu-0"}, "default/m1": {"shared: gpu-0"}}
	if diff := cmp.Diff(want, sink.boundClaims); diff != "" {
		t.Fatalf("BindWithClaims (-want +got):\n%s", diff)
	}
	if gs.groupBinds != 0 {
		t.Errorf("BindGroup called %d times for members with claims", gs.groupBinds)
	}
	c, _ := e.s.View().Claim("default", "shared")
	var uids []string
	for _, r := range c.Status.ReservedFor {
		uids = append(uids, string(r.UID))
	}
	if !slices.Equal(uids, []string{"uid-m0", "uid-m1"}) || devicesOf(c) != "gpu-0" {
		t.Errorf("shared: %s reserved for %v", devicesOf(c), uids)
	}
}
