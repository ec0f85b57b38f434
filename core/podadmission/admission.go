package podadmission

import (
	"fmt"
	"sync"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/priority"
)

// Options configure an Admission.
type Options struct {
	// HeldOnNode, if set, reports a pod that its holder keeps on a node
	// though it is sent without one (berthd: a bind from before a restart
	// awaiting its outcome, server/podbook). Such a pod is admitted as a
	// bound one: it uses its node whatever class it names, so it is never
	// refused for one.
	HeldOnNode func(uid string) bool
}

// Admission admits pods and pod groups against the PriorityClasses it
// holds. It is safe for concurrent use.
type Admission struct {
	heldOnNode func(uid string) bool

	mu      sync.RWMutex
	classes *priority.Classes
}

// New returns an Admission holding the built-in classes only.
func New(opts Options) *Admission {
	return &Admission{heldOnNode: opts.HeldOnNode, classes: priority.NewClasses()}
}

// SetClass adds or replaces a class (refusing an invalid one with a
// *priority.InvalidClassError) and reports whether it was known. Classes
// apply to the pods and groups admitted afterwards only.
func (a *Admission) SetClass(pc *model.PriorityClass) (known bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, known = a.classes.Get(pc.Name)
	return known, a.classes.Set(pc)
}

// DeleteClass removes a user class and returns it, if it was known (a
// built-in class stays).
func (a *Admission) DeleteClass(name string) (*model.PriorityClass, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pc, known := a.classes.Get(name)
	a.classes.Delete(name)
	return pc, known
}

// Classes lists the classes, built-in ones included, by name.
func (a *Admission) Classes() []*model.PriorityClass {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.classes.List()
}

// Pod returns the version of in to apply, old being the one held (nil
// for a new pod): a copy with the default scheduler name if it names
// none and, for a new pod, its priority and preemption policy resolved
// as Kubernetes' Priority admission does (priority.Classes.Admit: a
// priority the pod carries is trusted; a bound pod, or one held on a
// node, is never refused). Priority, preemption policy, class and group
// membership are fixed at creation: an update keeps old's.
func (a *Admission) Pod(in, old *model.Pod) (*model.Pod, error) {
	cur := *in
	if cur.SchedulerName == "" {
		cur.SchedulerName = model.DefaultSchedulerName
	}
	if old != nil {
		cur.Priority, cur.PreemptionPolicy, cur.PriorityClassName = old.Priority, old.PreemptionPolicy, old.PriorityClassName
		cur.SchedulingGroup = old.SchedulingGroup
		return &cur, nil
	}
	admit := a.classes.Admit
	if cur.NodeName == "" && a.heldOnNode != nil && priority.NeedsClass(&cur) && a.heldOnNode(cur.UID) {
		admit = a.classes.AdmitOnNode
	}
	a.mu.RLock()
	err := admit(&cur)
	a.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("admit pod %s: %w", cur.Key(), err)
	}
	return &cur, nil
}

// Group returns a new pod group as kube 1.37's Priority admission has it
// for PodGroups: a priority given is kept, a named class gives its value
// (an unknown one fails with *priority.UnknownClassError), otherwise the
// global default class's value, else 0. The class's preemption policy is
// not applied: with the alpha PodGroupPreemptionPolicy gate kube's API
// server defaults the group's own to PreemptLowerPriority before
// admission, so a class's policy never becomes the group's (the
// admission refuses a group whose class has another; Berth, as
// kubeoracle, keeps the group's own). A group held already is its
// holder's to check (its spec is immutable): call Group for new ones only.
func (a *Admission) Group(in *model.PodGroup) (*model.PodGroup, error) {
	g := *in
	var err error
	if g.Priority, err = a.groupPriority(g.RequestedPriority, g.PriorityClassName); err != nil {
		return nil, fmt.Errorf("admit pod group %s: %w", g.Key(), err)
	}
	return &g, nil
}

// Composite resolves a new composite group's priority as kube 1.37's
// Priority admission does for CompositePodGroups, by a PodGroup's rules
// (Group). Call it for new ones only: a composite group's spec is
// immutable.
func (a *Admission) Composite(in *model.CompositePodGroup) (*model.CompositePodGroup, error) {
	g := *in
	var err error
	if g.Priority, err = a.groupPriority(g.RequestedPriority, g.PriorityClassName); err != nil {
		return nil, fmt.Errorf("admit composite pod group %s: %w", g.Key(), err)
	}
	return &g, nil
}

// groupPriority is a group's priority: the one requested, else its class's
// value (an unknown class is a *priority.UnknownClassError), else the
// global default class's, else 0.
func (a *Admission) groupPriority(requested *int32, class string) (int32, error) {
	if requested != nil {
		return *requested, nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if class != "" {
		pc, ok := a.classes.Get(class)
		if !ok {
			return 0, &priority.UnknownClassError{Name: class}
		}
		return pc.Value, nil
	}
	if def, ok := a.classes.GlobalDefault(); ok {
		return def.Value, nil
	}
	return 0, nil
}
