package volumezone

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

func labelledVolume(name string, labels map[string]string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
	}
}

func boundClaim(name, pv, class string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	c.Spec.VolumeName = pv
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	return c
}

// TestVolumeZone: kube's PreFilter reasons and Filter verdicts, the beta
// labels of a volume matching the GA labels of a node, multi-zone values,
// and nodes without topology labels admitted.
func TestVolumeZone(t *testing.T) {
	tr := volume.NewTracker()
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	for _, o := range []any{
		labelledVolume("pv-a", map[string]string{corev1.LabelTopologyZone: "a"}),
		labelledVolume("pv-beta-b", map[string]string{corev1.LabelFailureDomainBetaZone: "b"}),
		labelledVolume("pv-ab", map[string]string{corev1.LabelTopologyZone: "a__b"}),
		labelledVolume("pv-plain", nil),
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "late"}, Provisioner: "p.example.com", VolumeBindingMode: &wffc},
		boundClaim("in-a", "pv-a", ""), boundClaim("in-beta-b", "pv-beta-b", ""), boundClaim("in-ab", "pv-ab", ""),
		boundClaim("plain", "pv-plain", ""), boundClaim("gone", "pv-gone", ""), boundClaim("late", "", "late"),
		boundClaim("no-class", "", ""), boundClaim("unknown-class", "", "nope"),
	} {
		if _, err := tr.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	pl, _ := New(context.Background(), nil, volumesHandle{t: tr})
	vz := pl.(*VolumeZone)
	nodes := []*framework.NodeInfo{
		framework.NewNodeInfo(&model.Node{Name: "a", Labels: map[string]string{corev1.LabelTopologyZone: "a"}}),
		framework.NewNodeInfo(&model.Node{Name: "b", Labels: map[string]string{corev1.LabelTopologyZone: "b"}}),
		framework.NewNodeInfo(&model.Node{Name: "bare"}),
	}
	for _, tc := range []struct {
		name, claim   string
		wantPreFilter string // "skip", a reason, or "" (then Filter runs)
		wantFit       []string
	}{
		{name: "zone a", claim: "in-a", wantFit: []string{"a", "bare"}},
		{name: "beta label", claim: "in-beta-b", wantFit: []string{"b", "bare"}},
		{name: "two zones", claim: "in-ab", wantFit: []string{"a", "b", "bare"}},
		{name: "no topology", claim: "plain", wantPreFilter: "skip"},
		{name: "wait for first consumer", claim: "late", wantPreFilter: "skip"},
		{name: "missing claim", claim: "nope", wantPreFilter: `persistentvolumeclaim "nope" not found`},
		{name: "missing volume", claim: "gone", wantPreFilter: `persistentvolume "pv-gone" not found`},
		{name: "unbound without class", claim: "no-class", wantPreFilter: "PersistentVolumeClaim had no pv name and storageClass name"},
		{name: "unknown class", claim: "unknown-class", wantPreFilter: `storageclass.storage.k8s.io "nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &model.Pod{Namespace: "default", Name: "p", Volumes: []model.PodVolume{{Name: "d", ClaimName: tc.claim}}}
			cs := framework.NewCycleState()
			_, st := vz.PreFilter(context.Background(), cs, pod, nil)
			switch tc.wantPreFilter {
			case "skip":
				if st.Code() != framework.Skip {
					t.Fatalf("PreFilter = %v, want Skip", st)
				}
				return
			case "":
				if !st.IsSuccess() {
					t.Fatalf("PreFilter = %v", st)
				}
			default:
				if st.Code() != framework.UnschedulableAndUnresolvable || !slices.Equal(st.Reasons(), []string{tc.wantPreFilter}) {
					t.Fatalf("PreFilter = %v %q, want %q", st.Code(), st.Reasons(), tc.wantPreFilter)
				}
				return
			}
			var fit []string
			for _, n := range nodes {
				st := vz.Filter(context.Background(), cs, pod, n)
				switch {
				case st.IsSuccess():
					fit = append(fit, n.Name())
				case !slices.Equal(st.Reasons(), []string{ErrReasonConflict}):
					t.Errorf("Filter(%s) = %q, want %q", n.Name(), st.Reasons(), ErrReasonConflict)
				}
			}
			if !slices.Equal(fit, tc.wantFit) {
				t.Errorf("fits %v, want %v", fit, tc.wantFit)
			}
		})
	}
}
