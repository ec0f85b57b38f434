package decisionlog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
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

// claimBook is what the log wrote to store.Claims: the last version of
// each allocated claim, by "namespace/name". Writes of a claim are
// serialized (busy), so the store applies them in the order the book
// records them: a deallocation racing with the Bind of a new allocation
// of the same claim can never delete what that Bind wrote.
type claimBook struct {
	mu      sync.Mutex
	written map[string]*resourceapi.ResourceClaim
	busy    map[string]chan struct{}
	devices int // devices of the claims written, admin access aside
}

func newClaimBook() *claimBook {
	return &claimBook{written: map[string]*resourceapi.ResourceClaim{}, busy: map[string]chan struct{}{}}
}

// acquire waits until no write of any of keys is in progress and marks
// them busy; release undoes it.
func (cb *claimBook) acquire(ctx context.Context, keys []string) (release func(), err error) {
	cb.mu.Lock()
	for {
		var wait chan struct{}
		for _, k := range keys {
			if ch, ok := cb.busy[k]; ok {
				wait = ch
				break
			}
		}
		if wait == nil {
			break
		}
		cb.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		cb.mu.Lock()
	}
	done := make(chan struct{})
	for _, k := range keys {
		cb.busy[k] = done
	}
	cb.mu.Unlock()
	return func() {
		cb.mu.Lock()
		for _, k := range keys {
			delete(cb.busy, k)
		}
		cb.mu.Unlock()
		close(done)
	}, nil
}

// current reports whether freed is the allocation the book holds for its
// claim (or the book holds none): a deallocation of anything else is
// stale, a later Bind having allocated the claim anew.
func (cb *claimBook) current(freed *resourceapi.ResourceClaim) bool {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	w, ok := cb.written[claimKey(freed)]
	if !ok {
		return true
	}
	if w.UID != freed.UID || !equality.Semantic.DeepEqual(w.Status.Allocation, freed.Status.Allocation) {
		return false
	}
	for _, r := range freed.Status.ReservedFor {
		if !slices.ContainsFunc(w.Status.ReservedFor, func(x resourceapi.ResourceClaimConsumerReference) bool { return x.UID == r.UID }) {
			return false
		}
	}
	return true
}

// put records c as written; it returns whether it is a new allocation.
func (cb *claimBook) put(c *resourceapi.ResourceClaim) (allocated bool) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	key := claimKey(c)
	old, ok := cb.written[key]
	if ok {
		cb.devices -= devicesOf(old)
	}
	cb.written[key] = c
	cb.devices += devicesOf(c)
	return !ok || old.UID != c.UID || !equality.Semantic.DeepEqual(old.Status.Allocation, c.Status.Allocation)
}

func (cb *claimBook) remove(key string) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if old, ok := cb.written[key]; ok {
		cb.devices -= devicesOf(old)
		delete(cb.written, key)
	}
}

func (cb *claimBook) allocatedDevices() int {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.devices
}

// devicesOf counts the devices an allocated claim takes.
func devicesOf(c *resourceapi.ResourceClaim) int {
	if c.Status.Allocation == nil {
		return 0
	}
	n := 0
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.AdminAccess == nil || !*r.AdminAccess {
			n++
		}
	}
	return n
}

func claimKey(c *resourceapi.ResourceClaim) string { return c.Namespace + "/" + c.Name }

func claimKeys(claims []*resourceapi.ResourceClaim) []string {
	keys := make([]string, len(claims))
	for i, c := range claims {
		keys[i] = claimKey(c)
	}
	return keys
}

// encodeClaim is a claim's value in store.Claims: Kubernetes' JSON of the
// claim, its owner (a template claim's pod) and status included.
func encodeClaim(c *resourceapi.ResourceClaim) ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("decisionlog: encode claim %s: %w", claimKey(c), err)
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
		b.Put(store.Claims, []byte(claimKey(c)), v)
	}
	return nil
}

// ForgetClaim drops the durable copy of a claim the orchestrator deleted
// (its devices are free; no decision is written). claim is the version
// the scheduler held; a copy written since for a new allocation stays.
func (l *Log) ForgetClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	release, err := l.claims.acquire(ctx, []string{claimKey(claim)})
	if err != nil {
		return err
	}
	defer release()
	if !l.claims.current(claim) {
		return nil
	}
	var b store.Batch
	b.Delete(store.Claims, []byte(claimKey(claim)))
	if _, err := l.store.Commit(ctx, &b); err != nil {
		return fmt.Errorf("decisionlog: forget claim %s: %w", claimKey(claim), err)
	}
	l.claims.remove(claimKey(claim))
	if m, ok := l.opts.Metrics.(DeviceMetrics); ok {
		m.SetAllocatedDevices(l.claims.allocatedDevices())
	}
	return nil
}

// RecoverClaims reads the allocated claims back from store.Claims after a
// restart, for the scheduler's RestoreClaims before the re-list.
func (l *Log) RecoverClaims() ([]*resourceapi.ResourceClaim, error) {
	kvs, err := l.store.List(store.Claims)
	if err != nil {
		return nil, fmt.Errorf("decisionlog: recover claims: %w", err)
	}
	out := make([]*resourceapi.ResourceClaim, 0, len(kvs))
	for _, kv := range kvs {
		c := new(resourceapi.ResourceClaim)
		if err := json.Unmarshal(kv.Value, c); err != nil {
			return nil, fmt.Errorf("decisionlog: claim %s: %w: %w", kv.Key, store.ErrCorrupt, err)
		}
		if claimKey(c) != string(kv.Key) {
			return nil, fmt.Errorf("decisionlog: claim stored under %s is %s: %w", kv.Key, claimKey(c), store.ErrCorrupt)
		}
		l.claims.put(c)
		out = append(out, c)
	}
	if m, ok := l.opts.Metrics.(DeviceMetrics); ok {
		m.SetAllocatedDevices(l.claims.allocatedDevices())
	}
	return out, nil
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
