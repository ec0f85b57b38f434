package convert

import (
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// NodeFromProto validates a wire node and converts it; a *FieldError's path
// is relative to the Node ("taints[0].effect").
func NodeFromProto(in *berthv1.Node) (*model.Node, error) {
	out, fe := node(rootPath(""), in)
	return out, asError(fe)
}

func node(p path, in *berthv1.Node) (*model.Node, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if fe := labels(p.field("labels"), in.GetLabels()); fe != nil {
		return nil, fe
	}
	if fe := resources(p.field("allocatable"), in.GetAllocatable()); fe != nil {
		return nil, fe
	}
	out := &model.Node{
		Name: in.GetName(), Labels: maps.Clone(in.GetLabels()),
		Allocatable: cloneResources(in.GetAllocatable()), Unschedulable: in.GetUnschedulable(),
	}
	effects := taintEffects()
	tsp := p.field("taints")
	if fe := overCap(tsp, len(in.GetTaints()), MaxTaints); fe != nil {
		return nil, fe
	}
	type taintID struct {
		key    string
		effect model.TaintEffect
	}
	var seen map[taintID]int // made at the second taint: most nodes have one or none
	for i, t := range in.GetTaints() {
		tp := tsp.index(i)
		if fe := qualifiedName(tp.field("key"), t.GetKey()); fe != nil {
			return nil, fe
		}
		if fe := labelValue(tp.field("value"), t.GetValue()); fe != nil {
			return nil, fe
		}
		effect, fe := effects.model(tp.field("effect"), t.GetEffect(), false)
		if fe != nil {
			return nil, fe
		}
		id := taintID{t.GetKey(), effect}
		if j, dup := seen[id]; dup {
			return nil, tp.errorf("duplicate of taints[%d]: taints must be unique by key and effect", j)
		}
		if i == 0 && len(in.GetTaints()) > 1 {
			seen = make(map[taintID]int, len(in.GetTaints()))
		}
		if seen != nil {
			seen[id] = i
		}
		out.Taints = append(out.Taints, model.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: effect})
	}
	conds, fe := nodeConditions(p.field("conditions"), in.GetConditions())
	if fe != nil {
		return nil, fe
	}
	out.Conditions = conds
	if out.Images, fe = nodeImages(p.field("images"), in.GetImages()); fe != nil {
		return nil, fe
	}
	return out, nil
}

// nodeImages validates a node's images: at least one name each, every
// name an image reference (imageName), a size of at least 0. Kubernetes'
// API server checks none of this; Berth refuses what no kubelet reports.
func nodeImages(p path, in []*berthv1.ContainerImage) ([]model.ContainerImage, *FieldError) {
	if fe := overCap(p, len(in), MaxNodeImages); fe != nil {
		return nil, fe
	}
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]model.ContainerImage, 0, len(in))
	for i, img := range in {
		ip := p.index(i)
		np := ip.field("names")
		if len(img.GetNames()) == 0 {
			return nil, np.errorf("required: an image has at least one name")
		}
		if fe := overCap(np, len(img.GetNames()), MaxImageNames); fe != nil {
			return nil, fe
		}
		for j, name := range img.GetNames() {
			if fe := imageName(np.index(j), name, true); fe != nil {
				return nil, fe
			}
		}
		if img.GetSizeBytes() < 0 {
			return nil, ip.field("size_bytes").errorf("must be at least 0, got %d", img.GetSizeBytes())
		}
		out = append(out, model.ContainerImage{Names: slices.Clone(img.GetNames()), SizeBytes: img.GetSizeBytes()})
	}
	return out, nil
}

// imageName checks an image reference as kube-apiserver checks a
// container's image: no leading or trailing whitespace; Berth bounds its
// length too.
func imageName(p path, v string, required bool) *FieldError {
	switch {
	case v == "" && required:
		return p.errorf("required")
	case len(v) > MaxImageNameLength:
		return p.errorf("must be at most %d bytes, got %d", MaxImageNameLength, len(v))
	case strings.TrimSpace(v) != v:
		return p.errorf("invalid value %s: must not have leading or trailing whitespace", quote(v))
	}
	return nil
}

var (
	conditionTypes = map[berthv1.NodeConditionType]model.NodeConditionType{
		berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY:               model.NodeReady,
		berthv1.NodeConditionType_NODE_CONDITION_TYPE_MEMORY_PRESSURE:     model.NodeMemoryPressure,
		berthv1.NodeConditionType_NODE_CONDITION_TYPE_DISK_PRESSURE:       model.NodeDiskPressure,
		berthv1.NodeConditionType_NODE_CONDITION_TYPE_PID_PRESSURE:        model.NodePIDPressure,
		berthv1.NodeConditionType_NODE_CONDITION_TYPE_NETWORK_UNAVAILABLE: model.NodeNetworkUnavailable,
	}
	conditionStatuses = map[berthv1.ConditionStatus]model.ConditionStatus{
		berthv1.ConditionStatus_CONDITION_STATUS_TRUE:    model.ConditionTrue,
		berthv1.ConditionStatus_CONDITION_STATUS_FALSE:   model.ConditionFalse,
		berthv1.ConditionStatus_CONDITION_STATUS_UNKNOWN: model.ConditionUnknown,
	}
)

// nodeConditions validates a node's conditions: a known type and status
// each, at most one of each type.
func nodeConditions(p path, in []*berthv1.NodeCondition) ([]model.NodeCondition, *FieldError) {
	var out []model.NodeCondition
	for i, c := range in {
		cp := p.index(i)
		typ, ok := conditionTypes[c.GetType()]
		if !ok {
			return nil, cp.field("type").errorf("must be one of READY, MEMORY_PRESSURE, DISK_PRESSURE, PID_PRESSURE, NETWORK_UNAVAILABLE, got %v", c.GetType())
		}
		st, ok := conditionStatuses[c.GetStatus()]
		if !ok {
			return nil, cp.field("status").errorf("must be one of TRUE, FALSE, UNKNOWN, got %v", c.GetStatus())
		}
		for j, prev := range out {
			if prev.Type == typ {
				return nil, cp.field("type").errorf("duplicate of conditions[%d]: at most one condition of each type", j)
			}
		}
		mc := model.NodeCondition{Type: typ, Status: st, Reason: c.GetReason(), Message: c.GetMessage()}
		if c.GetLastTransitionTime() != nil {
			at, fe := timestamp(cp.field("last_transition_time"), c.GetLastTransitionTime())
			if fe != nil {
				return nil, fe
			}
			mc.LastTransitionTime = at
		}
		out = append(out, mc)
	}
	return out, nil
}

// NodeToProto converts a model node to its wire form.
func NodeToProto(in *model.Node) *berthv1.Node {
	if in == nil {
		return nil
	}
	out := &berthv1.Node{
		Name: in.Name, Labels: maps.Clone(in.Labels),
		Allocatable: cloneResources(in.Allocatable), Unschedulable: in.Unschedulable,
	}
	effects := taintEffects()
	for _, t := range in.Taints {
		if slices.Contains(in.DerivedTaints, t) {
			continue // Berth's, not sent: see NodeDerivedTaintsToProto
		}
		out.Taints = append(out.Taints, &berthv1.Taint{Key: t.Key, Value: t.Value, Effect: effects.proto(t.Effect)})
	}
	for _, c := range in.Conditions {
		wc := &berthv1.NodeCondition{Reason: c.Reason, Message: c.Message}
		for k, v := range conditionTypes {
			if v == c.Type {
				wc.Type = k
			}
		}
		for k, v := range conditionStatuses {
			if v == c.Status {
				wc.Status = k
			}
		}
		if !c.LastTransitionTime.IsZero() {
			wc.LastTransitionTime = timestampToProto(c.LastTransitionTime)
		}
		out.Conditions = append(out.Conditions, wc)
	}
	for _, img := range in.Images {
		out.Images = append(out.Images, &berthv1.ContainerImage{Names: slices.Clone(img.Names), SizeBytes: img.SizeBytes})
	}
	return out
}

// NodeDerivedTaintsToProto returns the taints Berth derived from the
// node's conditions (model.Node.DerivedTaints).
func NodeDerivedTaintsToProto(in *model.Node) []*berthv1.Taint {
	effects := taintEffects()
	var out []*berthv1.Taint
	for _, t := range in.DerivedTaints {
		out = append(out, &berthv1.Taint{Key: t.Key, Value: t.Value, Effect: effects.proto(t.Effect)})
	}
	return out
}

// NamespaceFromProto validates a wire namespace and converts it.
func NamespaceFromProto(in *berthv1.Namespace) (*model.Namespace, error) {
	out, fe := namespace(rootPath(""), in)
	return out, asError(fe)
}

func namespace(p path, in *berthv1.Namespace) (*model.Namespace, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := dnsLabel(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if fe := labels(p.field("labels"), in.GetLabels()); fe != nil {
		return nil, fe
	}
	return &model.Namespace{Name: in.GetName(), Labels: maps.Clone(in.GetLabels())}, nil
}

// NamespaceToProto converts a model namespace to its wire form.
func NamespaceToProto(in *model.Namespace) *berthv1.Namespace {
	if in == nil {
		return nil
	}
	return &berthv1.Namespace{Name: in.Name, Labels: maps.Clone(in.Labels)}
}

// PriorityClassFromProto validates a wire priority class and converts it.
// Names starting with "system-" are refused: they belong to the built-in
// classes.
func PriorityClassFromProto(in *berthv1.PriorityClass) (*model.PriorityClass, error) {
	out, fe := priorityClass(rootPath(""), in)
	return out, asError(fe)
}

func priorityClass(p path, in *berthv1.PriorityClass) (*model.PriorityClass, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	np := p.field("name")
	if fe := subdomain(np, in.GetName()); fe != nil {
		return nil, fe
	}
	if strings.HasPrefix(in.GetName(), "system-") {
		return nil, np.errorf(`the "system-" prefix is reserved for the built-in classes`)
	}
	if in.GetValue() > model.HighestUserDefinablePriority {
		return nil, p.field("value").errorf("must be at most %d, got %d", model.HighestUserDefinablePriority, in.GetValue())
	}
	policy, fe := preemptionPolicies().model(p.field("preemption_policy"), in.GetPreemptionPolicy(), true)
	if fe != nil {
		return nil, fe
	}
	if fe := maxBytes(p.field("description"), in.GetDescription(), MaxDescriptionLength); fe != nil {
		return nil, fe
	}
	return &model.PriorityClass{
		Name: in.GetName(), Value: in.GetValue(), GlobalDefault: in.GetGlobalDefault(),
		PreemptionPolicy: policy, Description: in.GetDescription(),
	}, nil
}

// PriorityClassToProto converts a model priority class to its wire form.
func PriorityClassToProto(in *model.PriorityClass) *berthv1.PriorityClass {
	if in == nil {
		return nil
	}
	return &berthv1.PriorityClass{
		Name: in.Name, Value: in.Value, GlobalDefault: in.GlobalDefault,
		PreemptionPolicy: preemptionPolicies().proto(in.PreemptionPolicy), Description: in.Description,
	}
}

// PodDisruptionBudgetFromProto validates a wire disruption budget and
// converts it.
func PodDisruptionBudgetFromProto(in *berthv1.PodDisruptionBudget) (*model.PodDisruptionBudget, error) {
	out, fe := pdb(rootPath(""), in)
	return out, asError(fe)
}

func pdb(p path, in *berthv1.PodDisruptionBudget) (*model.PodDisruptionBudget, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := dnsLabel(p.field("namespace"), in.GetNamespace()); fe != nil {
		return nil, fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	sel, fe := labelSelector(p.field("selector"), in.GetSelector())
	if fe != nil {
		return nil, fe
	}
	out := &model.PodDisruptionBudget{Namespace: in.GetNamespace(), Name: in.GetName(), Selector: sel}
	switch b := in.GetBudget().(type) {
	case *berthv1.PodDisruptionBudget_MinAvailable:
		out.MinAvailable, fe = intOrPercent(p.field("min_available"), b.MinAvailable)
	case *berthv1.PodDisruptionBudget_MaxUnavailable:
		out.MaxUnavailable, fe = intOrPercent(p.field("max_unavailable"), b.MaxUnavailable)
	default:
		fe = p.errorf("one of min_available and max_unavailable is required")
	}
	if fe != nil {
		return nil, fe
	}
	if in.DisruptionsAllowed != nil {
		if in.GetDisruptionsAllowed() < 0 {
			return nil, p.field("disruptions_allowed").errorf("must not be negative, got %d", in.GetDisruptionsAllowed())
		}
		out.DisruptionsAllowed = ptr(in.GetDisruptionsAllowed())
	}
	if len(in.GetDisruptedPods()) > 0 {
		dp := p.field("disrupted_pods")
		out.DisruptedPods = make(map[string]time.Time, len(in.GetDisruptedPods()))
		for _, name := range sortedKeys(in.GetDisruptedPods()) {
			if fe := subdomain(dp.key(name), name); fe != nil {
				return nil, fe
			}
			at, fe := timestamp(dp.key(name), in.GetDisruptedPods()[name])
			if fe != nil {
				return nil, fe
			}
			out.DisruptedPods[name] = at
		}
	}
	switch pol := in.GetUnhealthyPodEvictionPolicy(); pol {
	case berthv1.UnhealthyPodEvictionPolicy_UNHEALTHY_POD_EVICTION_POLICY_UNSPECIFIED:
	case berthv1.UnhealthyPodEvictionPolicy_UNHEALTHY_POD_EVICTION_POLICY_IF_HEALTHY_BUDGET:
		out.UnhealthyPodEvictionPolicy = model.UnhealthyPodEvictionIfHealthyBudget
	case berthv1.UnhealthyPodEvictionPolicy_UNHEALTHY_POD_EVICTION_POLICY_ALWAYS_ALLOW:
		out.UnhealthyPodEvictionPolicy = model.UnhealthyPodEvictionAlwaysAllow
	default:
		return nil, p.field("unhealthy_pod_eviction_policy").errorf("unknown value %d", pol)
	}
	return out, nil
}

func intOrPercent(p path, in *berthv1.IntOrPercent) (*model.IntOrPercent, *FieldError) {
	switch v := in.GetValue().(type) {
	case *berthv1.IntOrPercent_Count:
		if v.Count < 0 {
			return nil, p.field("count").errorf("must not be negative, got %d", v.Count)
		}
		return &model.IntOrPercent{Value: v.Count}, nil
	case *berthv1.IntOrPercent_Percent:
		if v.Percent < 0 || v.Percent > 100 {
			return nil, p.field("percent").errorf("must be between 0 and 100, got %d", v.Percent)
		}
		return &model.IntOrPercent{Value: v.Percent, IsPercent: true}, nil
	}
	return nil, p.errorf("one of count and percent is required")
}

// PodDisruptionBudgetToProto converts a model disruption budget to its wire
// form.
func PodDisruptionBudgetToProto(in *model.PodDisruptionBudget) *berthv1.PodDisruptionBudget {
	if in == nil {
		return nil
	}
	out := &berthv1.PodDisruptionBudget{Namespace: in.Namespace, Name: in.Name, Selector: labelSelectorToProto(in.Selector)}
	switch {
	case in.MinAvailable != nil:
		out.Budget = &berthv1.PodDisruptionBudget_MinAvailable{MinAvailable: intOrPercentToProto(in.MinAvailable)}
	case in.MaxUnavailable != nil:
		out.Budget = &berthv1.PodDisruptionBudget_MaxUnavailable{MaxUnavailable: intOrPercentToProto(in.MaxUnavailable)}
	}
	if in.DisruptionsAllowed != nil {
		out.DisruptionsAllowed = ptr(*in.DisruptionsAllowed)
	}
	if len(in.DisruptedPods) > 0 {
		out.DisruptedPods = make(map[string]*timestamppb.Timestamp, len(in.DisruptedPods))
		for name, at := range in.DisruptedPods {
			out.DisruptedPods[name] = timestampToProto(at)
		}
	}
	switch in.UnhealthyPodEvictionPolicy {
	case model.UnhealthyPodEvictionIfHealthyBudget:
		out.UnhealthyPodEvictionPolicy = berthv1.UnhealthyPodEvictionPolicy_UNHEALTHY_POD_EVICTION_POLICY_IF_HEALTHY_BUDGET
	case model.UnhealthyPodEvictionAlwaysAllow:
		out.UnhealthyPodEvictionPolicy = berthv1.UnhealthyPodEvictionPolicy_UNHEALTHY_POD_EVICTION_POLICY_ALWAYS_ALLOW
	}
	return out
}

func intOrPercentToProto(in *model.IntOrPercent) *berthv1.IntOrPercent {
	if in.IsPercent {
		return &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Percent{Percent: in.Value}}
	}
	return &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Count{Count: in.Value}}
}
