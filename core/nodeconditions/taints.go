// Package nodeconditions derives from a node's conditions the taints
// Kubernetes' node lifecycle controller adds (TaintNodesByCondition, and
// the NoExecute taints of taint-based eviction), so that a node reported
// not ready or under pressure repels pods, and evicts them, as in a
// cluster. berthd applies it to every node it is sent when its
// taintNodesByCondition setting is on (the default).
package nodeconditions

import (
	"slices"

	"github.com/berthsched/berth/core/model"
)

// The taint keys of the node lifecycle controller.
const (
	TaintNotReady           = "node.kubernetes.io/not-ready"
	TaintUnreachable        = "node.kubernetes.io/unreachable"
	TaintMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintPIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// Taints returns the taints the conditions imply, in a fixed order: Ready
// False gives not-ready, Ready Unknown unreachable (each NoSchedule and
// NoExecute); MemoryPressure, DiskPressure, PIDPressure and
// NetworkUnavailable True give their NoSchedule taint.
func Taints(conds []model.NodeCondition) []model.Taint {
	var out []model.Taint
	both := func(key string) {
		out = append(out,
			model.Taint{Key: key, Effect: model.TaintEffectNoSchedule},
			model.Taint{Key: key, Effect: model.TaintEffectNoExecute})
	}
	for _, c := range conds {
		switch {
		case c.Type == model.NodeReady && c.Status == model.ConditionFalse:
			both(TaintNotReady)
		case c.Type == model.NodeReady && c.Status == model.ConditionUnknown:
			both(TaintUnreachable)
		case c.Status != model.ConditionTrue:
		case c.Type == model.NodeMemoryPressure:
			out = append(out, model.Taint{Key: TaintMemoryPressure, Effect: model.TaintEffectNoSchedule})
		case c.Type == model.NodeDiskPressure:
			out = append(out, model.Taint{Key: TaintDiskPressure, Effect: model.TaintEffectNoSchedule})
		case c.Type == model.NodePIDPressure:
			out = append(out, model.Taint{Key: TaintPIDPressure, Effect: model.TaintEffectNoSchedule})
		case c.Type == model.NodeNetworkUnavailable:
			out = append(out, model.Taint{Key: TaintNetworkUnavailable, Effect: model.TaintEffectNoSchedule})
		}
	}
	return out
}

// Apply returns node with the derived taints added to its Taints (those
// not sent already, same key and effect) and recorded in DerivedTaints;
// node itself when it has none to add.
func Apply(node *model.Node) *model.Node {
	var add []model.Taint
	for _, t := range Taints(node.Conditions) {
		if !slices.ContainsFunc(node.Taints, func(s model.Taint) bool { return s.Key == t.Key && s.Effect == t.Effect }) {
			add = append(add, t)
		}
	}
	if len(add) == 0 {
		return node
	}
	out := *node
	out.Taints = append(slices.Clip(slices.Clone(node.Taints)), add...)
	out.DerivedTaints = add
	return &out
}
