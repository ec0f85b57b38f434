package noderesources

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is NodeResourcesFit's name in configurations.
const Name = names.NodeResourcesFit

// Filter reasons for the well-known resources; an extended resource r
// gives "Insufficient r".
const (
	ReasonTooManyPods              = "Too many pods"
	ReasonInsufficientCPU          = "Insufficient cpu"
	ReasonInsufficientMemory       = "Insufficient memory"
	ReasonInsufficientEphemeral    = "Insufficient ephemeral-storage"
	reasonInsufficientScalarPrefix = "Insufficient "
)

const (
	preFilterStateKey framework.StateKey = "PreFilter" + Name
	preScoreStateKey  framework.StateKey = "PreScore" + Name
)

// Fit filters nodes without room for the pod and scores the room left.
type Fit struct {
	ignoredResources map[string]struct{}
	ignoredGroups    map[string]struct{}
	scorer           resourceScorer
}

var (
	_ framework.PreFilterPlugin   = (*Fit)(nil)
	_ framework.FilterPlugin      = (*Fit)(nil)
	_ framework.PreScorePlugin    = (*Fit)(nil)
	_ framework.ScorePlugin       = (*Fit)(nil)
	_ framework.SignPlugin        = (*Fit)(nil)
	_ framework.EnqueueExtensions = (*Fit)(nil)
)

// NewFit decodes NodeResourcesFitArgs and returns the plugin.
func NewFit(_ context.Context, raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args, err := DecodeFitArgs(raw)
	if err != nil {
		return nil, err
	}
	return NewFitWithArgs(args), nil
}

// NewFitWithArgs returns the plugin for args that DecodeFitArgs accepted.
func NewFitWithArgs(args *FitArgs) *Fit {
	s := args.ScoringStrategy
	formula := leastAllocated
	switch s.Type {
	case MostAllocated:
		formula = mostAllocated
	case RequestedToCapacityRatio:
		formula = requestedToCapacityRatio
	}
	f := &Fit{
		ignoredResources: toSet(args.IgnoredResources),
		ignoredGroups:    toSet(args.IgnoredResourceGroups),
		scorer:           newResourceScorer(formula, slices.Clone(s.Resources), false),
	}
	if formula == requestedToCapacityRatio {
		f.scorer.shape = newShape(s.RequestedToCapacityRatio.Shape)
	}
	return f
}

func toSet(names []string) map[string]struct{} {
	out := make(map[string]struct{}, len(names))
	for _, n := range names {
		out[n] = struct{}{}
	}
	return out
}

// Name returns Name.
func (*Fit) Name() string { return Name }

// podRequest is the PreFilter state: what the pod needs of a node. Other
// pods do not change it, so clones share it.
type podRequest struct {
	milliCPU, memory, ephemeralStorage int64
	scalars                            []scalarRequest // by name
}

// scalarRequest is a requested extended resource (or hugepages, ...).
type scalarRequest struct {
	name     string
	quantity int64
	reason   string
}

func (r *podRequest) Clone() framework.StateData { return r }

// computePodRequest builds the request the filter checks; ignored extended
// resources are left out.
func (f *Fit) computePodRequest(pod *model.Pod) *podRequest {
	req := model.ComputeRequests(pod).Requests
	out := &podRequest{milliCPU: req.MilliCPU, memory: req.Memory, ephemeralStorage: req.EphemeralStorage}
	for name, q := range req.Scalar {
		if q == 0 || !helper.IsScalarResourceName(name) || f.ignored(name) {
			continue
		}
		out.scalars = append(out.scalars, scalarRequest{name: name, quantity: q, reason: reasonInsufficientScalarPrefix + name})
	}
	slices.SortFunc(out.scalars, func(a, b scalarRequest) int { return strings.Compare(a.name, b.name) })
	return out
}

// ignored reports whether the filter skips an extended resource.
func (f *Fit) ignored(name string) bool {
	if !helper.IsExtendedResourceName(name) {
		return false
	}
	if _, ok := f.ignoredResources[name]; ok {
		return true
	}
	if len(f.ignoredGroups) == 0 {
		return false
	}
	group, _, _ := strings.Cut(name, "/")
	_, ok := f.ignoredGroups[group]
	return ok
}

// PreFilter computes the pod's effective request.
func (f *Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write(preFilterStateKey, f.computePodRequest(pod))
	return nil, nil
}

// PreFilterExtensions returns nil: the request does not depend on other
// pods.
func (*Fit) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// InsufficientResource is a resource the node lacks for the pod.
type InsufficientResource struct {
	ResourceName string
	Reason       string
	Requested    int64
	Used         int64
	Capacity     int64
	// Unresolvable: the request exceeds the node's allocatable, so no
	// eviction can make room.
	Unresolvable bool
}

// Filter rejects a node without room, with one reason per missing
// resource. The code is UnschedulableAndUnresolvable when some request
// exceeds the node's allocatable (preemption cannot help), Unschedulable
// otherwise.
func (*Fit) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	req, ok := framework.ReadAs[*podRequest](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(fmt.Errorf("%s: reading %q from cycle state: not found", Name, preFilterStateKey))
	}
	var buf [4]InsufficientResource
	missing := insufficient(req, nodeInfo, buf[:0])
	if len(missing) == 0 {
		return nil
	}
	code := framework.Unschedulable
	reasons := make([]string, len(missing))
	for i := range missing {
		reasons[i] = missing[i].Reason
		if missing[i].Unresolvable {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// Fits returns what the node lacks to run the pod, nothing when it fits.
// No extended resource is ignored.
func Fits(pod *model.Pod, nodeInfo *framework.NodeInfo) []InsufficientResource {
	return insufficient((&Fit{}).computePodRequest(pod), nodeInfo, nil)
}

// insufficient appends to out what the node lacks for req: the pod count,
// cpu, memory, ephemeral-storage, then scalar resources by name.
func insufficient(req *podRequest, ni *framework.NodeInfo, out []InsufficientResource) []InsufficientResource {
	alloc, used := &ni.Allocatable, &ni.Requested
	if pods := int64(len(ni.Pods)); pods+1 > alloc.Pods {
		out = append(out, InsufficientResource{ResourceName: model.ResourcePods, Reason: ReasonTooManyPods, Requested: 1, Used: pods, Capacity: alloc.Pods})
	}
	check := func(name, reason string, want, have, capacity int64) {
		if want > 0 && want > capacity-have {
			out = append(out, InsufficientResource{ResourceName: name, Reason: reason, Requested: want, Used: have, Capacity: capacity, Unresolvable: want > capacity})
		}
	}
	check(model.ResourceCPU, ReasonInsufficientCPU, req.milliCPU, used.MilliCPU, alloc.MilliCPU)
	check(model.ResourceMemory, ReasonInsufficientMemory, req.memory, used.Memory, alloc.Memory)
	check(model.ResourceEphemeralStorage, ReasonInsufficientEphemeral, req.ephemeralStorage, used.EphemeralStorage, alloc.EphemeralStorage)
	for _, s := range req.scalars {
		check(s.name, s.reason, s.quantity, used.Scalar[s.name], alloc.Scalar[s.name])
	}
	return out
}

// scoreRequests is the PreScore state: the pod's request of each scored
// resource.
type scoreRequests []int64

func (s scoreRequests) Clone() framework.StateData { return s }

// PreScore computes the pod's requests of the scored resources.
func (f *Fit) PreScore(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, scoreRequests(f.scorer.podRequests(pod)))
	return nil
}

// Score scores the node with the configured strategy.
func (f *Fit) Score(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	reqs, ok := framework.ReadAs[scoreRequests](state, preScoreStateKey)
	if !ok {
		reqs = f.scorer.podRequests(pod)
	}
	return f.scorer.score(nodeInfo, reqs), nil
}

// ScoreExtensions returns nil: scores are already on 0..100.
func (*Fit) ScoreExtensions() framework.ScoreExtensions { return nil }

// SignPod signs what the plugin reads of the pod: its effective requests,
// exact and with the scoring defaults.
func (*Fit) SignPod(pod *model.Pod, sig *framework.Signature) { signRequests(pod, sig) }

func signRequests(pod *model.Pod, sig *framework.Signature) {
	req := model.ComputeRequests(pod)
	sig.Resources(&req.Requests)
	sig.Int(req.NonZeroMilliCPU)
	sig.Int(req.NonZeroMemory)
	sig.Bool(req.FitScore != nil)
	if req.FitScore != nil {
		sig.Resources(req.FitScore)
	}
}
