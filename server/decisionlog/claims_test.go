package decisionlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// allocated is claim ns/name allocated device dev of pool n1, reserved
// for the pods given.
func allocated(name, dev string, consumers ...*model.Pod) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("claim-" + name)}}
	c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: dev},
	}}}
	for _, p := range consumers {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: types.UID(p.UID)})
	}
	return c
}

func claimsHeld(t *testing.T, st store.Store) []string {
	t.Helper()
	kvs, err := st.List(store.Claims)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	return out
}

// A Bind with claims carries their allocations and keeps the claims
// durably until they are deallocated; a restart reads them back.
func TestBindWithClaimsAndDeallocate(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, bboltstore.Options{})
	l := New(st, Options{})
	p := pod("a")
	p.ResourceClaims = []model.PodResourceClaim{{Name: "g", ClaimName: "c1"}}
	c1 := allocated("c1", "gpu-0", p)
	if err := l.BindWithClaims(t.Context(), p, "n1", []*resourceapi.ResourceClaim{c1}); err != nil {
		t.Fatal(err)
	}
	want := &berthv1.Decision{Revision: 1, SchedulerName: "default-scheduler", Pod: ref("a"), Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{
		Node: "n1", Claims: []*berthv1.ClaimAllocation{{
			Namespace: "ns", Name: "c1", Uid: "claim-c1", PodClaimNames: []string{"g"},
			Allocation: &berthv1.AllocationResult{Devices: []*berthv1.DeviceRequestAllocationResult{
				{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"},
			}},
			ReservedFor: []*berthv1.ResourceClaimConsumer{{Name: "a", Uid: "uid-a"}},
		}},
	}}}
	got := readAll(t, st)
	if diff := cmp.Diff([]*berthv1.Decision{want}, got, protocmp.Transform(), protocmp.IgnoreFields(&berthv1.Decision{}, "time")); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ns/c1"}, claimsHeld(t, st)); diff != "" {
		t.Errorf("claims kept (-want +got):\n%s", diff)
	}

	// Restart: the claim comes back as it was bound.
	l, st = reopen(t, l, st, dir)
	facts, err := l.Book().Restore(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	back := facts.Claims
	if diff := cmp.Diff([]*resourceapi.ResourceClaim{c1}, back); diff != "" {
		t.Errorf("recovered claims (-want +got):\n%s", diff)
	}

	if err := l.DeallocateClaims(t.Context(), back, "the last pod using the claim is gone"); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, st)
	wantDealloc := &berthv1.Decision{Revision: 2, Pod: ref("a"), Action: &berthv1.Decision_DeallocateClaim{DeallocateClaim: &berthv1.DeallocateClaim{
		Namespace: "ns", Name: "c1", Uid: "claim-c1", Reason: "the last pod using the claim is gone",
		Allocation: want.GetBind().GetClaims()[0].GetAllocation(),
	}}}
	if diff := cmp.Diff(wantDealloc, all[len(all)-1], protocmp.Transform(), protocmp.IgnoreFields(&berthv1.Decision{}, "time")); diff != "" {
		t.Errorf("deallocation (-want +got):\n%s", diff)
	}
	if got := TypeOf(all[len(all)-1]); got != berthv1.DecisionType_DECISION_TYPE_DEALLOCATE_CLAIM {
		t.Errorf("TypeOf = %v", got)
	}
	if held := claimsHeld(t, st); len(held) != 0 {
		t.Errorf("claims kept after deallocation: %v", held)
	}
}

// A deallocation that arrives after a later Bind allocated the claim anew
// (to another pod) writes nothing: deleting the claim would free devices
// the new Bind holds after a restart.
func TestStaleDeallocationKeepsNewAllocation(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	a, b := pod("a"), pod("b")
	old := allocated("c", "gpu-0", a)
	if err := l.BindWithClaims(t.Context(), a, "n1", []*resourceapi.ResourceClaim{old}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		next *resourceapi.ResourceClaim
	}{
		{"other device", allocated("c", "gpu-1", b)},
		{"same device", allocated("c", "gpu-0", b)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := l.BindWithClaims(t.Context(), b, "n1", []*resourceapi.ResourceClaim{tc.next}); err != nil {
				t.Fatal(err)
			}
			before := len(readAll(t, st))
			if err := l.DeallocateClaims(t.Context(), []*resourceapi.ResourceClaim{old}, "gone"); err != nil {
				t.Fatal(err)
			}
			if after := len(readAll(t, st)); after != before {
				t.Errorf("a stale deallocation wrote %d decisions", after-before)
			}
			if diff := cmp.Diff([]string{"ns/c"}, claimsHeld(t, st)); diff != "" {
				t.Errorf("claims kept (-want +got):\n%s", diff)
			}
		})
	}
}

// A shared claim losing one of two consumers is still current for its
// last one: deallocating it then deletes it.
func TestSharedClaimDeallocatedByLastConsumer(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	a, b := pod("a"), pod("b")
	if err := l.BindWithClaims(t.Context(), a, "n1", []*resourceapi.ResourceClaim{allocated("c", "gpu-0", a)}); err != nil {
		t.Fatal(err)
	}
	if err := l.BindWithClaims(t.Context(), b, "n1", []*resourceapi.ResourceClaim{allocated("c", "gpu-0", a, b)}); err != nil {
		t.Fatal(err)
	}
	if got := l.book.AllocatedDevices(); got != 1 {
		t.Errorf("allocated devices = %d, want 1", got)
	}
	// a went without a decision; b's deletion frees the claim.
	if err := l.DeallocateClaims(t.Context(), []*resourceapi.ResourceClaim{allocated("c", "gpu-0", b)}, "gone"); err != nil {
		t.Fatal(err)
	}
	if held := claimsHeld(t, st); len(held) != 0 {
		t.Errorf("claims kept: %v", held)
	}
	if got := l.book.AllocatedDevices(); got != 0 {
		t.Errorf("allocated devices = %d, want 0", got)
	}
}

// A template claim is deleted with its pod: the decision says so and
// names the pod.
func TestDeallocateTemplateClaim(t *testing.T) {
	c := allocated("p-g-abcde", "gpu-0")
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "uid-p", Controller: new(true)}}
	d := deallocateDecision(c, "gone")
	if !d.GetDeallocateClaim().GetClaimDeleted() || !cmp.Equal(d.GetPod(), ref("p"), protocmp.Transform()) {
		t.Errorf("decision = %v", d)
	}
}
