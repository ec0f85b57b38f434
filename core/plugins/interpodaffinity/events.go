package interpodaffinity

import (
	"context"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// EventsToRegister: an assigned pod added, relabelled or deleted, and a
// node added or relabelled.
func (pl *InterPodAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionAdd | framework.ActionUpdatePodLabel | framework.ActionDelete},
			QueueingHintFn: isSchedulableAfterPodChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel},
			QueueingHintFn: isSchedulableAfterNodeChange,
		},
	}, nil
}

// hintTerms compiles a pod's required terms for queueing hints. As in
// kube-scheduler, namespaceSelectors are not resolved here: a term matches
// a pod of another namespace only if its selector matches an empty label
// set.
func hintTerms(pod *model.Pod) (affinity, anti []term, err error) {
	a, n := requiredTerms(pod)
	if affinity, err = compileTerms(pod, a, nil); err != nil {
		return nil, nil, err
	}
	if anti, err = compileTerms(pod, n, nil); err != nil {
		return nil, nil, err
	}
	return affinity, anti, nil
}

func unassigned(p *model.Pod) bool { return p.NodeName == "" && p.NominatedNodeName == "" }

// isSchedulableAfterPodChange queues the pod when its own labels changed;
// when an assigned pod now matches all its affinity terms (added, or
// relabelled to match) or stopped matching all its anti-affinity terms;
// and when a deleted pod matched all its anti-affinity terms or had
// anti-affinity the pod matches.
func isSchedulableAfterPodChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old != nil && updated != nil && updated.UID == pod.UID {
		return framework.Queue, nil
	}
	if (updated != nil && unassigned(updated)) || (old != nil && unassigned(old)) {
		return framework.QueueSkip, nil
	}
	affinity, anti, err := hintTerms(pod)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case old != nil && updated != nil:
		if !matchesAll(affinity, old) && matchesAll(affinity, updated) {
			return framework.Queue, nil
		}
		if matchesAll(anti, old) && !matchesAll(anti, updated) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case updated != nil:
		if matchesAll(affinity, updated) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case old == nil:
		return framework.QueueSkip, nil
	}
	if matchesAll(anti, old) {
		return framework.Queue, nil
	}
	_, oldAnti, err := hintTerms(old)
	if err != nil {
		return framework.Queue, err
	}
	if matchesAll(oldAnti, pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterNodeChange queues the pod when a node gains, or
// changes the value of, the topology key of one of its affinity terms;
// with anti-affinity also when a node is added or loses or changes such a
// key.
func isSchedulableAfterNodeChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil {
		return framework.QueueSkip, nil
	}
	affinity, anti, err := hintTerms(pod)
	if err != nil {
		return framework.Queue, err
	}
	for i := range affinity {
		key := affinity[i].topologyKey
		newV, newOK := updated.Labels[key]
		if old == nil {
			if newOK {
				return framework.Queue, nil
			}
			continue
		}
		oldV, oldOK := old.Labels[key]
		if newOK && (!oldOK || oldV != newV) {
			return framework.Queue, nil
		}
	}
	for i := range anti {
		if old == nil {
			return framework.Queue, nil
		}
		key := anti[i].topologyKey
		newV, newOK := updated.Labels[key]
		oldV, oldOK := old.Labels[key]
		if oldOK && (!newOK || oldV != newV) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
