package volume

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAssume: a volume reserved for a claim is seen bound to it, is never
// promised to a second claim, is free again once the pod is forgotten,
// and the assumption ends when the orchestrator sends the volume bound; a
// claim to provision is seen with its selected node.
func TestAssume(t *testing.T) {
	tr := NewTracker()
	for _, o := range []any{pv(nil), pvc(nil), pvc(func(c *corev1.PersistentVolumeClaim) { c.Name = "other" }),
		pvc(func(c *corev1.PersistentVolumeClaim) { c.Name = "dynamic" })} {
		if _, err := tr.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := tr.Claim("default", "data")
	other, _ := tr.Claim("default", "other")
	dynamic, _ := tr.Claim("default", "dynamic")
	if err := tr.AssumePod("uid-a", "n1", []Binding{{Claim: data, Volume: "pv1"}, {Claim: dynamic}}); err != nil {
		t.Fatal(err)
	}
	if v, _ := tr.Volume("pv1"); !BoundToClaim(v, data) {
		t.Errorf("pv1 after Reserve: claimRef %v, want default/data", v.Spec.ClaimRef)
	}
	if c, _ := tr.Claim("default", "dynamic"); c.Annotations[AnnSelectedNode] != "n1" {
		t.Errorf("dynamic after Reserve: annotations %v, want the selected node n1", c.Annotations)
	}
	if got := tr.PodBindings("uid-a"); len(got) != 2 || got[0].Volume != "pv1" || got[1].SelectedNode != "n1" {
		t.Errorf("PodBindings = %+v", got)
	}
	err := tr.AssumePod("uid-b", "n1", []Binding{{Claim: other, Volume: "pv1"}})
	if err == nil || !strings.Contains(err.Error(), `persistentvolume "pv1" is reserved for claim default/data`) {
		t.Errorf("second claim on pv1: %v", err)
	}
	if err := tr.AssumePod("uid-c", "n1", []Binding{{Claim: data, Volume: "pv1"}}); err != nil {
		t.Errorf("the same claim again (a pod sharing it): %v", err)
	}
	tr.ForgetPod("uid-a")
	if v, _ := tr.Volume("pv1"); !BoundToClaim(v, data) {
		t.Errorf("pv1 after one of its two pods is forgotten: claimRef %v, want default/data still", v.Spec.ClaimRef)
	}
	tr.ForgetPod("uid-c")
	if v, _ := tr.Volume("pv1"); v.Spec.ClaimRef != nil {
		t.Errorf("pv1 after ForgetPod: claimRef %v, want none", v.Spec.ClaimRef)
	}
	if c, _ := tr.Claim("default", "dynamic"); metav1.HasAnnotation(c.ObjectMeta, AnnSelectedNode) {
		t.Errorf("dynamic after ForgetPod still has a selected node")
	}
	if err := tr.AssumePod("uid-b", "n1", []Binding{{Claim: other, Volume: "pv1"}}); err != nil {
		t.Fatalf("pv1 freed, other claim: %v", err)
	}
	bound := pv(func(v *corev1.PersistentVolume) {
		v.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "other"}
	})
	if _, err := tr.Set(bound); err != nil {
		t.Fatal(err)
	}
	tr.ForgetPod("uid-b") // the orchestrator's version is what stays
	if v, _ := tr.Volume("pv1"); !BoundToClaim(v, other) {
		t.Errorf("pv1 sent bound then pod forgotten: claimRef %v, want default/other", v.Spec.ClaimRef)
	}
}

// TestRestorePod: bindings restored after a restart, before the objects
// are sent again, are assumed as the objects arrive: a volume arriving
// unbound stays reserved for its claim (never promised to a second one),
// a claim to provision keeps its node, a volume arriving bound already
// (the bind was carried out) is taken as sent, and ForgetPod (the bind
// failed) frees them and names what it freed.
func TestRestorePod(t *testing.T) {
	stub := func(name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	}
	tr := NewTracker()
	tr.RestorePod("uid-a", []Binding{{Claim: stub("data"), Volume: "pv1"}, {Claim: stub("dynamic"), SelectedNode: "n1"}})
	tr.RestorePod("uid-b", []Binding{{Claim: stub("done"), Volume: "pv2"}})
	if got := tr.Pods(); len(got) != 2 || got[0] != "uid-a" || got[1] != "uid-b" {
		t.Errorf("Pods = %v, want uid-a and uid-b", got)
	}
	boundToDone := pv(func(v *corev1.PersistentVolume) {
		v.Name = "pv2"
		v.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "done"}
	})
	for _, o := range []any{pv(nil), boundToDone, pvc(nil), pvc(func(c *corev1.PersistentVolumeClaim) { c.Name = "other" }),
		pvc(func(c *corev1.PersistentVolumeClaim) { c.Name = "dynamic" })} {
		if _, err := tr.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := tr.Claim("default", "data")
	other, _ := tr.Claim("default", "other")
	if v, _ := tr.Volume("pv1"); !BoundToClaim(v, data) {
		t.Errorf("pv1 re-sent unbound: claimRef %v, want default/data (restored)", v.Spec.ClaimRef)
	}
	if c, _ := tr.Claim("default", "dynamic"); c.Annotations[AnnSelectedNode] != "n1" {
		t.Errorf("dynamic re-sent: annotations %v, want the restored selected node n1", c.Annotations)
	}
	if v, _ := tr.Volume("pv2"); v.Spec.ClaimRef.Name != "done" {
		t.Errorf("pv2 re-sent bound: claimRef %v, want default/done as sent", v.Spec.ClaimRef)
	}
	err := tr.AssumePod("uid-c", "n1", []Binding{{Claim: other, Volume: "pv1"}})
	if err == nil || !strings.Contains(err.Error(), `persistentvolume "pv1" is reserved for claim default/data`) {
		t.Errorf("second claim on the restored pv1: %v", err)
	}
	released := tr.ForgetPod("uid-a")
	if len(released) != 2 {
		t.Errorf("ForgetPod released %d objects, want pv1 and dynamic", len(released))
	}
	if v, _ := tr.Volume("pv1"); v.Spec.ClaimRef != nil {
		t.Errorf("pv1 after the restored bind failed: claimRef %v, want none", v.Spec.ClaimRef)
	}
	if c, _ := tr.Claim("default", "dynamic"); metav1.HasAnnotation(c.ObjectMeta, AnnSelectedNode) {
		t.Errorf("dynamic after the restored bind failed still has a selected node")
	}
	if err := tr.AssumePod("uid-c", "n1", []Binding{{Claim: other, Volume: "pv1"}}); err != nil {
		t.Errorf("pv1 freed, other claim: %v", err)
	}
	// A restored binding whose pod is forgotten before its volume arrives
	// is not assumed when it does.
	tr2 := NewTracker()
	tr2.RestorePod("uid-a", []Binding{{Claim: stub("data"), Volume: "pv1"}})
	tr2.ForgetPod("uid-a")
	if _, err := tr2.Set(pv(nil)); err != nil {
		t.Fatal(err)
	}
	if v, _ := tr2.Volume("pv1"); v.Spec.ClaimRef != nil {
		t.Errorf("pv1 arriving after its restored pod was forgotten: claimRef %v, want none", v.Spec.ClaimRef)
	}
}
