package adminsvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/scheduler"
)

// Explain's diagnosis carries each node's volume reasons, in kube's words:
// a claim bound to a volume of another zone rejects both nodes for its
// node affinity; a missing claim rejects every node at once.
func TestExplainVolumeReasons(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var nodes []*model.Node
	for _, n := range []struct{ name, zone string }{{"n1", "zone-a"}, {"n2", "zone-b"}} {
		nodes = append(nodes, mt.MakeNode(n.name).Label(model.LabelHostname, n.name).Label(model.LabelZone, n.zone).Capacity(mt.Res(4000, 8*mt.Gi)).Obj())
	}
	e.load(t, nodes)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "disk-c"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			ClaimRef:               &corev1.ObjectReference{Namespace: "default", Name: "data"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "disk.csi.example.com", VolumeHandle: "disk-c"}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: model.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-c"}}},
			}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data", Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: "disk-c", StorageClassName: new(""),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	for _, o := range []any{pv, claim} {
		if err := e.sched.Upsert(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	withClaim := func(name, claim string) *model.Pod {
		p := pod(name, 100).Obj()
		p.Volumes = []model.PodVolume{{Name: "d", ClaimName: claim}}
		return p
	}
	e.load(t, nil, withClaim("db", "data"), withClaim("lost", "nowhere"))
	for range 2 {
		if att, err := e.sched.ScheduleOne(ctx); err != nil || att.Result != scheduler.ResultUnschedulable {
			t.Fatalf("ScheduleOne = %+v, %v", att, err)
		}
	}
	affinity := []string{"node(s) didn't match PersistentVolume's node affinity"}
	missing := []string{`persistentvolumeclaim "nowhere" not found`}
	tests := []struct {
		pod  string
		want []*berthv1.NodeReasons
	}{
		{"db", []*berthv1.NodeReasons{{Node: "n1", Reasons: affinity, Unresolvable: true}, {Node: "n2", Reasons: affinity, Unresolvable: true}}},
		{"lost", []*berthv1.NodeReasons{{Node: "n1", Reasons: missing, Unresolvable: true}, {Node: "n2", Reasons: missing, Unresolvable: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.pod, func(t *testing.T) {
			resp, err := e.client.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: tc.pod}})
			if err != nil {
				t.Fatal(err)
			}
			var got []*berthv1.NodeReasons
			for _, nr := range resp.GetLastDiagnosis().GetNodeReasons() {
				got = append(got, &berthv1.NodeReasons{Node: nr.GetNode(), Reasons: nr.GetReasons(), Unresolvable: nr.GetUnresolvable()})
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b *berthv1.NodeReasons) bool {
				return a.GetNode() == b.GetNode() && cmp.Equal(a.GetReasons(), b.GetReasons()) && a.GetUnresolvable() == b.GetUnresolvable()
			})); diff != "" {
				t.Errorf("node reasons (-want +got):\n%s\nmessage: %s", diff, resp.GetLastDiagnosis().GetMessage())
			}
		})
	}
}
