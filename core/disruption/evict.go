package disruption

import "github.com/berthsched/berth/core/model"

// Budget is a budget covering a pod, with its status now.
type Budget struct {
	PDB    *model.PodDisruptionBudget
	Status Status
}

// Verdict is the Eviction API's answer for one pod.
type Verdict uint8

const (
	// Allow: evict without charging a budget (no budget, a pod not
	// running or terminating already, or a pod not ready let go by its
	// budget's unhealthyPodEvictionPolicy).
	Allow Verdict = iota
	// AllowCharged: evict, charging the one budget a disruption.
	AllowCharged
	// RefuseBudget: the budget allows no disruption now (kube's 429).
	RefuseBudget
	// RefuseMultiple: more than one budget covers the pod (kube refuses
	// these evictions outright).
	RefuseMultiple
)

func (v Verdict) String() string {
	return [...]string{"allow", "allow-charged", "refuse-budget", "refuse-multiple"}[v]
}

// Check applies the Eviction API's rule to pod, covered by budgets (those
// of its namespace whose selector matches its labels).
func Check(pod *model.Pod, budgets []Budget) Verdict {
	switch {
	case pod.NodeName == "" || pod.Terminating:
		return Allow
	case len(budgets) == 0:
		return Allow
	case len(budgets) > 1:
		return RefuseMultiple
	}
	b := budgets[0]
	if !pod.Ready {
		if b.PDB.UnhealthyPodEvictionPolicy == model.UnhealthyPodEvictionAlwaysAllow {
			return Allow
		}
		if b.Status.CurrentHealthy >= b.Status.DesiredHealthy && b.Status.DesiredHealthy > 0 {
			return Allow
		}
	}
	if b.Status.DisruptionsAllowed <= 0 {
		return RefuseBudget
	}
	return AllowCharged
}

// Covers reports whether the budget covers the pod for the eviction API:
// same namespace, a pod with labels, a selector that matches them (an
// empty selector matches every labelled pod, a nil one none).
func Covers(pdb *model.PodDisruptionBudget, sel model.Selector, pod *model.Pod) bool {
	return pdb.Selector != nil && pdb.Namespace == pod.Namespace && len(pod.Labels) > 0 && sel.Matches(pod.Labels)
}
