package nodevolumelimits

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

type volumesHandle struct {
	framework.Handle
	t *volume.Tracker
}

func (h volumesHandle) Volumes() *volume.Tracker { return h.t }

const driver = "disk.csi.example.com"

func csiVolume(name string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name}},
		},
	}
}

func boundClaim(name, pv string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv}}
}

func podUsing(name string, claims ...string) *model.Pod {
	p := &model.Pod{Namespace: "default", Name: name, UID: "uid-" + name}
	for i, c := range claims {
		p.Volumes = append(p.Volumes, model.PodVolume{Name: string(rune('a' + i)), ClaimName: c})
	}
	return p
}

// TestFilter: a node takes no more of a driver's volumes than its CSINode
// allows; a volume already used on the node counts once; unbound claims
// count as their provisioner's; a driver that asks for it must be on the
// node (VolumeLimitScaling).
func TestFilter(t *testing.T) {
	tr := volume.NewTracker()
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	objs := []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "disk"}, Provisioner: driver, VolumeBindingMode: &wffc},
		&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: driver, NodeID: "n1", Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(2))}},
		}}},
		&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "picky.csi.example.com"}, Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: new(true)}},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "picky"}, Provisioner: "picky.csi.example.com", VolumeBindingMode: &wffc},
	}
	for _, n := range []string{"v1", "v2", "v3"} {
		objs = append(objs, csiVolume(n), boundClaim("c-"+n, n))
	}
	unbound := boundClaim("c-new", "")
	unbound.Spec.StorageClassName = new("disk")
	picky := boundClaim("c-picky", "")
	picky.Spec.StorageClassName = new("picky")
	objs = append(objs, unbound, picky)
	for _, o := range objs {
		if _, err := tr.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	pl, _ := New(context.Background(), nil, volumesHandle{t: tr})
	f := pl.(*CSILimits)
	running := podUsing("running", "c-v1")
	running.NodeName = "n1"
	pi, err := framework.NewPodInfo(running)
	if err != nil {
		t.Fatal(err)
	}
	n1 := framework.NewNodeInfo(&model.Node{Name: "n1"}, pi)
	bare := framework.NewNodeInfo(&model.Node{Name: "n2"})
	for _, tc := range []struct {
		name    string
		pod     *model.Pod
		node    *framework.NodeInfo
		want    framework.Code
		message string
	}{
		{name: "one more fits", pod: podUsing("p", "c-v2"), node: n1, want: framework.Success},
		{name: "two more exceed", pod: podUsing("p", "c-v2", "c-v3"), node: n1, want: framework.Unschedulable, message: ErrReasonMaxVolumeCountExceeded},
		{name: "the shared volume counts once", pod: podUsing("p", "c-v1", "c-v2"), node: n1, want: framework.Success},
		{name: "an unbound claim counts", pod: podUsing("p", "c-v2", "c-new"), node: n1, want: framework.Unschedulable, message: ErrReasonMaxVolumeCountExceeded},
		{name: "no CSINode, no limit", pod: podUsing("p", "c-v2", "c-v3", "c-new"), node: bare, want: framework.Success},
		{name: "a driver missing from the node", pod: podUsing("p", "c-picky"), node: bare, want: framework.Unschedulable, message: "picky.csi.example.com CSI driver is not installed on the node"},
		{name: "a missing claim", pod: podUsing("p", "nope"), node: n1, want: framework.UnschedulableAndUnresolvable,
			message: `looking up PVC default/nope: persistentvolumeclaim "nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := framework.NewCycleState()
			if _, st := f.PreFilter(context.Background(), cs, tc.pod, nil); !st.IsSuccess() {
				t.Fatalf("PreFilter = %v", st)
			}
			st := f.Filter(context.Background(), cs, tc.pod, tc.node)
			if st.Code() != tc.want || (tc.message != "" && st.Message() != tc.message) {
				t.Errorf("Filter = %v %q, want %v %q", st.Code(), st.Message(), tc.want, tc.message)
			}
		})
	}
}
