package scheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestExplainVolumes: Explain lists the pod's claims with their state — a
// claim bound, one whose volume the pod's Bind chose, one to provision on
// the pod's node, one missing — in the order of the pod's volumes.
func TestExplainVolumes(t *testing.T) {
	e, _ := draEnv(t)
	ctx := context.Background()
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	claim := func(name, class, volumeName string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class, VolumeName: volumeName, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
	}
	pv := func(name, class string, claimRef *corev1.ObjectReference) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
			StorageClassName: class, ClaimRef: claimRef, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/d"}},
		}, Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable}}
	}
	bound := claim("bound", "local", "pv-bound")
	metav1.SetMetaDataAnnotation(&bound.ObjectMeta, "pv.kubernetes.io/bind-completed", "yes")
	for _, obj := range []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wffc},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "dynamic"}, Provisioner: "disk.csi.example.com", VolumeBindingMode: &wffc},
		pv("pv-bound", "local", &corev1.ObjectReference{Namespace: "default", Name: "bound"}),
		pv("pv-free", "local", nil),
		bound, claim("static", "local", ""), claim("dynamic", "dynamic", ""),
	} {
		if err := e.s.Upsert(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	pod := mt.MakePod("db").UID("db").Obj()
	for _, c := range []string{"bound", "static", "dynamic", "missing"} {
		pod.Volumes = append(pod.Volumes, model.PodVolume{Name: "v-" + c, ClaimName: c})
	}
	e.addPods(pod)
	ex, err := e.s.View().Explain("default", "db")
	if err != nil {
		t.Fatal(err)
	}
	// Before its attempt: nothing chosen, one claim missing.
	if got := ex.Volumes[3]; got.Found || got.Claim != "default/missing" {
		t.Errorf("missing claim: %+v", got)
	}
	if err := e.s.Upsert(ctx, claim("missing", "dynamic", "")); err != nil {
		t.Fatal(err)
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Fatalf("attempt: %s %s", att.Result, att.Message)
	}
	ex, err = e.s.View().Explain("default", "db")
	if err != nil {
		t.Fatal(err)
	}
	node := ex.Node
	want := []ClaimVolume{
		{Name: "v-bound", Claim: "default/bound", Found: true, Class: "local", RequestBytes: 1 << 30, BoundTo: "pv-bound"},
		{Name: "v-static", Claim: "default/static", Found: true, Class: "local", RequestBytes: 1 << 30, Chosen: "pv-free"},
		{Name: "v-dynamic", Claim: "default/dynamic", Found: true, Class: "dynamic", RequestBytes: 1 << 30, SelectedNode: node},
		{Name: "v-missing", Claim: "default/missing", Found: true, Class: "dynamic", RequestBytes: 1 << 30, SelectedNode: node},
	}
	if diff := cmp.Diff(want, ex.Volumes); diff != "" || node == "" {
		t.Errorf("volumes on %q (-want +got):\n%s", node, diff)
	}
}
