package convert

import (
	"maps"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// MaxMinCount bounds a PodGroup's min_count: Kubernetes' largest tested
// cluster runs 150,000 pods, so a gang needing more can never start.
const MaxMinCount = 150_000

// podGroup validates a wire PodGroup: namespace and name as a pod's,
// min_count at least 1, topology_key a label key, priority_class_name and
// parent_composite_pod_group_name names, disruption_mode and
// preemption_policy known values, labels as a pod's.
func podGroup(p path, in *berthv1.PodGroup) (*model.PodGroup, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := dnsLabel(p.field("namespace"), in.GetNamespace()); fe != nil {
		return nil, fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if in.GetMinCount() < 1 || in.GetMinCount() > MaxMinCount {
		return nil, p.field("min_count").errorf("must be between 1 and %d, got %d", MaxMinCount, in.GetMinCount())
	}
	if k := in.GetTopologyKey(); k != "" {
		if fe := qualifiedName(p.field("topology_key"), k); fe != nil {
			return nil, fe
		}
	}
	if fe := labels(p.field("labels"), in.GetLabels()); fe != nil {
		return nil, fe
	}
	if parent := in.GetParentCompositePodGroupName(); parent != "" {
		if fe := subdomain(p.field("parent_composite_pod_group_name"), parent); fe != nil {
			return nil, fe
		}
	}
	out := &model.PodGroup{Namespace: in.GetNamespace(), Name: in.GetName(), MinCount: in.GetMinCount(), TopologyKey: in.GetTopologyKey(),
		PriorityClassName: in.GetPriorityClassName(), Labels: maps.Clone(in.GetLabels()), Parent: in.GetParentCompositePodGroupName()}
	var fe *FieldError
	if n := in.GetPriorityClassName(); n != "" {
		if fe = subdomain(p.field("priority_class_name"), n); fe != nil {
			return nil, fe
		}
	}
	if in.Priority != nil {
		v := in.GetPriority()
		out.RequestedPriority = &v
	}
	if out.PreemptionPolicy, fe = preemptionPolicies().model(p.field("preemption_policy"), in.GetPreemptionPolicy(), true); fe != nil {
		return nil, fe
	}
	switch in.GetDisruptionMode() {
	case berthv1.DisruptionMode_DISRUPTION_MODE_UNSPECIFIED, berthv1.DisruptionMode_DISRUPTION_MODE_SINGLE:
	case berthv1.DisruptionMode_DISRUPTION_MODE_ALL:
		out.DisruptionAll = true
	default:
		return nil, p.field("disruption_mode").errorf("unknown value %d", in.GetDisruptionMode())
	}
	return out, nil
}

// PodGroupToProto converts a group to its wire form.
func PodGroupToProto(in *model.PodGroup) *berthv1.PodGroup {
	if in == nil {
		return nil
	}
	out := &berthv1.PodGroup{Namespace: in.Namespace, Name: in.Name, MinCount: in.MinCount, TopologyKey: in.TopologyKey,
		PriorityClassName: in.PriorityClassName, Priority: in.RequestedPriority,
		PreemptionPolicy: preemptionPolicies().proto(in.PreemptionPolicy), Labels: maps.Clone(in.Labels), ParentCompositePodGroupName: in.Parent}
	if in.DisruptionAll {
		out.DisruptionMode = berthv1.DisruptionMode_DISRUPTION_MODE_ALL
	}
	return out
}

// compositePodGroup validates a wire CompositePodGroup: namespace and name
// as a PodGroup's, parent_composite_pod_group_name a name other than its
// own, min_group_count at least 1, priority_class_name a class name.
func compositePodGroup(p path, in *berthv1.CompositePodGroup) (*model.CompositePodGroup, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := dnsLabel(p.field("namespace"), in.GetNamespace()); fe != nil {
		return nil, fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if parent := in.GetParentCompositePodGroupName(); parent != "" {
		if fe := subdomain(p.field("parent_composite_pod_group_name"), parent); fe != nil {
			return nil, fe
		}
		if parent == in.GetName() {
			return nil, p.field("parent_composite_pod_group_name").errorf("must name another composite pod group, not this one")
		}
	}
	if n := in.GetMinGroupCount(); n < 1 || n > MaxMinCount {
		return nil, p.field("min_group_count").errorf("must be between 1 and %d, got %d", MaxMinCount, n)
	}
	if n := in.GetPriorityClassName(); n != "" {
		if fe := subdomain(p.field("priority_class_name"), n); fe != nil {
			return nil, fe
		}
	}
	out := &model.CompositePodGroup{Namespace: in.GetNamespace(), Name: in.GetName(), Parent: in.GetParentCompositePodGroupName(),
		MinGroupCount: in.GetMinGroupCount(), PriorityClassName: in.GetPriorityClassName()}
	if in.Priority != nil {
		v := in.GetPriority()
		out.RequestedPriority = &v
	}
	return out, nil
}

// CompositePodGroupToProto converts a composite group to its wire form.
func CompositePodGroupToProto(in *model.CompositePodGroup) *berthv1.CompositePodGroup {
	if in == nil {
		return nil
	}
	return &berthv1.CompositePodGroup{Namespace: in.Namespace, Name: in.Name, ParentCompositePodGroupName: in.Parent,
		MinGroupCount: in.MinGroupCount, PriorityClassName: in.PriorityClassName, Priority: in.RequestedPriority}
}
