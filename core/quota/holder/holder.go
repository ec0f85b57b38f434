// Package holder keeps the Kueue objects berthd has been sent
// (ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass
// and explicit Workloads) as kinds of the object store (core/objstore), and
// hands the admission controller a consistent snapshot of them.
//
// Data in: the object store's Upsert and Delete of the six kinds (from
// the state service, after server/convert), each checked as Kueue's
// webhooks check it (core/quota's Validate*). Data out: Objects, a
// snapshot in name order, and the store's events, which subscribers (the
// admission controller) read to know that something changed.
//
// Objects are kept as sent and never changed in place: an Upsert replaces
// the pointer, so a snapshot's objects stay valid, read-only, after the
// lock is released.
package holder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
)

// The kinds as Kueue names them.
const (
	KindResourceFlavor        objstore.Kind = "ResourceFlavor"
	KindClusterQueue          objstore.Kind = "ClusterQueue"
	KindCohort                objstore.Kind = "Cohort"
	KindLocalQueue            objstore.Kind = "LocalQueue"
	KindWorkloadPriorityClass objstore.Kind = "WorkloadPriorityClass"
	KindWorkload              objstore.Kind = "Workload"
)

// Kinds lists the six kinds, in the order a resync applies them (what an
// object refers to comes before it).
func Kinds() []objstore.Kind {
	return []objstore.Kind{
		KindResourceFlavor, KindCohort, KindClusterQueue, KindLocalQueue, KindWorkloadPriorityClass, KindWorkload,
	}
}

// ErrInvalid is wrapped by every refusal of an object Kueue's webhooks
// would refuse; the *InvalidError carries the fields.
var ErrInvalid = errors.New("invalid")

// ErrNotFound is returned for the deletion of an object not held.
var ErrNotFound = errors.New("not found")

// InvalidError is an object refused by validation, with Kueue's field
// paths (spec.resourceGroups[0].flavors[1]...) and messages.
type InvalidError struct {
	Kind objstore.Kind
	Key  string
	Errs field.ErrorList
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s %s is invalid: %v", e.Kind, e.Key, e.Errs.ToAggregate())
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Holder holds the objects. It is safe for concurrent use.
type Holder struct {
	mu              sync.RWMutex
	flavors         map[string]*quota.ResourceFlavor
	clusterQueues   map[string]*quota.ClusterQueue
	cohorts         map[string]*quota.Cohort
	localQueues     map[string]*quota.LocalQueue // by namespace/name
	priorityClasses map[string]*quota.WorkloadPriorityClass
	workloads       map[string]*quota.Workload // by namespace/name
	// revision counts the changes applied, so a reader can tell whether
	// what it computed from a snapshot is still current.
	revision uint64
}

// New returns an empty holder.
func New() *Holder {
	return &Holder{
		flavors:         map[string]*quota.ResourceFlavor{},
		clusterQueues:   map[string]*quota.ClusterQueue{},
		cohorts:         map[string]*quota.Cohort{},
		localQueues:     map[string]*quota.LocalQueue{},
		priorityClasses: map[string]*quota.WorkloadPriorityClass{},
		workloads:       map[string]*quota.Workload{},
	}
}

// Register adds the six kinds to r, each applied by this holder.
func (h *Holder) Register(r *objstore.Registry) error {
	errs := []error{
		register(r, h, KindResourceFlavor, &h.flavors,
			func(f *quota.ResourceFlavor) objstore.Ref { return objstore.Ref{Name: f.Name} },
			quota.ValidateResourceFlavor),
		register(r, h, KindClusterQueue, &h.clusterQueues,
			func(cq *quota.ClusterQueue) objstore.Ref { return objstore.Ref{Name: cq.Name} },
			quota.ValidateClusterQueue),
		register(r, h, KindCohort, &h.cohorts,
			func(c *quota.Cohort) objstore.Ref { return objstore.Ref{Name: c.Name} },
			quota.ValidateCohort),
		register(r, h, KindLocalQueue, &h.localQueues,
			func(q *quota.LocalQueue) objstore.Ref { return objstore.Ref{Namespace: q.Namespace, Name: q.Name} },
			validateLocalQueue),
		register(r, h, KindWorkloadPriorityClass, &h.priorityClasses,
			func(pc *quota.WorkloadPriorityClass) objstore.Ref { return objstore.Ref{Name: pc.Name} },
			validatePriorityClass),
		register(r, h, KindWorkload, &h.workloads,
			func(w *quota.Workload) objstore.Ref {
				return objstore.Ref{Namespace: w.Namespace, Name: w.Name, UID: w.UID}
			},
			quota.ValidateWorkload),
	}
	return errors.Join(errs...)
}

// register adds one kind whose objects are kept in *m by key (name, or
// namespace/name).
func register[E any](r *objstore.Registry, h *Holder, kind objstore.Kind, m *map[string]*E,
	ref func(*E) objstore.Ref, validate func(*E) field.ErrorList,
) error {
	key := func(rf objstore.Ref) string {
		if rf.Namespace == "" {
			return rf.Name
		}
		return rf.Namespace + "/" + rf.Name
	}
	return objstore.Register(r, objstore.Type[*E]{
		Kind: kind,
		Ref: func(obj *E) objstore.Ref {
			if obj == nil {
				return objstore.Ref{}
			}
			return ref(obj)
		},
		Upsert: func(_ context.Context, obj *E) error {
			if obj == nil {
				return &InvalidError{Kind: kind, Errs: field.ErrorList{field.Required(nil, "the object is missing")}}
			}
			if errs := validate(obj); len(errs) > 0 {
				return &InvalidError{Kind: kind, Key: key(ref(obj)), Errs: errs}
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			(*m)[key(ref(obj))] = obj
			h.revision++
			return nil
		},
		Delete: func(_ context.Context, rf objstore.Ref) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			k := key(rf)
			if _, ok := (*m)[k]; !ok {
				return fmt.Errorf("delete %s %s: %w", kind, k, ErrNotFound)
			}
			delete(*m, k)
			h.revision++
			return nil
		},
		List: func() []*E {
			h.mu.RLock()
			defer h.mu.RUnlock()
			return sortedValues(*m)
		},
		Get: func(rf objstore.Ref) (*E, bool) {
			h.mu.RLock()
			defer h.mu.RUnlock()
			obj, ok := (*m)[key(rf)]
			return obj, ok
		},
	})
}

func validateLocalQueue(q *quota.LocalQueue) field.ErrorList {
	var errs field.ErrorList
	if q.Namespace == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "namespace"), ""))
	}
	if q.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), ""))
	}
	if q.ClusterQueue == "" {
		errs = append(errs, field.Required(field.NewPath("spec", "clusterQueue"), ""))
	}
	return errs
}

func validatePriorityClass(pc *quota.WorkloadPriorityClass) field.ErrorList {
	if pc.Name == "" {
		return field.ErrorList{field.Required(field.NewPath("metadata", "name"), "")}
	}
	return nil
}

// sortedValues is m's values in key order.
func sortedValues[T any](m map[string]T) []T {
	out := make([]T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// Objects is a snapshot of what is held, in name order (workloads by
// creation time, then namespace/name), for one admission round; cfg is
// Kueue's Configuration as berthd was started with. The objects are
// shared with the holder and must not be changed.
func (h *Holder) Objects(cfg quota.Config) *quota.Objects {
	h.mu.RLock()
	defer h.mu.RUnlock()
	o := &quota.Objects{
		Flavors:         sortedValues(h.flavors),
		ClusterQueues:   sortedValues(h.clusterQueues),
		Cohorts:         sortedValues(h.cohorts),
		LocalQueues:     sortedValues(h.localQueues),
		PriorityClasses: sortedValues(h.priorityClasses),
		Workloads:       sortedValues(h.workloads),
		Config:          cfg,
	}
	slices.SortStableFunc(o.Workloads, func(a, b *quota.Workload) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.Key(), b.Key()))
	})
	return o
}

// ClusterQueues counts the ClusterQueues held: without one nothing can be
// admitted, and the admission controller skips the rounds pods would ask
// for. It takes the read lock only and allocates nothing.
func (h *Holder) ClusterQueues() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.clusterQueues)
}

// Revision counts the changes applied so far.
func (h *Holder) Revision() uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.revision
}
