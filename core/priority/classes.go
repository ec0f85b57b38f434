package priority

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// Built-in classes every cluster has.
const (
	SystemClusterCritical      = "system-cluster-critical"
	SystemNodeCritical         = "system-node-critical"
	systemClusterCriticalValue = model.SystemCriticalPriority
	systemNodeCriticalValue    = model.SystemCriticalPriority + 1000
)

// UnknownClassError is returned for a pod naming a class that does not exist.
type UnknownClassError struct{ Name string }

func (e *UnknownClassError) Error() string {
	return fmt.Sprintf("no PriorityClass with name %s was found", e.Name)
}

// InvalidClassError explains why a PriorityClass was refused.
type InvalidClassError struct {
	Name   string
	Field  string
	Reason string
}

func (e *InvalidClassError) Error() string {
	return fmt.Sprintf("PriorityClass %q: %s: %s", e.Name, e.Field, e.Reason)
}

// Classes is the set of known PriorityClasses. It is not safe for concurrent
// use; its owner locks.
type Classes struct {
	byName map[string]*model.PriorityClass
}

// NewClasses returns a set holding only the built-in system classes.
func NewClasses() *Classes {
	return &Classes{byName: map[string]*model.PriorityClass{
		SystemClusterCritical: {Name: SystemClusterCritical, Value: systemClusterCriticalValue, PreemptionPolicy: model.PreemptLowerPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
		SystemNodeCritical: {Name: SystemNodeCritical, Value: systemNodeCriticalValue, PreemptionPolicy: model.PreemptLowerPriority,
			Description: "Used for system critical pods that must not be moved from their current node."},
	}}
}

// Validate checks a user class: a name not reserved for the system, a value
// in the user range, a known preemption policy.
func Validate(pc *model.PriorityClass) error {
	switch {
	case pc.Name == "":
		return &InvalidClassError{Name: pc.Name, Field: "name", Reason: "required"}
	case strings.HasPrefix(pc.Name, "system-"):
		return &InvalidClassError{Name: pc.Name, Field: "name", Reason: `the "system-" prefix is reserved for the built-in classes`}
	case pc.Value > model.HighestUserDefinablePriority:
		return &InvalidClassError{Name: pc.Name, Field: "value", Reason: fmt.Sprintf("must be at most %d for user classes, got %d", model.HighestUserDefinablePriority, pc.Value)}
	}
	switch pc.PreemptionPolicy {
	case "", model.PreemptLowerPriority, model.PreemptNever:
	default:
		return &InvalidClassError{Name: pc.Name, Field: "preemptionPolicy", Reason: fmt.Sprintf("must be PreemptLowerPriority or Never, got %q", pc.PreemptionPolicy)}
	}
	return nil
}

// Set adds or replaces a class after validating it.
func (c *Classes) Set(pc *model.PriorityClass) error {
	if err := Validate(pc); err != nil {
		return err
	}
	cp := *pc
	if cp.PreemptionPolicy == "" {
		cp.PreemptionPolicy = model.PreemptLowerPriority
	}
	c.byName[pc.Name] = &cp
	return nil
}

// Delete removes a user class. Built-in classes cannot be removed.
func (c *Classes) Delete(name string) {
	if name == SystemClusterCritical || name == SystemNodeCritical {
		return
	}
	delete(c.byName, name)
}

// Get returns the named class.
func (c *Classes) Get(name string) (*model.PriorityClass, bool) {
	pc, ok := c.byName[name]
	return pc, ok
}

// List returns every class sorted by name.
func (c *Classes) List() []*model.PriorityClass {
	out := make([]*model.PriorityClass, 0, len(c.byName))
	for _, pc := range c.byName {
		out = append(out, pc)
	}
	slices.SortFunc(out, func(a, b *model.PriorityClass) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// GlobalDefault returns the global default class; with several, the one with
// the lowest value wins, as in Kubernetes.
func (c *Classes) GlobalDefault() (*model.PriorityClass, bool) {
	var best *model.PriorityClass
	for _, pc := range c.byName {
		if pc.GlobalDefault && (best == nil || pc.Value < best.Value || (pc.Value == best.Value && pc.Name < best.Name)) {
			best = pc
		}
	}
	return best, best != nil
}

// NeedsClass reports whether admitting pod needs its PriorityClass to be
// known: only a pending pod without a priority of its own is resolved from
// its class (see Admit).
func NeedsClass(pod *model.Pod) bool {
	return pod.PriorityClassName != "" && pod.RequestedPriority == nil && pod.NodeName == ""
}

// AdmitOnNode is Admit for a pod sent without a node that its holder
// keeps on one (a bind from before a restart awaiting its outcome): it
// uses that node whatever class it names, so it is admitted as a bound
// pod is, never refused for an unknown class.
func (c *Classes) AdmitOnNode(pod *model.Pod) error { return c.admit(pod, true) }

// Admit resolves the priority and preemption policy of a pod seen for the
// first time, in place. Kubernetes fixes a pod's priority when the pod is
// created and the scheduler only reads it; Berth also meets pods created
// before it started (re-listed after a restart), whose class may since
// have been deleted or re-created with another value. So:
//   - a priority the caller gave (RequestedPriority) is the pod's, whatever
//     its class says now: it is the value an earlier admission gave it.
//     Its policy is its own, else its class's when the class is known (unset
//     means PreemptLowerPriority). (Kubernetes' admission refuses to create a pod
//     whose priority differs from its class's value; Berth cannot tell a
//     new pod from a re-listed one, so it does not.)
//   - otherwise a named class gives its value and policy. An unknown class
//     fails with *UnknownClassError for a pending pod; a bound pod, which
//     uses its node whatever it names, gets priority 0 (the value Kubernetes
//     gives when nothing else applies), keeping its own policy.
//   - otherwise the global default class applies, its name set on the pod;
//     with none, priority 0 and the pod's own policy.
func (c *Classes) Admit(pod *model.Pod) error { return c.admit(pod, pod.NodeName != "") }

func (c *Classes) admit(pod *model.Pod, onNode bool) error {
	if pod.RequestedPriority != nil {
		pod.Priority = *pod.RequestedPriority
		if pc, ok := c.byName[pod.PriorityClassName]; ok && pod.PreemptionPolicy == "" {
			pod.PreemptionPolicy = pc.PreemptionPolicy
		}
		return nil
	}
	if pod.PriorityClassName == "" {
		if def, ok := c.GlobalDefault(); ok {
			pod.PriorityClassName = def.Name
			pod.Priority = def.Value
			pod.PreemptionPolicy = def.PreemptionPolicy
			return nil
		}
		pod.Priority = 0
		if pod.PreemptionPolicy == "" {
			pod.PreemptionPolicy = model.PreemptLowerPriority
		}
		return nil
	}
	pc, ok := c.byName[pod.PriorityClassName]
	if !ok {
		if !onNode {
			return &UnknownClassError{Name: pod.PriorityClassName}
		}
		pod.Priority = 0
		return nil
	}
	pod.Priority = pc.Value
	pod.PreemptionPolicy = pc.PreemptionPolicy
	return nil
}

// MinPriority is the lowest priority a pod can have.
const MinPriority int32 = math.MinInt32
