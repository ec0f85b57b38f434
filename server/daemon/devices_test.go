package daemon

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
)

// Wire DRA builders: a class of every device of gpu.example.com, a node's
// slice of n GPUs, a template of one GPU and pods using it.

func gpuClass() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{
		Name: "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: `device.driver == "gpu.example.com"`}},
	}}}
}

func gpuSlice(node string, n int) *berthv1.Object {
	s := &berthv1.ResourceSlice{
		Name: node + "-gpus", Driver: "gpu.example.com", NodeName: node,
		Pool: &berthv1.ResourcePool{Name: node, ResourceSliceCount: 1},
	}
	for i := range n {
		s.Devices = append(s.Devices, &berthv1.Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	return &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: s}}
}

func oneGPUTemplate() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{
		Namespace: "default", Name: "one-gpu",
		Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "gpu", Exactly: &berthv1.ExactDeviceRequest{DeviceClassName: "gpu"}}}},
	}}}
}

func gpuPod(name string) *berthv1.Object {
	p := podWire(name, 100)
	p.ResourceClaims = []*berthv1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}}
	p.Containers[0].Claims = []string{"gpu"}
	return podObj(p)
}

// devicesBound lists the devices the Binds of ds allocated, by pod.
func devicesBound(ds []*berthv1.Decision) map[string]string {
	out := map[string]string{}
	for _, d := range ds {
		for _, c := range d.GetBind().GetClaims() {
			for _, r := range c.GetAllocation().GetDevices() {
				out[d.GetPod().GetName()] = r.GetPool() + "/" + r.GetDevice()
			}
		}
	}
	return out
}

// Allocations survive a restart: a node's two GPUs taken by two binds
// (awaiting their outcome) stay taken when berthd comes back, so a third
// pod waits rather than getting a device twice; a pod deleted while
// berthd was down frees its claim at the re-list's end (DeallocateClaim),
// and the waiting pod gets exactly that device.
func TestRestartKeepsClaimAllocations(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir, Deterministic: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	cluster := []*berthv1.Object{gpuClass(), nodeObj("n1", 4000), gpuSlice("n1", 2), oneGPUTemplate()}
	e.apply(t, cluster...)
	e.apply(t, gpuPod("a"), gpuPod("b"))
	before := w.waitFor(t, "two binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
	got := devicesBound(before)
	if len(got) != 2 || got["a"] == got["b"] {
		t.Fatalf("devices bound %v, want two distinct", got)
	}
	for _, d := range before {
		if c := d.GetBind().GetClaims(); len(c) != 1 || !slices.Equal(c[0].GetPodClaimNames(), []string{"gpu"}) ||
			!strings.HasPrefix(c[0].GetName(), d.GetPod().GetName()+"-gpu-") || len(c[0].GetReservedFor()) != 1 {
			t.Errorf("bind of %s carries claims %v", d.GetPod().GetName(), c)
		}
	}
	if kvs, err := e.d.store.List(store.Claims); err != nil || len(kvs) != 2 {
		t.Fatalf("claims kept durably: %d (err %v), want 2", len(kvs), err)
	}
	e.shutdown(t)

	e = start(t, Config{DataDir: dir, Deterministic: true})
	w = e.startWatch(t, &berthv1.WatchRequest{})
	// The re-list: b was deleted while berthd was down; c is new.
	_, send := e.syncStream(t)
	for i, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(append(cluster, gpuPod("a"), gpuPod("c"))...)},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END},
	} {
		if resp := send(req); len(resp.GetErrors()) > 0 {
			t.Fatalf("batch %d refused: %v", i+1, resp.GetErrors())
		}
	}
	ds := w.waitFor(t, "b's claim deallocated and c bound", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_DEALLOCATE_CLAIM) == 1 && binds(ds)["c"] != ""
	})
	var dealloc *berthv1.DeallocateClaim
	for i, d := range ds {
		if x := d.GetDeallocateClaim(); x != nil {
			dealloc = x
			if d.GetPod().GetName() != "b" || !x.GetClaimDeleted() {
				t.Errorf("deallocation %v about pod %v, want b's claim, deleted with it", x, d.GetPod())
			}
			if slices.ContainsFunc(ds[:i], func(d *berthv1.Decision) bool { return d.GetBind() != nil }) {
				t.Errorf("a Bind came before the deallocation: c got a device still taken")
			}
		}
	}
	freed := dealloc.GetAllocation().GetDevices()[0]
	if got, want := devicesBound(ds)["c"], freed.GetPool()+"/"+freed.GetDevice(); got != want || want != devicesBound(before)["b"] {
		t.Errorf("c got %s; b's freed device was %s (b held %s)", got, want, devicesBound(before)["b"])
	}
	if _, ok := binds(ds)["a"]; ok {
		t.Errorf("a bound again after the restart: its bind was outstanding")
	}
	resp, err := e.admin().ListDeviceObjects(t.Context(), &berthv1.ListDeviceObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, o := range resp.GetObjects() {
		c := o.GetResourceClaim()
		held = append(held, fmt.Sprintf("%s:%d", strings.SplitN(c.GetName(), "-", 2)[0], len(c.GetStatus().GetAllocation().GetDevices())))
	}
	if want := []string{"a:1", "c:1"}; !slices.Equal(held, want) {
		t.Errorf("claims held %v, want %v", held, want)
	}
	if kvs, err := e.d.store.List(store.Claims); err != nil || len(kvs) != 2 {
		t.Errorf("claims kept durably: %d (err %v), want 2 (a's and c's)", len(kvs), err)
	}
}
