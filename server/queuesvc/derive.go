package queuesvc

import (
	"slices"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// derivations keeps the workloads derived from pods between rounds, so
// that a round re-derives only the pods that changed: a pod's derivation
// (integrations.ForPod) depends on the pod as sent, which the object store
// replaces on every change (a new pointer), and on the priority classes,
// whose change (any class replaced, added or removed) drops every entry.
//
// It is owned by the rounds (one at a time) and takes no lock. Every
// derivation from pods goes through it (pod), so that a change of how
// workloads are derived stays in one place.
type derivations struct {
	// fromScratch derives every pod anew each round: the reference the
	// differential test holds the cache to.
	fromScratch bool
	classes     []*model.PriorityClass
	wpcs        []*quota.WorkloadPriorityClass
	pods        map[string]derivedPod // by pod uid
	// admissions are the durable admissions as the engine reads them, by
	// workload key: the book keeps an Admit's pointer until it changes.
	admissions map[string]derivedAdmission
	round      uint64
}

type derivedAdmission struct {
	fact     *berthv1.Admit
	reserved time.Time
	a        *quota.Admission // never changed
	round    uint64
}

type derivedPod struct {
	pod   *model.Pod      // the version it was derived from
	wl    *quota.Workload // as derived: never changed, copied out
	round uint64          // the last round that used it
}

// begin starts a round's derivations with the priorities in force.
func (d *derivations) begin(prio integrations.Priorities) {
	d.round++
	if d.pods == nil {
		d.pods, d.admissions = map[string]derivedPod{}, map[string]derivedAdmission{}
	}
	if !slices.Equal(d.classes, prio.PriorityClasses) || !slices.Equal(d.wpcs, prio.WorkloadClasses) {
		clear(d.pods)
		d.classes, d.wpcs = prio.PriorityClasses, prio.WorkloadClasses
	}
}

// pod is the one-pod workload of a pending labelled pod, as ForPod
// derives it: a copy the caller may change (its Admission, Pods and
// Running; the pod sets are shared and must not be changed).
func (d *derivations) pod(p *model.Pod, queue string, prio integrations.Priorities) *quota.Workload {
	e, ok := d.pods[p.UID]
	if !ok || e.pod != p || d.fromScratch {
		e = derivedPod{pod: p, wl: integrations.ForPod(p, queue, prio)}
	}
	e.round = d.round
	if !d.fromScratch {
		d.pods[p.UID] = e
	}
	cp := *e.wl
	return &cp
}

// admission is the quota.Admission fact records for workload key,
// reserved at reserved (admissionOf); shared, it must not be changed.
func (d *derivations) admission(key string, fact *berthv1.Admit, reserved time.Time) *quota.Admission {
	e, ok := d.admissions[key]
	if !ok || e.fact != fact || !e.reserved.Equal(reserved) || d.fromScratch {
		e = derivedAdmission{fact: fact, reserved: reserved, a: admissionOf(fact, reserved)}
	}
	e.round = d.round
	if !d.fromScratch {
		d.admissions[key] = e
	}
	return e.a
}

// end forgets the pods and admissions the round did not see (deleted,
// no longer labelled, forgotten).
func (d *derivations) end() {
	for uid, e := range d.pods {
		if e.round != d.round {
			delete(d.pods, uid)
		}
	}
	for k, e := range d.admissions {
		if e.round != d.round {
			delete(d.admissions, k)
		}
	}
}
