package podbook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
)

// admissions are the Kueue workloads admitted durably (store.Admissions,
// by workload "namespace/name", the Admit decision as value): written by
// the Admit's batch, deleted by the WorkloadEviction's, and removed by
// the book when the admission controller says the workload is gone. They
// are facts of workloads, not of pods, but have the same life: decided by
// the log, ended by what the orchestrator sends, restored after a restart.
//
// An admission is open (recorded before its commit) so that of two Admits
// of a workload racing, one is refused, as OpenEviction does for Evicts.
//
// Lock order: mu is a leaf.
type admissions struct {
	mu sync.Mutex
	// by holds the admissions by workload key; open marks those whose
	// Admit is being committed.
	by   map[string]*berthv1.Admit
	open map[string]bool
}

func newAdmissions() *admissions {
	return &admissions{by: map[string]*berthv1.Admit{}, open: map[string]bool{}}
}

// AdmissionKey is a workload's key in store.Admissions and in the book.
func AdmissionKey(namespace, name string) string { return namespace + "/" + name }

// OpenAdmission records the Admit of a workload as being committed; false
// when the workload is admitted already (or its Admit is being
// committed), and nothing is recorded.
func (l *Book) OpenAdmission(a *berthv1.Admit) bool {
	k := AdmissionKey(a.GetWorkloadNamespace(), a.GetWorkloadName())
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.by[k]; ok {
		return false
	}
	m.by[k], m.open[k] = a, true
	return true
}

// AdmissionWritten ends OpenAdmission: the Admit is durable, or (failed)
// it is undone.
func (l *Book) AdmissionWritten(a *berthv1.Admit, failed bool) {
	k := AdmissionKey(a.GetWorkloadNamespace(), a.GetWorkloadName())
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by[k] != a {
		return
	}
	delete(m.open, k)
	if failed {
		delete(m.by, k)
	}
}

// CloseAdmission takes a workload's admission out of the book before its
// WorkloadEviction is committed and returns it, so that a failed commit
// puts it back (ReopenAdmission); false when the workload is not admitted
// durably (never admitted, evicted already, or its Admit not yet
// committed).
func (l *Book) CloseAdmission(namespace, name string) (*berthv1.Admit, bool) {
	k := AdmissionKey(namespace, name)
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.by[k]
	if !ok || m.open[k] {
		return nil, false
	}
	delete(m.by, k)
	return a, true
}

// ReopenAdmission puts back an admission CloseAdmission took out: its
// WorkloadEviction failed to commit.
func (l *Book) ReopenAdmission(a *berthv1.Admit) {
	k := AdmissionKey(a.GetWorkloadNamespace(), a.GetWorkloadName())
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.by[k]; !ok {
		m.by[k] = a
	}
}

// Admission returns the durable admission of a workload; one whose Admit
// is being committed is not returned.
func (l *Book) Admission(namespace, name string) (*berthv1.Admit, bool) {
	k := AdmissionKey(namespace, name)
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.by[k]
	if !ok || m.open[k] {
		return nil, false
	}
	return a, true
}

// Admissions lists the durable admissions, by workload key. The messages
// are the book's: read them, do not change them.
func (l *Book) Admissions() []*berthv1.Admit {
	m := l.admits
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*berthv1.Admit, 0, len(m.by))
	for _, k := range slices.Sorted(maps.Keys(m.by)) {
		if !m.open[k] {
			out = append(out, m.by[k])
		}
	}
	return out
}

// ForgetAdmission drops the admission of a workload that is gone (its
// pods all deleted, or its explicit Workload deleted); its durable copy
// is removed in the background. uid, when set, must be the admission's:
// a workload recreated under the same name keeps the new one's.
func (l *Book) ForgetAdmission(ctx context.Context, namespace, name, uid string) error {
	k := AdmissionKey(namespace, name)
	m := l.admits
	m.mu.Lock()
	a, ok := m.by[k]
	if !ok || m.open[k] || (uid != "" && a.GetWorkloadUid() != uid) {
		m.mu.Unlock()
		return nil
	}
	delete(m.by, k)
	m.mu.Unlock()
	return l.remove(ctx, k, false, store.Admissions)
}

// restore puts back the admissions read after a restart.
func (m *admissions) restore(as []*berthv1.Admit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range as {
		m.by[AdmissionKey(a.GetWorkloadNamespace(), a.GetWorkloadName())] = a
	}
}

// errNoAdmit: an admissions value is not an Admit decision.
var errNoAdmit = errors.New("not an Admit decision")

// readAdmissions reads store.Admissions back, by workload key.
func readAdmissions(st Lister) ([]*berthv1.Admit, error) {
	kvs, err := st.List(store.Admissions)
	if err != nil {
		return nil, fmt.Errorf("podbook: restore admissions: %w", err)
	}
	out := make([]*berthv1.Admit, 0, len(kvs))
	for _, kv := range kvs {
		d, err := decodePayload(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("podbook: admission of %s: %w", kv.Key, err)
		}
		a := d.GetAdmit()
		if a == nil {
			return nil, fmt.Errorf("podbook: admission of %s: %w: %w", kv.Key, store.ErrCorrupt, errNoAdmit)
		}
		if k := AdmissionKey(a.GetWorkloadNamespace(), a.GetWorkloadName()); k != string(kv.Key) {
			return nil, fmt.Errorf("podbook: admission stored under %s is %s's: %w", kv.Key, k, store.ErrCorrupt)
		}
		out = append(out, a)
	}
	return out, nil
}
