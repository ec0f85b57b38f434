package decisionlog

import (
	"encoding/json"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
)

// DeviceMetrics, if the Options' Metrics implement it, counts the claims
// allocated by Binds and deallocated (berth_dra_claim_allocations_total,
// berth_dra_claim_deallocations_total) and the devices allocated durably
// (berth_dra_allocated_devices).
type DeviceMetrics interface {
	ObserveClaimAllocations(n int)
	ObserveClaimDeallocations(n int)
	SetAllocatedDevices(n int)
}

func claimKeys(claims []*resourceapi.ResourceClaim) []string {
	keys := make([]string, len(claims))
	for i, c := range claims {
		keys[i] = podbook.ClaimKey(c)
	}
	return keys
}

// encodeClaim is a claim's value in store.Claims: Kubernetes' JSON of the
// claim, its owner (a template claim's pod) and status included.
func encodeClaim(c *resourceapi.ResourceClaim) ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("decisionlog: encode claim %s: %w", podbook.ClaimKey(c), err)
	}
	return b, nil
}

// claimOps adds the claims' puts to a Bind's batch.
func claimOps(b *store.Batch, claims []*resourceapi.ResourceClaim) error {
	for _, c := range claims {
		v, err := encodeClaim(c)
		if err != nil {
			return err
		}
		b.Put(store.Claims, []byte(podbook.ClaimKey(c)), v)
	}
	return nil
}

// bindWithClaimsDecision is a Bind carrying the claims' allocations.
func bindWithClaimsDecision(pod *model.Pod, node string, claims []*resourceapi.ResourceClaim, volumes []framework.VolumeBinding) *berthv1.Decision {
	d := bindDecision(pod, node)
	for _, c := range claims {
		d.GetBind().Claims = append(d.GetBind().Claims, convert.ClaimAllocationToProto(pod, c))
	}
	for _, v := range volumes {
		d.GetBind().Volumes = append(d.GetBind().Volumes, &berthv1.VolumeBinding{Claim: v.Claim, Volume: v.Volume, SelectedNode: v.SelectedNode})
	}
	return d
}

// deallocateDecision reports a claim freed: about its last consumer when
// it had one (or the pod it was made for), by no profile (claims belong to
// none).
func deallocateDecision(c *resourceapi.ResourceClaim, reason string) *berthv1.Decision {
	owner := metav1.GetControllerOf(c)
	d := &berthv1.Decision{Action: &berthv1.Decision_DeallocateClaim{DeallocateClaim: &berthv1.DeallocateClaim{
		Namespace: c.Namespace, Name: c.Name, Uid: string(c.UID),
		Allocation: convert.AllocationToProto(c.Status.Allocation), Reason: reason,
		ClaimDeleted: owner != nil && owner.Kind == "Pod",
	}}}
	switch {
	case len(c.Status.ReservedFor) == 1:
		r := c.Status.ReservedFor[0]
		d.Pod = &berthv1.PodRef{Namespace: c.Namespace, Name: r.Name, Uid: string(r.UID)}
	case owner != nil && owner.Kind == "Pod":
		d.Pod = &berthv1.PodRef{Namespace: c.Namespace, Name: owner.Name, Uid: string(owner.UID)}
	}
	return d
}
