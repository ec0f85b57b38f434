package convert_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

func gib(n int64) int64 { return n << 30 }

var rwo = []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE}

func fullVolumeObjects() map[string]*berthv1.Object {
	zoneB := &berthv1.NodeSelector{NodeSelectorTerms: []*berthv1.NodeSelectorTerm{{MatchExpressions: []*berthv1.NodeSelectorRequirement{
		{Key: "topology.kubernetes.io/zone", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_IN, Values: []string{"b"}},
	}}}}
	return map[string]*berthv1.Object{
		"persistent volume": {Kind: &berthv1.Object_PersistentVolume{PersistentVolume: &berthv1.PersistentVolume{
			Name: "disk-b", Labels: map[string]string{"topology.kubernetes.io/zone": "b"}, CapacityBytes: gib(10),
			AccessModes: rwo, StorageClassName: "zonal", ClaimRef: &berthv1.ClaimReference{Namespace: "default", Name: "data", Uid: "c1"},
			NodeAffinity: zoneB, VolumeMode: berthv1.PersistentVolumeMode_PERSISTENT_VOLUME_MODE_BLOCK,
			Phase: berthv1.PersistentVolumePhase_PERSISTENT_VOLUME_PHASE_BOUND,
			Csi:   &berthv1.CSIPersistentVolumeSource{Driver: "disk.csi.example.com", VolumeHandle: "vol-1"},
		}}},
		"claim": {Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{
			Namespace: "default", Name: "data", Uid: "c1", RequestBytes: gib(5),
			AccessModes:      []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE_POD},
			StorageClassName: proto.String("zonal"), VolumeName: "disk-b", BindCompleted: true, SelectedNode: "n1",
			Selector: &berthv1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}},
			Phase:    berthv1.PersistentVolumeClaimPhase_PERSISTENT_VOLUME_CLAIM_PHASE_BOUND,
		}}},
		"claim of no class": {Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{
			Namespace: "default", Name: "local", Uid: "c2", RequestBytes: gib(1), AccessModes: rwo, StorageClassName: proto.String(""),
			Phase: berthv1.PersistentVolumeClaimPhase_PERSISTENT_VOLUME_CLAIM_PHASE_PENDING,
		}}},
		"storage class": {Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{
			Name: "zonal", Provisioner: "disk.csi.example.com", IsDefault: true,
			VolumeBindingMode: berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER,
			AllowedTopologies: []*berthv1.TopologySelectorTerm{{MatchLabelExpressions: []*berthv1.TopologySelectorLabelRequirement{
				{Key: "topology.kubernetes.io/zone", Values: []string{"a", "b"}},
			}}},
		}}},
		"csi node": {Kind: &berthv1.Object_CsiNode{CsiNode: &berthv1.CSINode{Name: "n1", Drivers: []*berthv1.CSINodeDriver{
			{Name: "disk.csi.example.com", NodeId: "i-1", TopologyKeys: []string{"topology.kubernetes.io/zone"}, AllocatableCount: proto.Int32(3)},
			{Name: "nfs.csi.example.com", NodeId: "n1"},
		}}}},
		"csi driver": {Kind: &berthv1.Object_CsiDriver{CsiDriver: &berthv1.CSIDriver{Name: "disk.csi.example.com", AttachRequired: proto.Bool(false), StorageCapacity: true,
			PreventPodSchedulingIfMissing: true}}},
		"capacity": {Kind: &berthv1.Object_CsiStorageCapacity{CsiStorageCapacity: &berthv1.CSIStorageCapacity{
			Namespace: "kube-system", Name: "zonal-b", StorageClassName: "zonal",
			NodeTopology:  &berthv1.LabelSelector{MatchLabels: map[string]string{"topology.kubernetes.io/zone": "b"}},
			CapacityBytes: proto.Int64(gib(100)), MaximumVolumeSizeBytes: proto.Int64(gib(20)),
		}}},
	}
}

func TestVolumeRoundTrip(t *testing.T) {
	for name, obj := range fullVolumeObjects() {
		t.Run(name, func(t *testing.T) {
			m, err := convert.ObjectFromProto(obj)
			if err != nil {
				t.Fatalf("ObjectFromProto: %v", err)
			}
			got := convert.ObjectToProto(m)
			if d := got.GetCsiDriver(); d != nil && obj.GetCsiDriver().AttachRequired == nil {
				d.AttachRequired = nil // defaulted to true, as in Kubernetes
			}
			if diff := cmp.Diff(obj, got, protocmp.Transform()); diff != "" {
				t.Errorf("proto -> kube -> proto changed the object (-want +got):\n%s", diff)
			}
			if got, want := m.Ref().Proto(), convert.ObjectRefOf(obj); !cmp.Equal(got, want, protocmp.Transform()) {
				t.Errorf("Ref() = %v, ObjectRefOf = %v", got, want)
			}
		})
	}
}

func TestPodVolumesRoundTrip(t *testing.T) {
	obj := podObject(func(p *berthv1.Pod) {
		p.Volumes = []*berthv1.Volume{
			{Name: "data", Source: &berthv1.Volume_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: "db-data", ReadOnly: true}}},
			{Name: "scratch", Source: &berthv1.Volume_Ephemeral{Ephemeral: &berthv1.EphemeralVolumeSource{VolumeClaimTemplate: &berthv1.PersistentVolumeClaim{
				Labels: map[string]string{"app": "x"}, RequestBytes: gib(2), AccessModes: rwo, StorageClassName: proto.String("zonal"),
			}}}},
			{Name: "secrets", Source: &berthv1.Volume_Csi{Csi: &berthv1.CSIVolumeSource{Driver: "secrets.csi.example.com"}}},
			{Name: "tmp", Source: &berthv1.Volume_Other{Other: "emptyDir"}},
		}
	})
	m, err := convert.ObjectFromProto(obj)
	if err != nil {
		t.Fatalf("ObjectFromProto: %v", err)
	}
	if got := m.Pod.Volumes[1].ClaimName; got != m.Pod.Name+"-scratch" {
		t.Errorf("ephemeral claim name = %q, want <pod>-scratch", got)
	}
	if diff := cmp.Diff(obj, convert.ObjectToProto(m), protocmp.Transform()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestVolumeValidation: each refusal names the field by its wire path.
func TestVolumeValidation(t *testing.T) {
	edit := func(name string, f func(o *berthv1.Object)) *berthv1.Object {
		o := proto.Clone(fullVolumeObjects()[name]).(*berthv1.Object)
		f(o)
		return o
	}
	for _, tc := range []struct {
		name, wantPath, wantMsg string
		obj                     *berthv1.Object
	}{
		{name: "pv without capacity", obj: edit("persistent volume", func(o *berthv1.Object) { o.GetPersistentVolume().CapacityBytes = 0 }),
			wantPath: "persistent_volume.capacity_bytes", wantMsg: "Required value"},
		{name: "pv unknown access mode", obj: edit("persistent volume", func(o *berthv1.Object) { o.GetPersistentVolume().AccessModes = []berthv1.PersistentVolumeAccessMode{9} }),
			wantPath: "persistent_volume.access_modes[0]", wantMsg: "unknown value"},
		{name: "pv csi without handle", obj: edit("persistent volume", func(o *berthv1.Object) { o.GetPersistentVolume().Csi.VolumeHandle = "" }),
			wantPath: "persistent_volume.csi.volume_handle", wantMsg: "Required value"},
		{name: "pv empty node affinity", obj: edit("persistent volume", func(o *berthv1.Object) { o.GetPersistentVolume().NodeAffinity.NodeSelectorTerms = nil }),
			wantPath: "persistent_volume.node_affinity.node_selector_terms", wantMsg: "at least one"},
		{name: "claim negative request", obj: edit("claim", func(o *berthv1.Object) { o.GetPersistentVolumeClaim().RequestBytes = -1 }),
			wantPath: "persistent_volume_claim.request_bytes", wantMsg: "must be greater than zero"},
		{name: "claim RWOP with RWO", obj: edit("claim", func(o *berthv1.Object) {
			o.GetPersistentVolumeClaim().AccessModes = append(o.GetPersistentVolumeClaim().AccessModes, rwo...)
		}), wantPath: "persistent_volume_claim.access_modes", wantMsg: "ReadWriteOncePod"},
		{name: "claim bad namespace", obj: edit("claim", func(o *berthv1.Object) { o.GetPersistentVolumeClaim().Namespace = "Bad" }),
			wantPath: "persistent_volume_claim.namespace", wantMsg: "Invalid value"},
		{name: "class without provisioner", obj: edit("storage class", func(o *berthv1.Object) { o.GetStorageClass().Provisioner = "" }),
			wantPath: "storage_class.provisioner", wantMsg: "Required value"},
		{name: "class topology without values", obj: edit("storage class", func(o *berthv1.Object) {
			o.GetStorageClass().AllowedTopologies[0].MatchLabelExpressions[0].Values = nil
		}), wantPath: "storage_class.allowed_topologies[0].match_label_expressions[0].values", wantMsg: "Required value"},
		{name: "csi node without node id", obj: edit("csi node", func(o *berthv1.Object) { o.GetCsiNode().Drivers[1].NodeId = "" }),
			wantPath: "csi_node.drivers[1].node_id", wantMsg: "Required value"},
		{name: "csi node negative count", obj: edit("csi node", func(o *berthv1.Object) { o.GetCsiNode().Drivers[0].AllocatableCount = proto.Int32(-2) }),
			wantPath: "csi_node.drivers[0].allocatable_count", wantMsg: "must be greater than or equal to 0"},
		{name: "capacity negative", obj: edit("capacity", func(o *berthv1.Object) { o.GetCsiStorageCapacity().CapacityBytes = proto.Int64(-1) }),
			wantPath: "csi_storage_capacity.capacity_bytes", wantMsg: "must be greater than or equal to 0"},
		{name: "capacity without class", obj: edit("capacity", func(o *berthv1.Object) { o.GetCsiStorageCapacity().StorageClassName = "" }),
			wantPath: "csi_storage_capacity.storage_class_name", wantMsg: "Required value"},
		{name: "pod volume without source", obj: podObject(func(p *berthv1.Pod) { p.Volumes = []*berthv1.Volume{{Name: "d"}} }),
			wantPath: "pod.volumes[0]", wantMsg: "exactly one of"},
		{name: "pod volume duplicate", obj: podObject(func(p *berthv1.Pod) {
			v := &berthv1.Volume{Name: "d", Source: &berthv1.Volume_Other{Other: "emptyDir"}}
			p.Volumes = []*berthv1.Volume{v, v}
		}), wantPath: "pod.volumes[1].name", wantMsg: "duplicate"},
		{name: "pod claim without name", obj: podObject(func(p *berthv1.Pod) {
			p.Volumes = []*berthv1.Volume{{Name: "d", Source: &berthv1.Volume_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{}}}}
		}), wantPath: "pod.volumes[0].persistent_volume_claim.claim_name", wantMsg: "required"},
		{name: "pod ephemeral without access modes", obj: podObject(func(p *berthv1.Pod) {
			p.Volumes = []*berthv1.Volume{{Name: "d", Source: &berthv1.Volume_Ephemeral{Ephemeral: &berthv1.EphemeralVolumeSource{
				VolumeClaimTemplate: &berthv1.PersistentVolumeClaim{RequestBytes: 1}}}}}
		}), wantPath: "pod.volumes[0].ephemeral.volume_claim_template.access_modes", wantMsg: "at least 1 access mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ObjectFromProto(tc.obj)
			var fe *convert.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ObjectFromProto = %v, want a FieldError", err)
			}
			if fe.Path != tc.wantPath || !strings.Contains(fe.Reason, tc.wantMsg) {
				t.Errorf("got %s: %s, want %s: ...%s...", fe.Path, fe.Reason, tc.wantPath, tc.wantMsg)
			}
		})
	}
}
