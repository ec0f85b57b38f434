package framework

import (
	"slices"

	"github.com/berthsched/berth/core/model"
)

// NominatedPodsToAdd returns the pods nominated to nodeInfo's node that a
// filter pass adds for pod before filtering it there (kube's
// addGENominatedPods): those of pod's priority or above, pod's own
// nomination aside. Empty when there are none, or no nominator. The
// slice may be the nominator's: it must not be changed.
func NominatedPodsToAdd(n PodNominator, pod *model.Pod, nodeInfo *NodeInfo) []*PodInfo {
	if n == nil || nodeInfo.Node() == nil {
		return nil
	}
	all := n.NominatedPodsForNode(nodeInfo.Name())
	for i, pi := range all {
		if pi.Pod.Priority < pod.Priority || pi.Pod.UID == pod.UID {
			// Some are left out: a new slice with the others.
			out := slices.Clone(all[:i])
			for _, pi := range all[i+1:] {
				if pi.Pod.Priority >= pod.Priority && pi.Pod.UID != pod.UID {
					out = append(out, pi)
				}
			}
			return slices.Clip(out)
		}
	}
	// All of them, without a copy: the nominator's slices are never
	// changed once handed out.
	return all
}

// SamePodInfos reports whether a and b hold the same PodInfos, by identity
// (a PodInfo never changes once made), in the same order.
func SamePodInfos(a, b []*PodInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
