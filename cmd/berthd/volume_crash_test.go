package main

import (
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Volume reservations survive kill -9 (issue 30): a's Bind promises pv1
// to its claim, berthd is killed before the orchestrator acts on it, and
// after the restart and a re-list that still shows pv1 unbound, b (whose
// claim pv1 would fit) is unschedulable instead of being given pv1 too.
// Once a's bind is reported failed, pv1 is free again and promised to
// exactly one claim.
func TestVolumeReservationsAcrossKill(t *testing.T) {
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
	storage := []*berthv1.Object{
		wireNode("n1"),
		{Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{
			Name: "local", Provisioner: "kubernetes.io/no-provisioner",
			VolumeBindingMode: berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER,
		}}},
		{Kind: &berthv1.Object_PersistentVolume{PersistentVolume: &berthv1.PersistentVolume{
			Name: "pv1", CapacityBytes: 1 << 30, AccessModes: rwo, StorageClassName: "local",
		}}},
		wireClaim("data-a"), wireClaim("data-b"),
	}
	a, b := claimPod("a", "data-a"), claimPod("b", "data-b")
	syncAll(t, conn, append(slices.Clone(storage), a))
	ds := w.waitFor(t, "a bound with pv1", func(ds []*berthv1.Decision) bool { return bindsByPod(ds)["a"] != nil })
	aBind := bindsByPod(ds)["a"]
	if got := volumesOf(aBind); !slices.Equal(got, []string{"data-a=pv1"}) {
		t.Fatalf("a's Bind carries volumes %v, want data-a=pv1", got)
	}
	since := func(ds []*berthv1.Decision) []*berthv1.Decision {
		return slices.DeleteFunc(slices.Clone(ds), func(d *berthv1.Decision) bool { return d.GetRevision() <= aBind.GetRevision() })
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited

	startBerthd(t, bin, args...)
	conn = dial(t, sock)
	w = watchAll(t, conn, 1)
	// The re-list: the orchestrator had not acted on a's Bind (pv1 and
	// data-a unbound, a pending), and b is new.
	resyncAll(t, conn, append(slices.Clone(storage), a, b))
	ds = w.waitFor(t, "b decided", func(ds []*berthv1.Decision) bool {
		return slices.ContainsFunc(ds, func(d *berthv1.Decision) bool {
			return (d.GetUnschedulable() != nil || d.GetBind() != nil) && d.GetPod().GetName() == "b"
		})
	})
	if got := bindsByPod(ds); len(got) != 1 || got["a"] == nil {
		t.Fatalf("binds after the restart: %v, want only a's from before", got)
	}
	for _, d := range since(ds) {
		if d.GetBind() != nil {
			t.Errorf("a Bind after the restart: %v", d)
		}
	}

	// a's bind failed: pv1 is free again, for exactly one claim.
	if _, err := berthv1.NewStateServiceClient(conn).ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
		Pod: aBind.GetPod(), Node: aBind.GetBind().GetNode(), Revision: aBind.GetRevision(),
		Outcome: berthv1.BindOutcome_BIND_OUTCOME_FAILED, Reason: "attach failed",
	}); err != nil {
		t.Fatalf("report a's bind failed: %v", err)
	}
	ds = w.waitFor(t, "pv1 promised again", func(ds []*berthv1.Decision) bool {
		return slices.ContainsFunc(since(ds), func(d *berthv1.Decision) bool { return d.GetBind() != nil })
	})
	promised := 0
	for _, d := range since(ds) {
		if got := volumesOf(d); slices.ContainsFunc(got, func(v string) bool { return v == "data-a=pv1" || v == "data-b=pv1" }) {
			promised++
		}
	}
	if promised != 1 {
		t.Errorf("pv1 promised %d times after the failure, want once", promised)
	}
}

var rwo = []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE}

func wireClaim(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{
		Namespace: "default", Name: name, RequestBytes: 1 << 30, AccessModes: rwo, StorageClassName: proto.String("local"),
	}}}
}

func claimPod(name, claim string) *berthv1.Object {
	p := wirePod(name, "", 0)
	p.GetPod().Volumes = []*berthv1.Volume{{Name: "data", Source: &berthv1.Volume_PersistentVolumeClaim{
		PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	return p
}

// volumesOf lists a Bind's volume bindings as claim=volume.
func volumesOf(d *berthv1.Decision) []string {
	var out []string
	for _, v := range d.GetBind().GetVolumes() {
		out = append(out, v.GetClaim()+"="+v.GetVolume())
	}
	return out
}
