package main

import (
	"fmt"
	"path/filepath"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Device allocations survive kill -9: a node's four GPUs are bound to
// four pods (binds awaiting their outcome), berthd is killed, and after
// the restart and the orchestrator's re-list two more GPU pods find every
// device taken (Unschedulable, no Bind); once one of the first pods is
// deleted, its claim is deallocated and one of them gets exactly that
// device. No device is ever in two live allocations.
func TestDeviceAllocationsAcrossKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	bin := buildBerthd(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data")}

	first := startBerthd(t, bin, args...)
	conn := dial(t, sock)
	w := watchAll(t, conn, 0)
	cluster := []*berthv1.Object{
		{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{Name: "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: `device.driver == "gpu.example.com"`}}}}},
		wireNode("n1"), gpuSlice4("n1"),
		{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{
			Namespace: "default", Name: "one-gpu",
			Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "gpu", Exactly: &berthv1.ExactDeviceRequest{DeviceClassName: "gpu"}}}},
		}}},
	}
	var firstPods []*berthv1.Object
	for i := range 4 {
		firstPods = append(firstPods, gpuWirePod(fmt.Sprintf("p%d", i)))
	}
	syncAll(t, conn, append(cluster, firstPods...))
	ds := w.waitFor(t, "four binds", func(ds []*berthv1.Decision) bool { return len(bindsByPod(ds)) == 4 })
	held := map[string]string{} // device -> pod
	for _, d := range ds {
		for _, dev := range boundDevices(d) {
			if other, dup := held[dev]; dup {
				t.Fatalf("%s allocated to %s and %s", dev, other, d.GetPod().GetName())
			}
			held[dev] = d.GetPod().GetName()
		}
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited

	startBerthd(t, bin, args...)
	conn = dial(t, sock)
	w = watchAll(t, conn, 1)
	more := []*berthv1.Object{gpuWirePod("q0"), gpuWirePod("q1")}
	resyncAll(t, conn, append(append(cluster, firstPods...), more...))
	ds = w.waitFor(t, "q0 and q1 unschedulable", func(ds []*berthv1.Decision) bool {
		n := 0
		for _, d := range ds {
			if d.GetUnschedulable() != nil && (d.GetPod().GetName() == "q0" || d.GetPod().GetName() == "q1") {
				n++
			}
		}
		return n >= 2
	})
	if b := bindsByPod(ds); len(b) != 4 {
		t.Fatalf("binds after the restart: %d pods, want only the four from before", len(b))
	}
	// p2 is deleted: its claim is freed and handed on.
	resyncAll(t, conn, append(append(cluster, firstPods[0], firstPods[1], firstPods[3]), more...))
	ds = w.waitFor(t, "a q pod bound", func(ds []*berthv1.Decision) bool {
		b := bindsByPod(ds)
		return b["q0"] != nil || b["q1"] != nil
	})
	var freed []string
	for _, d := range ds {
		if x := d.GetDeallocateClaim(); x != nil {
			for _, r := range x.GetAllocation().GetDevices() {
				freed = append(freed, r.GetPool()+"/"+r.GetDevice())
				delete(held, r.GetPool()+"/"+r.GetDevice())
			}
		}
	}
	if len(freed) != 1 {
		t.Fatalf("deallocated %v, want p2's one device", freed)
	}
	for _, d := range ds {
		if n := d.GetPod().GetName(); d.GetBind() != nil && (n == "q0" || n == "q1") {
			for _, dev := range boundDevices(d) {
				if other, dup := held[dev]; dup {
					t.Errorf("%s allocated to %s while %s holds it", dev, n, other)
				}
				if dev != freed[0] {
					t.Errorf("%s got %s, want the freed %s", n, dev, freed[0])
				}
			}
		}
	}
}

func gpuSlice4(node string) *berthv1.Object {
	s := &berthv1.ResourceSlice{Name: node + "-gpus", Driver: "gpu.example.com", NodeName: node, Pool: &berthv1.ResourcePool{Name: node, ResourceSliceCount: 1}}
	for i := range 4 {
		s.Devices = append(s.Devices, &berthv1.Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	return &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: s}}
}

func gpuWirePod(name string) *berthv1.Object {
	p := wirePod(name, "", 0)
	p.GetPod().ResourceClaims = []*berthv1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}}
	return p
}

// boundDevices lists the pool/device of every device a Bind allocates.
func boundDevices(d *berthv1.Decision) []string {
	var out []string
	for _, c := range d.GetBind().GetClaims() {
		for _, r := range c.GetAllocation().GetDevices() {
			out = append(out, r.GetPool()+"/"+r.GetDevice())
		}
	}
	return out
}
