package podbook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/berthsched/berth/store"
)

// claimBook is what the decision log wrote to store.Claims: the last
// version of each allocated claim, by "namespace/name". Writes of a claim
// are serialized (busy), so the store applies them in the order the book
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

// HoldClaims waits until no write of any of the claims keys names
// (ClaimKey) is in progress and holds them; release lets them go. The
// decision log holds a plan's claims across its commit.
func (l *Book) HoldClaims(ctx context.Context, keys []string) (release func(), err error) {
	cb := l.claims
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

// ClaimCurrent reports whether freed is the allocation the book holds for
// its claim (or the book holds none): a deallocation of anything else is
// stale, a later Bind having allocated the claim anew.
func (l *Book) ClaimCurrent(freed *resourceapi.ResourceClaim) bool {
	cb := l.claims
	cb.mu.Lock()
	defer cb.mu.Unlock()
	w, ok := cb.written[ClaimKey(freed)]
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

// ClaimsWritten records claims as written durably (by a Bind); it
// returns how many are new allocations.
func (l *Book) ClaimsWritten(claims []*resourceapi.ResourceClaim) (allocated int) {
	for _, c := range claims {
		if l.claims.put(c) {
			allocated++
		}
	}
	return allocated
}

// ClaimRemoved records the claim's durable copy gone (a durable
// DeallocateClaim, or the claim deleted).
func (l *Book) ClaimRemoved(key string) { l.claims.remove(key) }

// AllocatedDevices counts the devices of the claims allocated durably,
// admin access aside.
func (l *Book) AllocatedDevices() int {
	l.claims.mu.Lock()
	defer l.claims.mu.Unlock()
	return l.claims.devices
}

// put records c as written; it returns whether it is a new allocation.
func (cb *claimBook) put(c *resourceapi.ResourceClaim) (allocated bool) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	key := ClaimKey(c)
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

// ClaimKey is a claim's key in store.Claims and in the book.
func ClaimKey(c *resourceapi.ResourceClaim) string { return c.Namespace + "/" + c.Name }

// ForgetClaim drops the durable copy of a claim the orchestrator deleted
// (its devices are free; no decision is written). claim is the version
// the scheduler held; a copy written since for a new allocation stays.
func (l *Book) ForgetClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	key := ClaimKey(claim)
	release, err := l.HoldClaims(ctx, []string{key})
	if err != nil {
		return err
	}
	defer release()
	if !l.ClaimCurrent(claim) {
		return nil
	}
	var b store.Batch
	b.Delete(store.Claims, []byte(key))
	if _, err := l.store.Commit(ctx, &b); err != nil {
		return fmt.Errorf("podbook: forget claim %s: %w", key, err)
	}
	l.claims.remove(key)
	l.opts.SetAllocatedDevices(l.AllocatedDevices())
	return nil
}

// readClaims reads the allocated claims back from store.Claims.
func readClaims(st Lister) ([]*resourceapi.ResourceClaim, error) {
	kvs, err := st.List(store.Claims)
	if err != nil {
		return nil, fmt.Errorf("podbook: restore claims: %w", err)
	}
	out := make([]*resourceapi.ResourceClaim, 0, len(kvs))
	for _, kv := range kvs {
		c := new(resourceapi.ResourceClaim)
		if err := json.Unmarshal(kv.Value, c); err != nil {
			return nil, fmt.Errorf("podbook: claim %s: %w: %w", kv.Key, store.ErrCorrupt, err)
		}
		if ClaimKey(c) != string(kv.Key) {
			return nil, fmt.Errorf("podbook: claim stored under %s is %s: %w", kv.Key, ClaimKey(c), store.ErrCorrupt)
		}
		out = append(out, c)
	}
	return out, nil
}
