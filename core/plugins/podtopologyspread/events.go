package podtopologyspread

import (
	"context"
	"maps"
	"reflect"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// EventsToRegister: a pod added, deleted, relabelled or given new
// tolerations, and a node added, deleted, relabelled or retainted.
func (pl *PodTopologySpread) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event: framework.ClusterEvent{Resource: framework.EventPod,
				ActionType: framework.ActionAdd | framework.ActionUpdatePodLabel | framework.ActionUpdatePodToleration | framework.ActionDelete},
			QueueingHintFn: pl.isSchedulableAfterPodChange,
		},
		{
			Event: framework.ClusterEvent{Resource: framework.EventNode,
				ActionType: framework.ActionAdd | framework.ActionDelete | framework.ActionUpdateNodeLabel | framework.ActionUpdateNodeTaint},
			QueueingHintFn: pl.isSchedulableAfterNodeChange,
		},
	}, nil
}

// involved reports whether a change of other can affect the spreading of
// pod: it is pod itself, or an assigned (or nominated) pod of its
// namespace.
func involved(other, pod *model.Pod) bool {
	if other.UID == pod.UID {
		return true
	}
	if other.NodeName == "" && other.NominatedNodeName == "" {
		return false
	}
	return other.Namespace == pod.Namespace
}

// isSchedulableAfterPodChange queues the pod when an involved pod that one
// of its DoNotSchedule constraints selects is added or deleted, when a
// relabelling changes whether a constraint selects a pod, and when the
// pod itself gains tolerations while a constraint honors taints.
func (pl *PodTopologySpread) isSchedulableAfterPodChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (updated != nil && !involved(updated, pod)) || (old != nil && !involved(old, pod)) {
		return framework.QueueSkip, nil
	}
	cs, err := pl.constraints(pod, model.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case old != nil && updated != nil:
		if updated.UID == pod.UID && !tolerationsEqual(old.Tolerations, updated.Tolerations) && slices.ContainsFunc(cs, func(c constraint) bool { return c.honorTaints }) {
			return framework.Queue, nil
		}
		if maps.Equal(old.Labels, updated.Labels) {
			return framework.QueueSkip, nil
		}
		for i := range cs {
			if cs[i].selector.Matches(old.Labels) != cs[i].selector.Matches(updated.Labels) {
				return framework.Queue, nil
			}
		}
		return framework.QueueSkip, nil
	case updated != nil:
		return queueIf(anySelects(cs, updated)), nil
	case old != nil:
		return queueIf(anySelects(cs, old)), nil
	}
	return framework.QueueSkip, nil
}

func anySelects(cs []constraint, p *model.Pod) bool {
	for i := range cs {
		if cs[i].selector.Matches(p.Labels) {
			return true
		}
	}
	return false
}

func queueIf(b bool) framework.QueueingHint {
	if b {
		return framework.Queue
	}
	return framework.QueueSkip
}

// tolerationsEqual compares tolerations as Kubernetes' semantic equality
// does: nil and empty are equal.
func tolerationsEqual(a, b []model.Toleration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// isSchedulableAfterNodeChange queues the pod when a node that has every
// topology key of its DoNotSchedule constraints is added or deleted, when
// an update makes a node gain or lose one of those keys, and when a node
// with all of them changes their values or its taints.
func (pl *PodTopologySpread) isSchedulableAfterNodeChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	cs, err := pl.constraints(pod, model.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	oldMatch := old != nil && hasAllKeys(old, cs)
	newMatch := updated != nil && hasAllKeys(updated, cs)
	switch {
	case old != nil && updated != nil:
		if oldMatch != newMatch {
			return framework.Queue, nil
		}
		return queueIf(newMatch && (keyValuesChanged(old, updated, cs) || !slices.Equal(old.Taints, updated.Taints))), nil
	case updated != nil:
		return queueIf(newMatch), nil
	default:
		return queueIf(oldMatch), nil
	}
}

func keyValuesChanged(old, updated *model.Node, cs []constraint) bool {
	for i := range cs {
		if k := cs[i].topologyKey; old.Labels[k] != updated.Labels[k] {
			return true
		}
	}
	return false
}
