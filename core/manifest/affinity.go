package manifest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/berthsched/berth/core/model"
)

func affinity(a *corev1.Affinity) (*model.Affinity, *fieldError) {
	if a == nil {
		return nil, nil
	}
	out := &model.Affinity{}
	if na := a.NodeAffinity; na != nil {
		out.NodeAffinity = &model.NodeAffinity{}
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			ns := &model.NodeSelector{}
			for i, t := range req.NodeSelectorTerms {
				term, ferr := nodeSelectorTerm(t)
				if ferr != nil {
					ferr.field = fmt.Sprintf(".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]%s", i, ferr.field)
					return nil, ferr
				}
				ns.Terms = append(ns.Terms, term)
			}
			out.NodeAffinity.Required = ns
		}
		for i, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			at := fmt.Sprintf(".nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d]", i)
			if p.Weight < 1 || p.Weight > 100 {
				return nil, &fieldError{field: at + ".weight", err: fmt.Errorf("must be 1..100, got %d", p.Weight)}
			}
			term, ferr := nodeSelectorTerm(p.Preference)
			if ferr != nil {
				ferr.field = at + ".preference" + ferr.field
				return nil, ferr
			}
			out.NodeAffinity.Preferred = append(out.NodeAffinity.Preferred, model.PreferredSchedulingTerm{Weight: p.Weight, Preference: term})
		}
	}
	if pa := a.PodAffinity; pa != nil {
		req, pref, ferr := podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, ".podAffinity")
		if ferr != nil {
			return nil, ferr
		}
		out.PodAffinity = &model.PodAffinity{Required: req, Preferred: pref}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		req, pref, ferr := podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, ".podAntiAffinity")
		if ferr != nil {
			return nil, ferr
		}
		out.PodAntiAffinity = &model.PodAntiAffinity{Required: req, Preferred: pref}
	}
	return out, nil
}

func nodeSelectorTerm(t corev1.NodeSelectorTerm) (model.NodeSelectorTerm, *fieldError) {
	conv := func(rs []corev1.NodeSelectorRequirement) []model.NodeSelectorRequirement {
		var out []model.NodeSelectorRequirement
		for _, r := range rs {
			out = append(out, model.NodeSelectorRequirement{Key: r.Key, Operator: model.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return out
	}
	term := model.NodeSelectorTerm{MatchExpressions: conv(t.MatchExpressions), MatchFields: conv(t.MatchFields)}
	if err := term.Validate(); err != nil {
		return term, &fieldError{err: err}
	}
	return term, nil
}

func podAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, path string) ([]model.PodAffinityTerm, []model.WeightedPodAffinityTerm, *fieldError) {
	var req []model.PodAffinityTerm
	for i, t := range required {
		term, ferr := podAffinityTerm(t)
		if ferr != nil {
			ferr.field = fmt.Sprintf("%s.requiredDuringSchedulingIgnoredDuringExecution[%d]%s", path, i, ferr.field)
			return nil, nil, ferr
		}
		req = append(req, term)
	}
	var pref []model.WeightedPodAffinityTerm
	for i, w := range preferred {
		at := fmt.Sprintf("%s.preferredDuringSchedulingIgnoredDuringExecution[%d]", path, i)
		if w.Weight < 1 || w.Weight > 100 {
			return nil, nil, &fieldError{field: at + ".weight", err: fmt.Errorf("must be 1..100, got %d", w.Weight)}
		}
		term, ferr := podAffinityTerm(w.PodAffinityTerm)
		if ferr != nil {
			ferr.field = at + ".podAffinityTerm" + ferr.field
			return nil, nil, ferr
		}
		pref = append(pref, model.WeightedPodAffinityTerm{Weight: w.Weight, Term: term})
	}
	return req, pref, nil
}

func podAffinityTerm(t corev1.PodAffinityTerm) (model.PodAffinityTerm, *fieldError) {
	if t.TopologyKey == "" {
		return model.PodAffinityTerm{}, &fieldError{field: ".topologyKey", err: fmt.Errorf("required")}
	}
	sel, ferr := labelSelector(t.LabelSelector)
	if ferr != nil {
		ferr.field = ".labelSelector" + ferr.field
		return model.PodAffinityTerm{}, ferr
	}
	nsSel, ferr := labelSelector(t.NamespaceSelector)
	if ferr != nil {
		ferr.field = ".namespaceSelector" + ferr.field
		return model.PodAffinityTerm{}, ferr
	}
	return model.PodAffinityTerm{
		LabelSelector: sel, Namespaces: t.Namespaces, NamespaceSelector: nsSel, TopologyKey: t.TopologyKey,
		MatchLabelKeys: t.MatchLabelKeys, MismatchLabelKeys: t.MismatchLabelKeys,
	}, nil
}
