package convert

import (
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

func affinity(p path, in *berthv1.Affinity) (*model.Affinity, *FieldError) {
	if in == nil {
		return nil, nil
	}
	out := &model.Affinity{}
	if na := in.GetNodeAffinity(); na != nil {
		np := p.field("node_affinity")
		req, fe := nodeSelector(np.field("required_during_scheduling_ignored_during_execution"), na.GetRequiredDuringSchedulingIgnoredDuringExecution())
		if fe != nil {
			return nil, fe
		}
		out.NodeAffinity = &model.NodeAffinity{Required: req, Preferred: sized[model.PreferredSchedulingTerm](len(na.GetPreferredDuringSchedulingIgnoredDuringExecution()))}
		pp := np.field("preferred_during_scheduling_ignored_during_execution")
		if fe := overCap(pp, len(na.GetPreferredDuringSchedulingIgnoredDuringExecution()), MaxTerms); fe != nil {
			return nil, fe
		}
		for i, t := range na.GetPreferredDuringSchedulingIgnoredDuringExecution() {
			ip := pp.index(i)
			if fe := weight(ip.field("weight"), t.GetWeight()); fe != nil {
				return nil, fe
			}
			term, fe := nodeSelectorTerm(ip.field("preference"), t.GetPreference())
			if fe != nil {
				return nil, fe
			}
			out.NodeAffinity.Preferred = append(out.NodeAffinity.Preferred, model.PreferredSchedulingTerm{Weight: t.GetWeight(), Preference: term})
		}
	}
	if pa := in.GetPodAffinity(); pa != nil {
		req, pref, fe := podAffinityTerms(p.field("pod_affinity"), pa.GetRequiredDuringSchedulingIgnoredDuringExecution(), pa.GetPreferredDuringSchedulingIgnoredDuringExecution())
		if fe != nil {
			return nil, fe
		}
		out.PodAffinity = &model.PodAffinity{Required: req, Preferred: pref}
	}
	if pa := in.GetPodAntiAffinity(); pa != nil {
		req, pref, fe := podAffinityTerms(p.field("pod_anti_affinity"), pa.GetRequiredDuringSchedulingIgnoredDuringExecution(), pa.GetPreferredDuringSchedulingIgnoredDuringExecution())
		if fe != nil {
			return nil, fe
		}
		out.PodAntiAffinity = &model.PodAntiAffinity{Required: req, Preferred: pref}
	}
	return out, nil
}

func podAffinityTerms(p path, required []*berthv1.PodAffinityTerm, preferred []*berthv1.WeightedPodAffinityTerm) ([]model.PodAffinityTerm, []model.WeightedPodAffinityTerm, *FieldError) {
	rp := p.field("required_during_scheduling_ignored_during_execution")
	pp := p.field("preferred_during_scheduling_ignored_during_execution")
	if fe := overCap(rp, len(required), MaxTerms); fe != nil {
		return nil, nil, fe
	}
	if fe := overCap(pp, len(preferred), MaxTerms); fe != nil {
		return nil, nil, fe
	}
	req := sized[model.PodAffinityTerm](len(required))
	for i, t := range required {
		term, fe := podAffinityTerm(rp.index(i), t)
		if fe != nil {
			return nil, nil, fe
		}
		req = append(req, term)
	}
	pref := sized[model.WeightedPodAffinityTerm](len(preferred))
	for i, t := range preferred {
		ip := pp.index(i)
		if fe := weight(ip.field("weight"), t.GetWeight()); fe != nil {
			return nil, nil, fe
		}
		tp := ip.field("pod_affinity_term")
		if t.GetPodAffinityTerm() == nil {
			return nil, nil, tp.errorf("required")
		}
		term, fe := podAffinityTerm(tp, t.GetPodAffinityTerm())
		if fe != nil {
			return nil, nil, fe
		}
		pref = append(pref, model.WeightedPodAffinityTerm{Weight: t.GetWeight(), Term: term})
	}
	return req, pref, nil
}

func podAffinityTerm(p path, in *berthv1.PodAffinityTerm) (model.PodAffinityTerm, *FieldError) {
	var out model.PodAffinityTerm
	sel, fe := labelSelector(p.field("label_selector"), in.GetLabelSelector())
	if fe != nil {
		return out, fe
	}
	nsSel, fe := labelSelector(p.field("namespace_selector"), in.GetNamespaceSelector())
	if fe != nil {
		return out, fe
	}
	nsp := p.field("namespaces")
	if fe := overCap(nsp, len(in.GetNamespaces()), MaxNamespaces); fe != nil {
		return out, fe
	}
	for i, ns := range in.GetNamespaces() {
		if fe := dnsLabel(nsp.index(i), ns); fe != nil {
			return out, fe
		}
	}
	if fe := qualifiedName(p.field("topology_key"), in.GetTopologyKey()); fe != nil {
		return out, fe
	}
	for _, keys := range []struct {
		name string
		list []string
	}{{"match_label_keys", in.GetMatchLabelKeys()}, {"mismatch_label_keys", in.GetMismatchLabelKeys()}} {
		lp := p.field(keys.name)
		if fe := overCap(lp, len(keys.list), MaxLabelKeys); fe != nil {
			return out, fe
		}
		for i, k := range keys.list {
			kp := lp.index(i)
			if fe := qualifiedName(kp, k); fe != nil {
				return out, fe
			}
			if sel == nil {
				return out, kp.errorf("needs label_selector to be set")
			}
		}
	}
	for i, k := range in.GetMismatchLabelKeys() {
		if slices.Contains(in.GetMatchLabelKeys(), k) {
			mp := p.field("mismatch_label_keys")
			return out, mp.index(i).errorf("%q is also in match_label_keys; a key may be in only one of them", k)
		}
	}
	out = model.PodAffinityTerm{
		LabelSelector:     sel,
		Namespaces:        slices.Clone(in.GetNamespaces()),
		NamespaceSelector: nsSel,
		TopologyKey:       in.GetTopologyKey(),
		MatchLabelKeys:    slices.Clone(in.GetMatchLabelKeys()),
		MismatchLabelKeys: slices.Clone(in.GetMismatchLabelKeys()),
	}
	return out, nil
}

func affinityToProto(in *model.Affinity) *berthv1.Affinity {
	if in == nil {
		return nil
	}
	out := &berthv1.Affinity{}
	if na := in.NodeAffinity; na != nil {
		out.NodeAffinity = &berthv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: nodeSelectorToProto(na.Required)}
		for i := range na.Preferred {
			t := &na.Preferred[i]
			out.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(out.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				&berthv1.PreferredSchedulingTerm{Weight: t.Weight, Preference: nodeSelectorTermToProto(&t.Preference)})
		}
	}
	if pa := in.PodAffinity; pa != nil {
		req, pref := podAffinityTermsToProto(pa.Required, pa.Preferred)
		out.PodAffinity = &berthv1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req, PreferredDuringSchedulingIgnoredDuringExecution: pref}
	}
	if pa := in.PodAntiAffinity; pa != nil {
		req, pref := podAffinityTermsToProto(pa.Required, pa.Preferred)
		out.PodAntiAffinity = &berthv1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req, PreferredDuringSchedulingIgnoredDuringExecution: pref}
	}
	return out
}

func podAffinityTermsToProto(required []model.PodAffinityTerm, preferred []model.WeightedPodAffinityTerm) ([]*berthv1.PodAffinityTerm, []*berthv1.WeightedPodAffinityTerm) {
	var req []*berthv1.PodAffinityTerm
	for i := range required {
		req = append(req, podAffinityTermToProto(&required[i]))
	}
	var pref []*berthv1.WeightedPodAffinityTerm
	for i := range preferred {
		pref = append(pref, &berthv1.WeightedPodAffinityTerm{Weight: preferred[i].Weight, PodAffinityTerm: podAffinityTermToProto(&preferred[i].Term)})
	}
	return req, pref
}

func podAffinityTermToProto(in *model.PodAffinityTerm) *berthv1.PodAffinityTerm {
	return &berthv1.PodAffinityTerm{
		LabelSelector:     labelSelectorToProto(in.LabelSelector),
		Namespaces:        slices.Clone(in.Namespaces),
		TopologyKey:       in.TopologyKey,
		NamespaceSelector: labelSelectorToProto(in.NamespaceSelector),
		MatchLabelKeys:    slices.Clone(in.MatchLabelKeys),
		MismatchLabelKeys: slices.Clone(in.MismatchLabelKeys),
	}
}

// spreadConstraints converts topology spread constraints; like Kubernetes it
// refuses two constraints with the same topology_key and when_unsatisfiable.
func spreadConstraints(p path, in []*berthv1.TopologySpreadConstraint) ([]model.TopologySpreadConstraint, *FieldError) {
	if fe := overCap(p, len(in), MaxSpreadConstraints); fe != nil {
		return nil, fe
	}
	out := sized[model.TopologySpreadConstraint](len(in))
	actions, policies := unsatisfiableActions(), inclusionPolicies()
	for i, c := range in {
		cp := p.index(i)
		if c.GetMaxSkew() < 1 {
			return nil, cp.field("max_skew").errorf("must be at least 1, got %d", c.GetMaxSkew())
		}
		if fe := qualifiedName(cp.field("topology_key"), c.GetTopologyKey()); fe != nil {
			return nil, fe
		}
		action, fe := actions.model(cp.field("when_unsatisfiable"), c.GetWhenUnsatisfiable(), false)
		if fe != nil {
			return nil, fe
		}
		for j := range i {
			if in[j].GetTopologyKey() == c.GetTopologyKey() && in[j].GetWhenUnsatisfiable() == c.GetWhenUnsatisfiable() {
				return nil, cp.errorf("duplicate of topology_spread_constraints[%d]: same topology_key %q and when_unsatisfiable", j, c.GetTopologyKey())
			}
		}
		sel, fe := labelSelector(cp.field("label_selector"), c.GetLabelSelector())
		if fe != nil {
			return nil, fe
		}
		out1 := model.TopologySpreadConstraint{
			MaxSkew: c.GetMaxSkew(), TopologyKey: c.GetTopologyKey(), WhenUnsatisfiable: action,
			LabelSelector: sel, MatchLabelKeys: slices.Clone(c.GetMatchLabelKeys()),
		}
		if c.MinDomains != nil {
			mp := cp.field("min_domains")
			if action != model.DoNotSchedule {
				return nil, mp.errorf("may only be set when when_unsatisfiable is UNSATISFIABLE_CONSTRAINT_ACTION_DO_NOT_SCHEDULE")
			}
			if c.GetMinDomains() < 1 {
				return nil, mp.errorf("must be at least 1, got %d", c.GetMinDomains())
			}
			out1.MinDomains = ptr(c.GetMinDomains())
		}
		if out1.NodeAffinityPolicy, fe = inclusionPolicy(cp.field("node_affinity_policy"), policies, c.GetNodeAffinityPolicy()); fe != nil {
			return nil, fe
		}
		if out1.NodeTaintsPolicy, fe = inclusionPolicy(cp.field("node_taints_policy"), policies, c.GetNodeTaintsPolicy()); fe != nil {
			return nil, fe
		}
		mp := cp.field("match_label_keys")
		if fe := overCap(mp, len(c.GetMatchLabelKeys()), MaxLabelKeys); fe != nil {
			return nil, fe
		}
		for j, k := range c.GetMatchLabelKeys() {
			if fe := qualifiedName(mp.index(j), k); fe != nil {
				return nil, fe
			}
		}
		out = append(out, out1)
	}
	return out, nil
}

func inclusionPolicy(p path, policies enumNames[berthv1.NodeInclusionPolicy, model.NodeInclusionPolicy], v berthv1.NodeInclusionPolicy) (*model.NodeInclusionPolicy, *FieldError) {
	m, fe := policies.model(p, v, true)
	if fe != nil || m == "" {
		return nil, fe
	}
	return &m, nil
}

func spreadConstraintsToProto(in []model.TopologySpreadConstraint) []*berthv1.TopologySpreadConstraint {
	var out []*berthv1.TopologySpreadConstraint
	actions, policies := unsatisfiableActions(), inclusionPolicies()
	for i := range in {
		c := &in[i]
		pc := &berthv1.TopologySpreadConstraint{
			MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, WhenUnsatisfiable: actions.proto(c.WhenUnsatisfiable),
			LabelSelector: labelSelectorToProto(c.LabelSelector), MatchLabelKeys: slices.Clone(c.MatchLabelKeys),
		}
		if c.MinDomains != nil {
			pc.MinDomains = ptr(*c.MinDomains)
		}
		if c.NodeAffinityPolicy != nil {
			pc.NodeAffinityPolicy = policies.proto(*c.NodeAffinityPolicy)
		}
		if c.NodeTaintsPolicy != nil {
			pc.NodeTaintsPolicy = policies.proto(*c.NodeTaintsPolicy)
		}
		out = append(out, pc)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// sized is an empty slice with room for n elements, nil for none (as
// appending nothing to a nil slice leaves it).
func sized[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}
