package cli

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
)

// The workloads use a small part of the model; these build its proto form
// (server/convert does the whole mapping; this keeps the load generator
// free of the server). The protos share the model's maps rather than copy
// them: they are only marshalled, and the pending pods' protos are kept for
// the whole run (see tracker), so copies would only cost memory.

func nodeObject(n *model.Node) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:          n.Name,
		Labels:        n.Labels,
		Allocatable:   n.Allocatable,
		Unschedulable: n.Unschedulable,
	}}}
}

func classObject(pc *model.PriorityClass) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{
		Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault,
	}}}
}

func groupObject(g *model.PodGroup) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{
		Namespace: g.Namespace, Name: g.Name, MinCount: g.MinCount, TopologyKey: g.TopologyKey,
	}}}
}

// deviceObjects are the workload's DRA objects: classes, slices, then
// templates (server/convert maps Kubernetes' types).
func deviceObjects(d *workload.Devices) []*berthv1.Object {
	if d == nil {
		return nil
	}
	var out []*berthv1.Object
	for _, c := range d.Classes {
		out = append(out, convert.ObjectToProto(convert.Object{DeviceClass: c}))
	}
	for _, s := range d.Slices {
		out = append(out, convert.ObjectToProto(convert.Object{ResourceSlice: s}))
	}
	for _, t := range d.Templates {
		out = append(out, convert.ObjectToProto(convert.Object{ResourceClaimTemplate: t}))
	}
	return out
}

func podObject(p *model.Pod) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: podProto(p)}}
}

func podProto(p *model.Pod) *berthv1.Pod {
	out := &berthv1.Pod{
		Uid:               p.UID,
		Namespace:         p.Namespace,
		Name:              p.Name,
		Labels:            p.Labels,
		SchedulerName:     p.SchedulerName,
		PriorityClassName: p.PriorityClassName,
		NodeName:          p.NodeName,
		Ready:             p.Ready,
		CreationTime:      timestamppb.New(p.CreationTime),
		SchedulingGroup:   p.SchedulingGroup,
	}
	if !p.StartTime.IsZero() {
		out.StartTime = timestamppb.New(p.StartTime)
	}
	for _, c := range p.Containers {
		out.Containers = append(out.Containers, &berthv1.Container{Name: c.Name, Requests: c.Requests, Claims: c.Claims})
	}
	for _, e := range p.ResourceClaims {
		rc := &berthv1.PodResourceClaim{Name: e.Name, ResourceClaimTemplateName: e.TemplateName}
		if e.TemplateName == "" {
			rc.ResourceClaimName = e.ClaimName
		}
		out.ResourceClaims = append(out.ResourceClaims, rc)
	}
	for _, t := range p.Tolerations {
		pt := &berthv1.Toleration{Key: t.Key, Value: t.Value, Effect: taintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds}
		pt.Operator = berthv1.TolerationOperator_TOLERATION_OPERATOR_EQUAL
		if t.Operator == model.TolerationOpExists {
			pt.Operator = berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS
		}
		out.Tolerations = append(out.Tolerations, pt)
	}
	for _, c := range p.TopologySpreadConstraints {
		action := berthv1.UnsatisfiableConstraintAction_UNSATISFIABLE_CONSTRAINT_ACTION_SCHEDULE_ANYWAY
		if c.WhenUnsatisfiable == model.DoNotSchedule {
			action = berthv1.UnsatisfiableConstraintAction_UNSATISFIABLE_CONSTRAINT_ACTION_DO_NOT_SCHEDULE
		}
		out.TopologySpreadConstraints = append(out.TopologySpreadConstraints, &berthv1.TopologySpreadConstraint{
			MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, WhenUnsatisfiable: action, LabelSelector: selector(c.LabelSelector),
		})
	}
	if a := p.Affinity; a != nil {
		out.Affinity = &berthv1.Affinity{}
		if a.PodAffinity != nil {
			out.Affinity.PodAffinity = &berthv1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  terms(a.PodAffinity.Required),
				PreferredDuringSchedulingIgnoredDuringExecution: weighted(a.PodAffinity.Preferred),
			}
		}
		if a.PodAntiAffinity != nil {
			out.Affinity.PodAntiAffinity = &berthv1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  terms(a.PodAntiAffinity.Required),
				PreferredDuringSchedulingIgnoredDuringExecution: weighted(a.PodAntiAffinity.Preferred),
			}
		}
	}
	return out
}

func taintEffect(e model.TaintEffect) berthv1.TaintEffect {
	switch e {
	case model.TaintEffectNoSchedule:
		return berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE
	case model.TaintEffectPreferNoSchedule:
		return berthv1.TaintEffect_TAINT_EFFECT_PREFER_NO_SCHEDULE
	case model.TaintEffectNoExecute:
		return berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE
	}
	return berthv1.TaintEffect_TAINT_EFFECT_UNSPECIFIED
}

// selector converts the matchLabels selectors the workloads use.
func selector(s *model.LabelSelector) *berthv1.LabelSelector {
	if s == nil {
		return nil
	}
	return &berthv1.LabelSelector{MatchLabels: s.MatchLabels}
}

func terms(ts []model.PodAffinityTerm) []*berthv1.PodAffinityTerm {
	var out []*berthv1.PodAffinityTerm
	for _, t := range ts {
		out = append(out, &berthv1.PodAffinityTerm{LabelSelector: selector(t.LabelSelector), TopologyKey: t.TopologyKey, Namespaces: t.Namespaces})
	}
	return out
}

func weighted(ts []model.WeightedPodAffinityTerm) []*berthv1.WeightedPodAffinityTerm {
	var out []*berthv1.WeightedPodAffinityTerm
	for _, t := range ts {
		out = append(out, &berthv1.WeightedPodAffinityTerm{Weight: t.Weight, PodAffinityTerm: terms([]model.PodAffinityTerm{t.Term})[0]})
	}
	return out
}

func podRef(p *model.Pod) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: p.Namespace, Name: p.Name, Uid: p.UID}
}

func nodeRef(n *model.Node) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: n.Name}
}
