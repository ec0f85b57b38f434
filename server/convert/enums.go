package convert

import (
	"maps"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// enumNames maps a proto enum to a model string type: names[v] is the
// model value of proto value v, and names[0], for UNSPECIFIED, is "".
type enumNames[P ~int32, M ~string] []M

// model converts v; unspecifiedOK says whether 0 is allowed (it maps to "").
func (e enumNames[P, M]) model(p path, v P, unspecifiedOK bool) (M, *FieldError) {
	switch {
	case v == 0 && unspecifiedOK:
		return "", nil
	case v == 0:
		return "", p.errorf("required")
	case int(v) < 0 || int(v) >= len(e):
		return "", p.errorf("unknown value %d", int32(v))
	}
	return e[v], nil
}

// proto converts m; "" and names it does not know give 0.
func (e enumNames[P, M]) proto(m M) P {
	for i := 1; i < len(e); i++ {
		if e[i] == m {
			return P(i)
		}
	}
	return 0
}

// The enums are returned by functions rather than kept in package
// variables, so there is no package-level state; the proto values are
// consecutive from 0, in the order listed.

func taintEffects() enumNames[berthv1.TaintEffect, model.TaintEffect] {
	return enumNames[berthv1.TaintEffect, model.TaintEffect]{"", model.TaintEffectNoSchedule, model.TaintEffectPreferNoSchedule, model.TaintEffectNoExecute}
}

func tolerationOperators() enumNames[berthv1.TolerationOperator, model.TolerationOperator] {
	return enumNames[berthv1.TolerationOperator, model.TolerationOperator]{"", model.TolerationOpEqual, model.TolerationOpExists}
}

func preemptionPolicies() enumNames[berthv1.PreemptionPolicy, model.PreemptionPolicy] {
	return enumNames[berthv1.PreemptionPolicy, model.PreemptionPolicy]{"", model.PreemptLowerPriority, model.PreemptNever}
}

func protocols() enumNames[berthv1.Protocol, string] {
	return enumNames[berthv1.Protocol, string]{"", "TCP", "UDP", "SCTP"}
}

func labelSelectorOperators() enumNames[berthv1.LabelSelectorOperator, model.LabelSelectorOperator] {
	return enumNames[berthv1.LabelSelectorOperator, model.LabelSelectorOperator]{"", model.LabelSelectorOpIn, model.LabelSelectorOpNotIn, model.LabelSelectorOpExists, model.LabelSelectorOpDoesNotExist}
}

func nodeSelectorOperators() enumNames[berthv1.NodeSelectorOperator, model.NodeSelectorOperator] {
	return enumNames[berthv1.NodeSelectorOperator, model.NodeSelectorOperator]{"", model.NodeSelectorOpIn, model.NodeSelectorOpNotIn, model.NodeSelectorOpExists, model.NodeSelectorOpDoesNotExist, model.NodeSelectorOpGt, model.NodeSelectorOpLt}
}

func unsatisfiableActions() enumNames[berthv1.UnsatisfiableConstraintAction, model.UnsatisfiableConstraintAction] {
	return enumNames[berthv1.UnsatisfiableConstraintAction, model.UnsatisfiableConstraintAction]{"", model.DoNotSchedule, model.ScheduleAnyway}
}

func inclusionPolicies() enumNames[berthv1.NodeInclusionPolicy, model.NodeInclusionPolicy] {
	return enumNames[berthv1.NodeInclusionPolicy, model.NodeInclusionPolicy]{"", model.NodeInclusionPolicyHonor, model.NodeInclusionPolicyIgnore}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
