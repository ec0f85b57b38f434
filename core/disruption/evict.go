package disruption

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/berthsched/berth/core/model"
)

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
	case notRunning(pod):
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

// notRunning says the pod's phase is one the eviction API lets go without
// asking its budget: not started yet, or finished (kube's canIgnorePDB).
func notRunning(pod *model.Pod) bool {
	switch pod.Runtime.EffectivePhase() {
	case model.PodPending, model.PodSucceeded, model.PodFailed:
		return true
	}
	return false
}

// Covers reports whether the budget covers the pod for the eviction API:
// same namespace, a pod with labels, a selector that matches them (an
// empty selector matches every labelled pod, a nil one none).
func Covers(pdb *model.PodDisruptionBudget, sel model.Selector, pod *model.Pod) bool {
	return pdb.Selector != nil && pdb.Namespace == pod.Namespace && len(pod.Labels) > 0 && sel.Matches(pod.Labels)
}

// ErrBudgetExhausted: the pod's budget allows no disruption now (kube's
// 429); ErrMultipleBudgets: more than one budget covers the pod.
var (
	ErrBudgetExhausted = errors.New("the eviction would violate the pod's disruption budget")
	ErrMultipleBudgets = errors.New("the pod is covered by more than one PodDisruptionBudget, which the eviction API does not support")
)

// BudgetError refuses an eviction for a budget; it wraps
// ErrBudgetExhausted. Retry says when to try again.
type BudgetError struct {
	Pod, Budget string
	Allowed     int32
	Retry       time.Duration
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("cannot evict pod %s: %v %s (disruptions allowed: %d)", e.Pod, ErrBudgetExhausted, e.Budget, e.Allowed)
}
func (e *BudgetError) Unwrap() error             { return ErrBudgetExhausted }
func (e *BudgetError) ErrorReason() string       { return "DISRUPTION_BUDGET" }
func (e *BudgetError) RetryAfter() time.Duration { return e.Retry }
func (e *BudgetError) ErrorMetadata() map[string]string {
	return map[string]string{"pod": e.Pod, "budget": e.Budget, "disruptions_allowed": strconv.Itoa(int(e.Allowed))}
}

// MultipleBudgetsError refuses an eviction of a pod several budgets
// cover; it wraps ErrMultipleBudgets.
type MultipleBudgetsError struct {
	Pod     string
	Budgets []string
}

func (e *MultipleBudgetsError) Error() string {
	return fmt.Sprintf("cannot evict pod %s: %v (%s)", e.Pod, ErrMultipleBudgets, strings.Join(e.Budgets, ", "))
}
func (e *MultipleBudgetsError) Unwrap() error       { return ErrMultipleBudgets }
func (e *MultipleBudgetsError) ErrorReason() string { return "MULTIPLE_DISRUPTION_BUDGETS" }
func (e *MultipleBudgetsError) ErrorMetadata() map[string]string {
	return map[string]string{"pod": e.Pod, "budgets": strings.Join(e.Budgets, ",")}
}
