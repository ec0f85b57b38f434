package nodeaffinity

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.NodeAffinity

// Filter and PreFilter reasons, as kube-scheduler words them.
const (
	// ErrReasonPod: the node fails the pod's nodeSelector or required node
	// affinity.
	ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonEnforced: the node fails the args' addedAffinity.
	ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ErrReasonConflict: every required term names nodes by metadata.name
	// and the names contradict each other, so no node can match.
	ErrReasonConflict = "pod affinity terms conflict"
)

// NodeAffinity filters and scores nodes by the pod's node affinity.
type NodeAffinity struct {
	addedRequired  *model.NodeSelector // nil: no added requirement
	addedPreferred []model.PreferredSchedulingTerm
}

var (
	_ framework.PreFilterPlugin   = (*NodeAffinity)(nil)
	_ framework.FilterPlugin      = (*NodeAffinity)(nil)
	_ framework.SignPlugin        = (*NodeAffinity)(nil)
	_ framework.PreScorePlugin    = (*NodeAffinity)(nil)
	_ framework.ScorePlugin       = (*NodeAffinity)(nil)
	_ framework.ScoreExtensions   = (*NodeAffinity)(nil)
	_ framework.EnqueueExtensions = (*NodeAffinity)(nil)
)

// New decodes NodeAffinityArgs and returns the plugin.
func New(_ context.Context, raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args, err := DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(args), nil
}

// NewWithArgs returns the plugin for decoded args.
func NewWithArgs(args *Args) *NodeAffinity {
	pl := &NodeAffinity{}
	if a := args.AddedAffinity; a != nil {
		pl.addedRequired = a.Required
		pl.addedPreferred = a.Preferred
	}
	return pl
}

// Name returns Name.
func (*NodeAffinity) Name() string { return Name }

// hasRequired reports whether the pod constrains nodes by nodeSelector or
// required node affinity.
func hasRequired(pod *model.Pod) bool {
	return len(pod.NodeSelector) > 0 || requiredAffinity(pod) != nil
}

func requiredAffinity(pod *model.Pod) *model.NodeSelector {
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.Required
	}
	return nil
}

func preferredAffinity(pod *model.Pod) []model.PreferredSchedulingTerm {
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.Preferred
	}
	return nil
}

// RequiredMatches reports whether the node satisfies the pod's nodeSelector
// and required node affinity (the added affinity of the args aside).
func RequiredMatches(pod *model.Pod, node *model.Node) bool {
	for k, v := range pod.NodeSelector {
		if have, ok := node.Labels[k]; !ok || have != v {
			return false
		}
	}
	if req := requiredAffinity(pod); req != nil {
		return req.Matches(node)
	}
	return true
}

// PreFilter Skips pods with nothing to enforce. When every required term
// names nodes with matchFields metadata.name In, it narrows the nodes to
// the union of the names each term allows.
func (pl *NodeAffinity) PreFilter(_ context.Context, _ *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !hasRequired(pod) && pl.addedRequired == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	req := requiredAffinity(pod)
	if req == nil || len(req.Terms) == 0 {
		return nil, nil
	}
	var union map[string]struct{}
	for i := range req.Terms {
		names := termNodeNames(&req.Terms[i])
		if names == nil {
			return nil, nil // this term allows any node; the terms are ORed
		}
		if union == nil {
			union = make(map[string]struct{}, len(names))
		}
		for n := range names {
			union[n] = struct{}{}
		}
	}
	if len(union) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	return &framework.PreFilterResult{NodeNames: union}, nil
}

// termNodeNames returns the node names a term's metadata.name In
// requirements allow (their intersection), or nil when it has none.
func termNodeNames(t *model.NodeSelectorTerm) map[string]struct{} {
	var names map[string]struct{}
	for _, r := range t.MatchFields {
		if r.Key != model.NodeFieldName || r.Operator != model.NodeSelectorOpIn {
			continue
		}
		if names == nil {
			names = make(map[string]struct{}, len(r.Values))
			for _, v := range r.Values {
				names[v] = struct{}{}
			}
			continue
		}
		for n := range names {
			if !containsString(r.Values, n) {
				delete(names, n)
			}
		}
	}
	return names
}

func containsString(values []string, v string) bool {
	for _, s := range values {
		if s == v {
			return true
		}
	}
	return false
}

// PreFilterExtensions returns nil: nothing depends on other pods.
func (*NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node that fails the added affinity or the pod's own
// rules. Evictions change no labels, so the code is
// UnschedulableAndUnresolvable.
func (pl *NodeAffinity) Filter(_ context.Context, _ *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if pl.addedRequired != nil && !pl.addedRequired.Matches(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonEnforced)
	}
	if !RequiredMatches(pod, node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

// PreScore Skips pods without preferred terms when the args add none.
func (pl *NodeAffinity) PreScore(_ context.Context, _ *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	if len(preferredAffinity(pod)) == 0 && len(pl.addedPreferred) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// Score sums the weights of the preferred terms the node matches.
func (pl *NodeAffinity) Score(_ context.Context, _ *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	return preferredScore(pl.addedPreferred, node) + preferredScore(preferredAffinity(pod), node), nil
}

func preferredScore(terms []model.PreferredSchedulingTerm, node *model.Node) int64 {
	var sum int64
	for i := range terms {
		if terms[i].Preference.Matches(node) {
			sum += int64(terms[i].Weight)
		}
	}
	return sum
}

// ScoreExtensions returns the plugin: it normalizes its scores.
func (pl *NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the sums so the best node scores 100.
func (*NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
	return nil
}

// EventsToRegister: a node added or relabelled.
func (pl *NodeAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel},
		QueueingHintFn: pl.isSchedulableAfterNodeChange,
	}}, nil
}

// isSchedulableAfterNodeChange queues the pod when a node that passes the
// added affinity is added matching the pod, or changes from not matching
// to matching.
func (pl *NodeAffinity) isSchedulableAfterNodeChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil {
		return framework.QueueSkip, nil
	}
	if pl.addedRequired != nil && !pl.addedRequired.Matches(updated) {
		return framework.QueueSkip, nil
	}
	if !RequiredMatches(pod, updated) {
		return framework.QueueSkip, nil
	}
	if old != nil && RequiredMatches(pod, old) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// SignPod signs what the plugin reads of the pod: the nodeSelector and the
// node affinity (the added affinity is the profile's, the same for all).
func (*NodeAffinity) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.StringMap(pod.NodeSelector)
	var na *model.NodeAffinity
	if pod.Affinity != nil {
		na = pod.Affinity.NodeAffinity
	}
	sig.NodeAffinity(na)
}
