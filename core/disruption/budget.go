package disruption

import "github.com/berthsched/berth/core/model"

// Status is a budget's status, as kube's disruption controller writes it.
type Status struct {
	Expected, CurrentHealthy, DesiredHealthy, DisruptionsAllowed int32
}

// Compute returns the status of pdb (whose compiled selector is sel) over
// pods: expected counts the pods it selects in its namespace; healthy are
// those bound, ready, not terminating and not among its disrupted pods;
// desired is minAvailable (a percentage of expected, rounded up) or
// expected minus maxUnavailable (rounded up likewise), at least 0; the
// allowance is healthy minus desired, at least 0, and 0 with no pods. A
// DisruptionsAllowed the caller gave wins over the computed one.
func Compute(pdb *model.PodDisruptionBudget, sel model.Selector, pods []*model.Pod) Status {
	var st Status
	for _, p := range pods {
		if p.Namespace != pdb.Namespace || !sel.Matches(p.Labels) {
			continue
		}
		st.Expected++
		if _, disrupted := pdb.DisruptedPods[p.Name]; disrupted {
			continue
		}
		if p.NodeName != "" && !p.Terminating && p.Ready {
			st.CurrentHealthy++
		}
	}
	switch {
	case pdb.MaxUnavailable != nil:
		st.DesiredHealthy = max(st.Expected-Scaled(*pdb.MaxUnavailable, st.Expected), 0)
	case pdb.MinAvailable != nil:
		st.DesiredHealthy = Scaled(*pdb.MinAvailable, st.Expected)
	}
	if allowed := st.CurrentHealthy - st.DesiredHealthy; st.Expected > 0 && allowed > 0 {
		st.DisruptionsAllowed = allowed
	}
	if pdb.DisruptionsAllowed != nil {
		st.DisruptionsAllowed = *pdb.DisruptionsAllowed
	}
	return st
}

// Scaled resolves an absolute value or a percentage of total, rounding up
// (as kube's GetScaledValueFromIntOrPercent with roundUp).
func Scaled(v model.IntOrPercent, total int32) int32 {
	if !v.IsPercent {
		return v.Value
	}
	return int32((int64(v.Value)*int64(total) + 99) / 100)
}
