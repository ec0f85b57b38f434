package convert

import (
	"maps"
	"slices"
	"strconv"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// labelSelector converts an optional LabelSelector: nil stays nil (matches
// nothing), a set but empty one matches everything.
func labelSelector(p path, in *berthv1.LabelSelector) (*model.LabelSelector, *FieldError) {
	if in == nil {
		return nil, nil
	}
	if fe := labels(p.field("match_labels"), in.GetMatchLabels()); fe != nil {
		return nil, fe
	}
	out := &model.LabelSelector{
		MatchLabels:      maps.Clone(in.GetMatchLabels()),
		MatchExpressions: sized[model.LabelSelectorRequirement](len(in.GetMatchExpressions())),
	}
	ops := labelSelectorOperators()
	mp := p.field("match_expressions")
	if fe := overCap(mp, len(in.GetMatchExpressions()), MaxRequirements); fe != nil {
		return nil, fe
	}
	for i, r := range in.GetMatchExpressions() {
		rp := mp.index(i)
		if fe := qualifiedName(rp.field("key"), r.GetKey()); fe != nil {
			return nil, fe
		}
		op, fe := ops.model(rp.field("operator"), r.GetOperator(), false)
		if fe != nil {
			return nil, fe
		}
		vp := rp.field("values")
		if fe := overCap(vp, len(r.GetValues()), MaxValues); fe != nil {
			return nil, fe
		}
		switch op {
		case model.LabelSelectorOpIn, model.LabelSelectorOpNotIn:
			if len(r.GetValues()) == 0 {
				return nil, vp.errorf("must be non-empty when operator is %s", r.GetOperator())
			}
		default:
			if len(r.GetValues()) != 0 {
				return nil, vp.errorf("must be empty when operator is %s", r.GetOperator())
			}
		}
		for j, v := range r.GetValues() {
			if fe := labelValue(vp.index(j), v); fe != nil {
				return nil, fe
			}
		}
		out.MatchExpressions = append(out.MatchExpressions, model.LabelSelectorRequirement{
			Key: r.GetKey(), Operator: op, Values: slices.Clone(r.GetValues()),
		})
	}
	return out, nil
}

func labelSelectorToProto(in *model.LabelSelector) *berthv1.LabelSelector {
	if in == nil {
		return nil
	}
	out := &berthv1.LabelSelector{MatchLabels: maps.Clone(in.MatchLabels)}
	ops := labelSelectorOperators()
	for _, r := range in.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, &berthv1.LabelSelectorRequirement{
			Key: r.Key, Operator: ops.proto(r.Operator), Values: slices.Clone(r.Values),
		})
	}
	return out
}

// nodeSelector converts a required node affinity. Like Kubernetes, a set
// selector needs at least one term.
func nodeSelector(p path, in *berthv1.NodeSelector) (*model.NodeSelector, *FieldError) {
	if in == nil {
		return nil, nil
	}
	tp := p.field("node_selector_terms")
	if len(in.GetNodeSelectorTerms()) == 0 {
		return nil, tp.errorf("must have at least one term")
	}
	if fe := overCap(tp, len(in.GetNodeSelectorTerms()), MaxTerms); fe != nil {
		return nil, fe
	}
	out := &model.NodeSelector{Terms: sized[model.NodeSelectorTerm](len(in.GetNodeSelectorTerms()))}
	for i, t := range in.GetNodeSelectorTerms() {
		term, fe := nodeSelectorTerm(tp.index(i), t)
		if fe != nil {
			return nil, fe
		}
		out.Terms = append(out.Terms, term)
	}
	return out, nil
}

func nodeSelectorTerm(p path, in *berthv1.NodeSelectorTerm) (model.NodeSelectorTerm, *FieldError) {
	out := model.NodeSelectorTerm{
		MatchExpressions: sized[model.NodeSelectorRequirement](len(in.GetMatchExpressions())),
		MatchFields:      sized[model.NodeSelectorRequirement](len(in.GetMatchFields())),
	}
	mp := p.field("match_expressions")
	if fe := overCap(mp, len(in.GetMatchExpressions()), MaxRequirements); fe != nil {
		return out, fe
	}
	for i, r := range in.GetMatchExpressions() {
		req, fe := nodeSelectorRequirement(mp.index(i), r, false)
		if fe != nil {
			return out, fe
		}
		out.MatchExpressions = append(out.MatchExpressions, req)
	}
	fp := p.field("match_fields")
	if fe := overCap(fp, len(in.GetMatchFields()), MaxRequirements); fe != nil {
		return out, fe
	}
	for i, r := range in.GetMatchFields() {
		req, fe := nodeSelectorRequirement(fp.index(i), r, true)
		if fe != nil {
			return out, fe
		}
		out.MatchFields = append(out.MatchFields, req)
	}
	return out, nil
}

func nodeSelectorRequirement(p path, in *berthv1.NodeSelectorRequirement, field bool) (model.NodeSelectorRequirement, *FieldError) {
	kp, vp := p.field("key"), p.field("values")
	if fe := overCap(vp, len(in.GetValues()), MaxValues); fe != nil {
		return model.NodeSelectorRequirement{}, fe
	}
	out := model.NodeSelectorRequirement{Key: in.GetKey(), Values: slices.Clone(in.GetValues())}
	if field {
		if in.GetKey() != model.NodeFieldName {
			return out, kp.errorf("must be %q, the only node field, got %s", model.NodeFieldName, quote(in.GetKey()))
		}
	} else if fe := qualifiedName(kp, in.GetKey()); fe != nil {
		return out, fe
	}
	op, fe := nodeSelectorOperators().model(p.field("operator"), in.GetOperator(), false)
	if fe != nil {
		return out, fe
	}
	out.Operator = op
	n := len(in.GetValues())
	switch op {
	case model.NodeSelectorOpIn, model.NodeSelectorOpNotIn:
		if field && n != 1 {
			return out, vp.errorf("must have exactly one value for a node field, got %d", n)
		}
		if n == 0 {
			return out, vp.errorf("must be non-empty when operator is %s", in.GetOperator())
		}
	case model.NodeSelectorOpExists, model.NodeSelectorOpDoesNotExist:
		if field {
			return out, p.field("operator").errorf("must be NODE_SELECTOR_OPERATOR_IN or NODE_SELECTOR_OPERATOR_NOT_IN for a node field")
		}
		if n != 0 {
			return out, vp.errorf("must be empty when operator is %s", in.GetOperator())
		}
	case model.NodeSelectorOpGt, model.NodeSelectorOpLt:
		if field {
			return out, p.field("operator").errorf("must be NODE_SELECTOR_OPERATOR_IN or NODE_SELECTOR_OPERATOR_NOT_IN for a node field")
		}
		if n != 1 {
			return out, vp.errorf("must have exactly one value when operator is %s, got %d", in.GetOperator(), n)
		}
		if _, err := strconv.ParseInt(in.GetValues()[0], 10, 64); err != nil {
			return out, vp.index(0).errorf("must be an integer when operator is %s, got %s", in.GetOperator(), quote(in.GetValues()[0]))
		}
	}
	if !field {
		for j, v := range in.GetValues() {
			if op == model.NodeSelectorOpIn || op == model.NodeSelectorOpNotIn {
				if fe := labelValue(vp.index(j), v); fe != nil {
					return out, fe
				}
			}
		}
	}
	return out, nil
}

func nodeSelectorToProto(in *model.NodeSelector) *berthv1.NodeSelector {
	if in == nil {
		return nil
	}
	out := &berthv1.NodeSelector{}
	for i := range in.Terms {
		out.NodeSelectorTerms = append(out.NodeSelectorTerms, nodeSelectorTermToProto(&in.Terms[i]))
	}
	return out
}

func nodeSelectorTermToProto(in *model.NodeSelectorTerm) *berthv1.NodeSelectorTerm {
	out := &berthv1.NodeSelectorTerm{}
	ops := nodeSelectorOperators()
	conv := func(rs []model.NodeSelectorRequirement) []*berthv1.NodeSelectorRequirement {
		var reqs []*berthv1.NodeSelectorRequirement
		for _, r := range rs {
			reqs = append(reqs, &berthv1.NodeSelectorRequirement{Key: r.Key, Operator: ops.proto(r.Operator), Values: slices.Clone(r.Values)})
		}
		return reqs
	}
	out.MatchExpressions = conv(in.MatchExpressions)
	out.MatchFields = conv(in.MatchFields)
	return out
}
