package volumebinding

import (
	"context"
	"slices"
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

func claim(name, volumeName, class string, bound bool) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: volumeName,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if class != "-" {
		c.Spec.StorageClassName = &class
	}
	if bound {
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, volume.AnnBindCompleted, "yes")
	}
	return c
}

func zonalVolume(name, zone string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
	}
}

func podWith(vols ...model.PodVolume) *model.Pod {
	return &model.Pod{Namespace: "default", Name: "p", UID: "uid-p", Volumes: vols}
}

// TestPreFilterAndFilter holds the plugin to kube's reasons: claims
// missing, lost, being deleted, not made for the pod, unbound with an
// Immediate class, bound to a missing volume or to one whose node
// affinity excludes the node.
func TestPreFilterAndFilter(t *testing.T) {
	tr := volume.NewTracker()
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	immediate := storagev1.VolumeBindingImmediate
	lost := claim("lost", "pv-x", "-", true)
	lost.Status.Phase = corev1.ClaimLost
	deleting := claim("deleting", "pv-a", "-", true)
	deleting.DeletionTimestamp = &metav1.Time{}
	for _, o := range []any{
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "late"}, Provisioner: "p.example.com", VolumeBindingMode: &wffc},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "now"}, Provisioner: "p.example.com", VolumeBindingMode: &immediate},
		zonalVolume("pv-a", "a"),
		claim("bound-a", "pv-a", "-", true),
		claim("bound-gone", "pv-gone", "-", true),
		claim("prebound", "pv-a", "now", false),
		claim("unbound-now", "", "now", false),
		claim("unbound-unknown-class", "", "nope", false),
		claim("unbound-late", "", "late", false),
		claim("p-scratch", "", "late", false), // not owned by the pod
		lost, deleting,
	} {
		if _, err := tr.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	pl, err := New(context.Background(), nil, volumesHandle{t: tr})
	if err != nil {
		t.Fatal(err)
	}
	vb := pl.(*VolumeBinding)
	nodeA := framework.NewNodeInfo(&model.Node{Name: "n-a", Labels: map[string]string{"zone": "a"}})
	nodeB := framework.NewNodeInfo(&model.Node{Name: "n-b", Labels: map[string]string{"zone": "b"}})
	for _, tc := range []struct {
		name          string
		pod           *model.Pod
		wantPreFilter string // reason, "skip" or ""
		wantA, wantB  string // Filter reasons, "" for success
	}{
		{name: "no claims", pod: podWith(model.PodVolume{Name: "tmp", Other: "emptyDir"}), wantPreFilter: "skip"},
		{name: "missing", pod: podWith(model.PodVolume{Name: "d", ClaimName: "nope"}), wantPreFilter: `persistentvolumeclaim "nope" not found`},
		{name: "ephemeral not made yet", pod: podWith(model.PodVolume{Name: "cache", ClaimName: "p-cache", Ephemeral: &model.ClaimTemplate{}}),
			wantPreFilter: `waiting for ephemeral volume controller to create the persistentvolumeclaim "p-cache"`},
		{name: "ephemeral not owned", pod: podWith(model.PodVolume{Name: "scratch", ClaimName: "p-scratch", Ephemeral: &model.ClaimTemplate{}}),
			wantPreFilter: "PVC default/p-scratch was not created for pod default/p (pod is not owner)"},
		{name: "lost", pod: podWith(model.PodVolume{Name: "d", ClaimName: "lost"}), wantPreFilter: `persistentvolumeclaim "lost" bound to non-existent persistentvolume "pv-x"`},
		{name: "deleting", pod: podWith(model.PodVolume{Name: "d", ClaimName: "deleting"}), wantPreFilter: `persistentvolumeclaim "deleting" is being deleted`},
		{name: "unbound immediate", pod: podWith(model.PodVolume{Name: "d", ClaimName: "unbound-now"}), wantPreFilter: ErrReasonUnboundImmediate},
		{name: "unknown class binds immediately", pod: podWith(model.PodVolume{Name: "d", ClaimName: "unbound-unknown-class"}), wantPreFilter: ErrReasonUnboundImmediate},
		{name: "prebound not completed", pod: podWith(model.PodVolume{Name: "d", ClaimName: "prebound"}), wantPreFilter: ErrReasonUnboundImmediate},
		{name: "wait for first consumer, provisioned anywhere", pod: podWith(model.PodVolume{Name: "d", ClaimName: "unbound-late"})},
		{name: "bound zonal", pod: podWith(model.PodVolume{Name: "d", ClaimName: "bound-a"}), wantB: ErrReasonNodeConflict},
		{name: "bound to a missing volume", pod: podWith(model.PodVolume{Name: "d", ClaimName: "bound-gone"}), wantA: ErrReasonPVNotExist, wantB: ErrReasonPVNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := framework.NewCycleState()
			_, st := vb.PreFilter(context.Background(), cs, tc.pod, nil)
			switch {
			case tc.wantPreFilter == "skip":
				if st.Code() != framework.Skip {
					t.Fatalf("PreFilter = %v, want Skip", st)
				}
				return
			case tc.wantPreFilter != "":
				if st.Code() != framework.UnschedulableAndUnresolvable || !slices.Equal(st.Reasons(), []string{tc.wantPreFilter}) {
					t.Fatalf("PreFilter = %v %q, want UnschedulableAndUnresolvable %q", st.Code(), st.Reasons(), tc.wantPreFilter)
				}
				return
			case !st.IsSuccess():
				t.Fatalf("PreFilter = %v", st)
			}
			for _, n := range []struct {
				ni   *framework.NodeInfo
				want string
			}{{nodeA, tc.wantA}, {nodeB, tc.wantB}} {
				st := vb.Filter(context.Background(), cs, tc.pod, n.ni)
				if n.want == "" {
					if !st.IsSuccess() {
						t.Errorf("Filter(%s) = %v, want success", n.ni.Name(), st)
					}
					continue
				}
				if st.Code() != framework.UnschedulableAndUnresolvable || !slices.Equal(st.Reasons(), []string{n.want}) {
					t.Errorf("Filter(%s) = %v %q, want %q", n.ni.Name(), st.Code(), st.Reasons(), n.want)
				}
			}
		})
	}
}

// TestClaimHint: only a claim of the pod's namespace that one of its
// volumes uses requeues it.
func TestClaimHint(t *testing.T) {
	pod := podWith(model.PodVolume{Name: "d", ClaimName: "data"})
	for _, tc := range []struct {
		name string
		c    *corev1.PersistentVolumeClaim
		want framework.QueueingHint
	}{
		{"the pod's claim", claim("data", "", "-", false), framework.Queue},
		{"another claim", claim("other", "", "-", false), framework.QueueSkip},
		{"another namespace", func() *corev1.PersistentVolumeClaim { c := claim("data", "", "-", false); c.Namespace = "x"; return c }(), framework.QueueSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := isSchedulableAfterClaimChange(pod, nil, tc.c)
			if err != nil || got != tc.want {
				t.Fatalf("hint = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
