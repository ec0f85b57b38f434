package dynamicresources

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.DynamicResources

const stateKey framework.StateKey = Name

// ranKey marks a cycle whose PreFilter ran (kube writes its state first,
// so its PostFilter fails with "not found" only when an earlier PreFilter
// rejected the pod).
const ranKey framework.StateKey = Name + "/prefilter"

// Reasons, in kube's words.
const (
	ErrReasonNotAvailable = "resourceclaim not available on the node"
	ErrReasonInUse        = "resourceclaim in use"
	msgDeallocated        = "deallocation of ResourceClaim completed"
)

// DeallocationReason is the reason PostFilter gives its Deallocation.
const DeallocationReason = "allocated for nodes the pod cannot use and reserved by no other pod"

// DynamicResources allocates pods' resource claims.
type DynamicResources struct {
	h framework.Handle
	t *dra.Tracker
	// attempts numbers the signatures of pods with claims (SignPod).
	attempts atomic.Uint64
	// skip is PreFilter's answer for pods without claims, made once: the
	// runtime only reads a Skip status.
	skip *framework.Status
	// ran is the value of ranKey, made once.
	ran prefilterRan
	// filterTimeout bounds Filter's search on one node (0: none).
	filterTimeout time.Duration
}

var (
	_ framework.PreEnqueuePlugin  = (*DynamicResources)(nil)
	_ framework.PreFilterPlugin   = (*DynamicResources)(nil)
	_ framework.FilterPlugin      = (*DynamicResources)(nil)
	_ framework.PostFilterPlugin  = (*DynamicResources)(nil)
	_ framework.ScorePlugin       = (*DynamicResources)(nil)
	_ framework.ReservePlugin     = (*DynamicResources)(nil)
	_ framework.PreBindPlugin     = (*DynamicResources)(nil)
	_ framework.EnqueueExtensions = (*DynamicResources)(nil)
	_ framework.SignPlugin        = (*DynamicResources)(nil)
)

// New returns the plugin with its args (DecodeArgs). A framework without
// DRA state (Handle.Devices nil) gets an empty one: pods with claims wait
// for claims that never come.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	t := h.Devices()
	if t == nil {
		t = dra.NewTracker()
	}
	return &DynamicResources{h: h, t: t, skip: framework.NewStatus(framework.Skip), filterTimeout: args.FilterTimeout.Duration}, nil
}

// Name returns Name.
func (*DynamicResources) Name() string { return Name }

// stateData is the attempt's state, shared by the clones of the cycle
// state (Filter runs in parallel: the maps are behind mu).
type stateData struct {
	// claims are the pod's claims, one per entry, in the order of its
	// entries, as committed when PreFilter ran.
	claims []*resourceapi.ResourceClaim
	// availableOnNodes is the node selector of each allocated claim's
	// allocation, nil if it has none (usable everywhere).
	availableOnNodes []*nodeaffinity.NodeSelector
	// allocator allocates the unallocated claims; nil when there are none.
	allocator *dra.Allocator

	mu sync.Mutex
	// unavailable are the indexes of allocated claims some node could not
	// use (PostFilter may deallocate them).
	unavailable map[int]bool
	// nodeAllocations are the results Filter found, per node, in the order
	// of the unallocated claims.
	nodeAllocations map[string][]resourceapi.AllocationResult
}

// Clone returns the state itself: it is the attempt's, as kube's.
func (d *stateData) Clone() framework.StateData { return d }

// SignPod makes the plugin node-local for pods without claims (it skips
// their Filter and scores them 0 everywhere), so they keep the result
// memo's reuse and pay nothing for it. A pod with claims depends on the
// cluster's devices, not on the node's NodeInfo: each of its attempts
// signs uniquely, so nothing is ever reused for it (kube does not sign
// such pods either).
func (pl *DynamicResources) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tag(Name)
	if len(pod.ResourceClaims) == 0 {
		sig.Int(0)
		return
	}
	sig.Int(int64(pl.attempts.Add(1)))
}

// PreEnqueue holds a pod back until all its claims exist.
func (pl *DynamicResources) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	if len(pod.ResourceClaims) == 0 {
		return nil
	}
	if _, err := pl.podClaims(pod); err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	return nil
}

// podClaims returns the pod's claims as committed, one per entry (a claim
// two entries name comes twice, as in kube), in entry order; the error is
// kube's reason for a claim that cannot be used.
func (pl *DynamicResources) podClaims(pod *model.Pod) ([]*resourceapi.ResourceClaim, error) {
	t := pl.t
	out := make([]*resourceapi.ResourceClaim, 0, len(pod.ResourceClaims))
	for _, e := range pod.ResourceClaims {
		c, ok := t.CommittedClaim(pod.Namespace, e.ClaimName)
		switch {
		case !ok && e.TemplateName != "":
			return nil, fmt.Errorf("pod %q: ResourceClaim not created yet", pod.Key())
		case !ok:
			return nil, fmt.Errorf("could not find ResourceClaim %q", dra.Key(pod.Namespace, e.ClaimName))
		case c.DeletionTimestamp != nil:
			return nil, fmt.Errorf("resourceclaim %q is being deleted", c.Name)
		case e.TemplateName != "" && !dra.OwnedBy(c, pod.UID):
			return nil, fmt.Errorf("ResourceClaim %s was not created for Pod %s (Pod is not owner)", dra.Key(c.Namespace, c.Name), pod.Key())
		}
		out = append(out, c)
	}
	return out, nil
}

// PreFilter gathers the pod's claims, pins it to the nodes of its
// allocated claims and prepares the allocation of the others. Pods
// without claims Skip.
func (pl *DynamicResources) PreFilter(ctx context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write(ranKey, pl.ran)
	if len(pod.ResourceClaims) == 0 {
		return nil, pl.skip
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		return nil, unresolvable(err.Error())
	}
	s := &stateData{claims: claims, availableOnNodes: make([]*nodeaffinity.NodeSelector, len(claims))}
	var toAllocate []*resourceapi.ResourceClaim
	for i, c := range claims {
		if c.Status.Allocation == nil {
			cur, wait, ok := pl.t.ClaimFor(pod, c.Namespace, c.Name)
			if !ok {
				return nil, unresolvable(fmt.Sprintf("could not find ResourceClaim %q", dra.Key(c.Namespace, c.Name)))
			}
			if wait {
				return nil, unresolvable(fmt.Sprintf("resource claim %s is in the process of being allocated", dra.Key(c.Namespace, c.Name)))
			}
			// A group-mate's allocation in flight is shared, as kube
			// shares pending allocations within a PodGroup cycle.
			c, claims[i] = cur, cur
		}
		if c.Status.Allocation != nil {
			if len(c.Status.ReservedFor) >= resourceapi.ResourceClaimReservedForMaxSize && !dra.ReservedFor(c, pod.UID) {
				return nil, unresolvable(ErrReasonInUse)
			}
			if sel := c.Status.Allocation.NodeSelector; sel != nil {
				ns, err := nodeaffinity.NewNodeSelector(sel)
				if err != nil {
					return nil, framework.AsStatus(fmt.Errorf("claim %s: %w", dra.Key(c.Namespace, c.Name), err))
				}
				s.availableOnNodes[i] = ns
			}
			continue
		}
		if st := pl.checkClasses(c); st != nil {
			return nil, st
		}
		toAllocate = append(toAllocate, c)
	}
	if len(toAllocate) > 0 {
		a, err := pl.t.NewAllocator(ctx, toAllocate)
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		s.allocator, s.nodeAllocations = a, map[string][]resourceapi.AllocationResult{}
	}
	state.Write(stateKey, s)
	return nil, nil
}

// checkClasses rejects a claim whose request names a class that does not
// exist, in kube's words.
func (pl *DynamicResources) checkClasses(c *resourceapi.ResourceClaim) *framework.Status {
	t := pl.t
	for _, r := range c.Spec.Devices.Requests {
		switch {
		case r.Exactly != nil:
			if !t.HasClass(r.Exactly.DeviceClassName) {
				return unresolvable(fmt.Sprintf("request %s: device class %s does not exist", r.Name, r.Exactly.DeviceClassName))
			}
		case len(r.FirstAvailable) > 0:
			for _, sub := range r.FirstAvailable {
				if !t.HasClass(sub.DeviceClassName) {
					return unresolvable(fmt.Sprintf("request %s: device class %s does not exist", strings.Join([]string{r.Name, sub.Name}, "/"), sub.DeviceClassName))
				}
			}
		default:
			return unresolvable(fmt.Sprintf("resource claim %s, request %s: unknown request type", dra.Key(c.Namespace, c.Name), r.Name))
		}
	}
	return nil
}

// PreFilterExtensions returns nil: as kube's, the plugin's state does not
// change with the pods added or removed on a node, so removing
// preemption victims never frees devices in the dry run.
func (*DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func unresolvable(reason string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
}

// prefilterRan is ranKey's value; it holds nothing.
type prefilterRan struct{}

// Clone returns the value itself.
func (r prefilterRan) Clone() framework.StateData { return r }

func stateOf(cs *framework.CycleState) (*stateData, bool) {
	return framework.ReadAs[*stateData](cs, stateKey)
}
