package dra

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Explain says why claims (a pod's, in entry order) cannot all be
// allocated on node now, one sentence per claim or request that fails:
// a claim allocated on devices the node cannot use; a request that no
// device of the node matches, or whose matching devices are in use; a
// claim whose requests fit one by one but not together (its constraints,
// or devices its requests compete for); claims that fit one by one but
// not together. Nothing when they all fit. It is for people (explain),
// not for scheduling: it allocates each claim and request on its own.
func (t *Tracker) Explain(ctx context.Context, claims []*resourceapi.ResourceClaim, node *corev1.Node) []string {
	t.mu.Lock()
	snap, inUse := t.snapshotLocked()
	t.mu.Unlock()
	free := AllocatedState(nil)
	fits := func(st *structured.AllocatedState, cs ...*resourceapi.ResourceClaim) (bool, string) {
		a, err := NewAllocator(ctx, snap, st, t.cel, nil, Shortcuts{}, cs)
		if err != nil {
			return false, err.Error()
		}
		_, reason, err := a.AllocateOnNode(ctx, node)
		if err != nil {
			return false, err.Error()
		}
		return reason == "", reason
	}
	var pending []*resourceapi.ResourceClaim
	var why []string
	for _, c := range claims {
		switch {
		case c.Status.Allocation != nil:
			if !usableOn(c.Status.Allocation.NodeSelector, node) {
				why = append(why, fmt.Sprintf("claim %s is allocated on devices this node cannot use", Key(c.Namespace, c.Name)))
			}
		case !contains(pending, c):
			pending = append(pending, c)
		}
	}
	if len(pending) == 0 {
		return why
	}
	if ok, _ := fits(inUse, pending...); ok {
		return why
	}
	alone := 0
	for _, c := range pending {
		key := Key(c.Namespace, c.Name)
		if ok, _ := fits(inUse, c); ok {
			alone++
			continue
		}
		failed := false
		for _, r := range c.Spec.Devices.Requests {
			one := c.DeepCopy()
			one.Spec.Devices.Requests = []resourceapi.DeviceRequest{r}
			one.Spec.Devices.Constraints = nil
			if ok, _ := fits(inUse, one); ok {
				continue
			}
			failed = true
			if ok, _ := fits(free, one); ok {
				why = append(why, fmt.Sprintf("claim %s, request %s: the devices matching it are in use", key, r.Name))
			} else {
				why = append(why, fmt.Sprintf("claim %s, request %s: not enough devices on the node match it", key, r.Name))
			}
		}
		if !failed {
			why = append(why, fmt.Sprintf("claim %s: its requests fit one by one, not together (constraints, or devices they compete for)", key))
		}
	}
	if alone == len(pending) {
		why = append(why, "each claim fits alone, not all together (devices they compete for)")
	}
	return why
}

// usableOn reports whether an allocation's node selector admits node.
func usableOn(sel *corev1.NodeSelector, node *corev1.Node) bool {
	if sel == nil {
		return true
	}
	ns, err := nodeaffinity.NewNodeSelector(sel)
	return err == nil && ns.Match(node)
}

func contains(cs []*resourceapi.ResourceClaim, c *resourceapi.ResourceClaim) bool {
	for _, x := range cs {
		if x.Namespace == c.Namespace && x.Name == c.Name {
			return true
		}
	}
	return false
}
