package tainteviction

import (
	"time"

	"github.com/berthsched/berth/core/model"
)

// Verdict is what to do with a pod on a tainted node.
type Verdict uint8

const (
	// Leave: nothing to schedule, and any scheduled eviction is cancelled.
	Leave Verdict = iota
	// EvictNow: evict the pod at once (a scheduled eviction is superseded).
	EvictNow
	// Keep: an eviction is scheduled already and stays as it is.
	Keep
	// Schedule: schedule the eviction at Decision.At, started now.
	Schedule
)

func (v Verdict) String() string {
	return [...]string{"leave", "evict-now", "keep", "schedule"}[v]
}

// Scheduled is an eviction scheduled for a pod: when it was started (kube's
// createdAt) and when it fires.
type Scheduled struct {
	Started, At time.Time
}

// Decision is the verdict, with the deadline for Schedule and the taint the
// pod does not tolerate for EvictNow.
type Decision struct {
	Verdict     Verdict
	At          time.Time
	Untolerated *model.Taint
}

// Decide applies the controller's rules to a pod with tolerations on a node
// with taints; scheduled is the pod's scheduled eviction, nil if none.
func Decide(taints []model.Taint, tolerations []model.Toleration, scheduled *Scheduled, now time.Time) Decision {
	noExecute := NoExecute(taints)
	if len(noExecute) == 0 {
		return Decision{Verdict: Leave}
	}
	min, forever, untolerated := minToleration(noExecute, tolerations)
	switch {
	case untolerated != nil:
		return Decision{Verdict: EvictNow, Untolerated: untolerated}
	case forever:
		return Decision{Verdict: Leave}
	case scheduled != nil && scheduled.Started.Add(min).Before(now.Add(min)):
		return Decision{Verdict: Keep, At: scheduled.At}
	case min <= 0:
		return Decision{Verdict: EvictNow}
	}
	return Decision{Verdict: Schedule, At: now.Add(min)}
}

// NoExecute returns the NoExecute taints among taints.
func NoExecute(taints []model.Taint) []model.Taint {
	var out []model.Taint
	for _, t := range taints {
		if t.Effect == model.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// minToleration returns the smallest tolerationSeconds among the
// tolerations used for taints (the first matching one per taint), forever
// when none of them has seconds, or the first taint no toleration
// matches.
func minToleration(taints []model.Taint, tolerations []model.Toleration) (min time.Duration, forever bool, untolerated *model.Taint) {
	found := false
	for i := range taints {
		tol := firstMatching(tolerations, &taints[i])
		if tol == nil {
			return 0, false, &taints[i]
		}
		if tol.TolerationSeconds == nil {
			continue
		}
		d := time.Duration(max(*tol.TolerationSeconds, 0)) * time.Second
		if !found || d < min {
			min, found = d, true
		}
	}
	return min, !found, nil
}

func firstMatching(tolerations []model.Toleration, taint *model.Taint) *model.Toleration {
	for i := range tolerations {
		if tolerations[i].Tolerates(taint) {
			return &tolerations[i]
		}
	}
	return nil
}
