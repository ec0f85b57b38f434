package statesvc_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/statesvc"
)

var rwoMode = []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE}

func zonalVolumeObj(name, claim, zone string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolume{PersistentVolume: &berthv1.PersistentVolume{
		Name: name, CapacityBytes: 1 << 30, AccessModes: rwoMode, Labels: map[string]string{"topology.kubernetes.io/zone": zone},
		ClaimRef: &berthv1.ClaimReference{Namespace: "default", Name: claim},
	}}}
}

func boundClaimObj(name, volume string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{
		Name: name, RequestBytes: 1 << 30, AccessModes: rwoMode, StorageClassName: proto.String(""), VolumeName: volume, BindCompleted: true,
	}}}
}

func withClaim(claim string) podOpt {
	return func(p *berthv1.Pod) {
		p.Volumes = append(p.Volumes, &berthv1.Volume{Name: "data", Source: &berthv1.Volume_PersistentVolumeClaim{
			PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

func withEphemeral() podOpt {
	return func(p *berthv1.Pod) {
		p.Volumes = append(p.Volumes, &berthv1.Volume{Name: "scratch", Source: &berthv1.Volume_Ephemeral{Ephemeral: &berthv1.EphemeralVolumeSource{
			VolumeClaimTemplate: &berthv1.PersistentVolumeClaim{RequestBytes: 1 << 30, AccessModes: rwoMode, StorageClassName: proto.String("late")}}}})
	}
}

// Storage objects through the state service: refused with the field
// named, taken in any order (a pod before its claim waits, then goes to
// its volume's zone), deleted by a re-list that does not send them, but
// for the claims Berth made for pods' ephemeral volumes.
func TestVolumeObjects(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	ctx := t.Context()
	_, send := e.sync(t)
	bad := boundClaimObj("bad", "")
	bad.GetPersistentVolumeClaim().RequestBytes = 0
	resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(bad)})
	if errs := resp.GetErrors(); len(errs) != 1 || errs[0].GetFieldPath() != "persistent_volume_claim.request_bytes" ||
		errs[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT {
		t.Fatalf("bad claim: %v", resp)
	}

	n1, n2 := nodeObj("n1"), nodeObj("n2")
	n1.GetNode().Labels["topology.kubernetes.io/zone"] = "a"
	n2.GetNode().Labels["topology.kubernetes.io/zone"] = "b"
	late := &berthv1.Object{Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{Name: "late", Provisioner: "disk.example.com",
		VolumeBindingMode: berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER}}}
	send(&berthv1.SyncRequest{BatchId: 2, Mutations: upserts(late, n1, n2, podObj("db", withClaim("data"), withEphemeral()))})
	att, err := e.sched.ScheduleOne(ctx)
	if err != nil || att.Node != "" || !strings.Contains(att.Message, `persistentvolumeclaim "data" not found`) {
		t.Fatalf("before its claim: %+v, %v", att, err)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 3, Mutations: upserts(zonalVolumeObj("disk-b", "data", "b"), boundClaimObj("data", "disk-b"))})
	if resp.GetApplied() != 2 {
		t.Fatalf("volume and claim: %v", resp)
	}
	att, err = e.sched.ScheduleOne(ctx)
	if err != nil || att.Node != "n2" {
		t.Fatalf("with its claim: %+v, %v", att, err)
	}

	claims := func() (out []string) {
		for _, c := range e.sched.View().PersistentVolumeClaims() {
			out = append(out, c.Name)
		}
		return out
	}
	if got := strings.Join(claims(), ","); got != "data,db-scratch" {
		t.Errorf("claims = %s, want data and the ephemeral db-scratch", got)
	}
	if resp = send(&berthv1.SyncRequest{BatchId: 4, Resync: berthv1.Resync_RESYNC_BEGIN,
		ResyncKinds: []berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME}}); len(resp.GetErrors()) != 0 {
		t.Fatalf("resync begin: %v", resp)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 5, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(zonalVolumeObj("disk-b", "data", "b"))})
	if resp.GetResyncDeleted() != 1 || strings.Join(claims(), ",") != "db-scratch" || len(e.sched.View().PersistentVolumes()) != 1 {
		t.Errorf("re-list without the claim: %v; claims %v", resp, claims())
	}
	resp = send(&berthv1.SyncRequest{BatchId: 6, Mutations: []*berthv1.Mutation{del(berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "", "disk-b"), del(berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "", "disk-b")}})
	if resp.GetApplied() != 1 || len(resp.GetErrors()) != 1 || resp.GetErrors()[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
		t.Errorf("deletes: %v", resp)
	}
}
