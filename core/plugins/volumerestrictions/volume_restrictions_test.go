package volumerestrictions

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
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

func claimWith(name string, mode corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{mode}}}
}

func podUsing(name, claim string) *model.Pod {
	return &model.Pod{Namespace: "default", Name: name, UID: "uid-" + name, Volumes: []model.PodVolume{{Name: "d", ClaimName: claim}}}
}

// TestReadWriteOncePod: a claim in use by a pod on some node rejects every
// node; removing that pod (a preemption's dry run) frees it; claims of
// other modes, and unused ones, Skip.
func TestReadWriteOncePod(t *testing.T) {
	tr := volume.NewTracker()
	for _, c := range []*corev1.PersistentVolumeClaim{claimWith("once", corev1.ReadWriteOncePod), claimWith("free", corev1.ReadWriteOncePod), claimWith("many", corev1.ReadWriteMany)} {
		if _, err := tr.Set(c); err != nil {
			t.Fatal(err)
		}
	}
	pl, _ := New(context.Background(), nil, volumesHandle{t: tr})
	vr := pl.(*VolumeRestrictions)
	user := podUsing("user", "once")
	pi, err := framework.NewPodInfo(user)
	if err != nil {
		t.Fatal(err)
	}
	node := framework.NewNodeInfo(&model.Node{Name: "n1"}, pi)
	nodes := []*framework.NodeInfo{node, framework.NewNodeInfo(&model.Node{Name: "n2"})}
	ctx := context.Background()

	for _, claim := range []string{"free", "many"} {
		if _, st := vr.PreFilter(ctx, framework.NewCycleState(), podUsing("p", claim), nodes); st.Code() != framework.Skip {
			t.Errorf("claim %s: PreFilter = %v, want Skip", claim, st)
		}
	}
	if _, st := vr.PreFilter(ctx, framework.NewCycleState(), podUsing("p", "nope"), nodes); st.Code() != framework.UnschedulableAndUnresolvable ||
		st.Message() != `persistentvolumeclaim "nope" not found` {
		t.Errorf("missing claim: PreFilter = %v", st)
	}
	cs := framework.NewCycleState()
	pod := podUsing("p", "once")
	if _, st := vr.PreFilter(ctx, cs, pod, nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter = %v", st)
	}
	for _, n := range nodes {
		if st := vr.Filter(ctx, cs, pod, n); st.Code() != framework.Unschedulable || st.Message() != ErrReasonReadWriteOncePodConflict {
			t.Errorf("Filter(%s) = %v, want the ReadWriteOncePod conflict", n.Name(), st)
		}
	}
	dry := cs.Clone()
	if st := vr.RemovePod(ctx, dry, pod, pi, node); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := vr.Filter(ctx, dry, pod, node); !st.IsSuccess() {
		t.Errorf("after removing the user: Filter = %v, want success", st)
	}
	if st := vr.Filter(ctx, cs, pod, node); st.IsSuccess() {
		t.Errorf("the dry run changed the cycle's state")
	}
	if st := vr.AddPod(ctx, dry, pod, pi, node); !st.IsSuccess() || vr.Filter(ctx, dry, pod, node).IsSuccess() {
		t.Errorf("adding the user back: the claim is free")
	}
}
