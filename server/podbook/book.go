package podbook

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/store"
)

// Book holds the durable facts about pods, in memory, in step with their
// durable copies (see the package doc): the records of decisions
// awaiting their outcome, the nominations, the last Unschedulable
// messages, the allocated claims and the last failed bind reports. The
// decision log writes a fact with the decision that makes it, in the
// decision's batch, and tells the book once it is durable; the outcomes
// (Outcomes) end them, and the book removes their durable copies itself.
// It is safe for concurrent use.
//
// Lock order: the claim book's per-claim hold (claims.go), then
// settler.mu, then mu, then facts.mu; mu is a leaf but for the Bind's
// Wanted, called under it (the scheduler's binding lock, a leaf).
type Book struct {
	store  store.Store
	opts   Options
	logger *slog.Logger
	// settle removes the durable copies of facts that ended, in the
	// background (settle.go).
	remover *settler

	mu sync.Mutex
	// tables holds the records by kind (tables[kind-1]), by pod uid.
	tables [numKinds]map[string]entry

	// facts are the pods' nominations, messages and failed reports
	// (facts.go); claims the allocated claims (claims.go).
	facts  facts
	claims *claimBook
	// admits are the Kueue workloads admitted (admissions.go).
	admits *admissions
}

// Options configure a Book. The zero value is usable.
type Options struct {
	// Logger receives background failures; nil discards them.
	Logger *slog.Logger
	// ObserveCommit, if set, is told how long each of the book's own
	// commits (removals) took.
	ObserveCommit func(time.Duration)
	// SetAllocatedDevices, if set, is told the devices allocated durably
	// whenever the book changes them itself (berth_dra_allocated_devices).
	SetAllocatedDevices func(n int)
}

// key names a record: a pod has at most one of each kind.
type key struct {
	kind Kind
	uid  string
}

// entry is a record as a table holds it (its kind and pod are the table's
// and the key), and, for a Bind being committed, its commit.
//
// A Bind is recorded before its commit: a watcher may see the decision as
// soon as it is durable, before Commit returns to the binder, and report
// its outcome at once. Whoever needs the record settled (its revision, or
// to settle or forget it) waits for the commit to end (Pending.done).
type entry struct {
	node, group       string
	revision          uint64
	restored, settled bool
	committing        *Pending
	// evict is an eviction's decision, as its durable copy holds it.
	evict *berthv1.Evict
}

func (e entry) record(k key) Record {
	return Record{Kind: k.kind, PodUID: k.uid, Node: e.node, Group: e.group, Revision: e.revision, Restored: e.restored, Settled: e.settled}
}

func entryOf(r Record) entry {
	return entry{node: r.Node, group: r.Group, revision: r.Revision, restored: r.Restored, settled: r.Settled}
}

// table returns the records of kind k.
func (l *Book) table(k Kind) map[string]entry { return l.tables[k-1] }

// Pending is a Bind between BeginBind and FinishBind, with the record it
// replaced. The decision log embeds it in the one allocation it makes per
// Bind.
type Pending struct {
	prev    entry
	hadPrev bool
	// done, made by the first who waits for the commit (under mu), is
	// closed by FinishBind: most binds have no waiter and no channel.
	done chan struct{}
}

// New returns an empty book over st; Restore fills it after a restart.
// Call Close before closing st.
func New(st store.Store, opts Options) *Book {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ObserveCommit == nil {
		opts.ObserveCommit = func(time.Duration) {}
	}
	if opts.SetAllocatedDevices == nil {
		opts.SetAllocatedDevices = func(int) {}
	}
	l := &Book{store: st, opts: opts, logger: opts.Logger, facts: newFacts(), claims: newClaimBook(), admits: newAdmissions()}
	for i := range l.tables {
		l.tables[i] = make(map[string]entry)
	}
	l.remover = newSettler(st, opts.ObserveCommit, opts.Logger)
	return l
}

// Close writes the removals still queued and stops the background
// writer. The store stays open.
func (l *Book) Close() error { return l.remover.close() }

// PrepareWrite is called by the decision log before it writes the pod's
// keys in spaces: a removal of them still queued is dropped, and one
// being written is waited for, so a removal never lands after the write
// that supersedes it.
func (l *Book) PrepareWrite(ctx context.Context, uid string, spaces ...store.Space) error {
	return l.remover.claim(ctx, uid, spaces...)
}

// BeginBind records the Bind of pod to node as being committed, unless
// its awaiter (if set: framework.Bind.Awaiter) says the scheduler no
// longer awaits it: then it returns false and records nothing. Asking
// under the book's lock makes a deletion either come before the Bind
// (refused) or find it recorded (and forget it), so no bind of a deleted
// pod stays outstanding. A Bind of the pod being committed is waited for
// first.
func (l *Book) BeginBind(ctx context.Context, pod *model.Pod, node string, awaiter framework.BindAwaiter, p *Pending) (bool, error) {
	k := key{KindBind, pod.UID}
	prev, hadPrev, err := l.lockSettled(ctx, k)
	if err != nil {
		return false, err
	}
	defer l.mu.Unlock()
	if awaiter != nil && !awaiter.Binding(pod) {
		return false, nil
	}
	p.prev, p.hadPrev = prev, hadPrev
	l.table(KindBind)[pod.UID] = entry{node: node, group: pod.SchedulingGroup, committing: p}
	return true, nil
}

// FinishBind ends the commit BeginBind started: the record gets its
// revision, or, when the commit failed, the record it replaced comes back.
// A durable Bind ends the pod's nomination and last Unschedulable message
// (its batch deleted their durable copies).
func (l *Book) FinishBind(uid string, p *Pending, revision uint64, failed bool) {
	if !failed {
		l.facts.bound(uid)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() {
		if p.done != nil {
			close(p.done)
		}
	}()
	binds := l.table(KindBind)
	e, ok := binds[uid]
	if !ok || e.committing != p {
		// Nobody replaces or removes a record being committed.
		l.logger.Error("podbook: a bind's record changed during its commit", "pod_uid", uid)
		return
	}
	if failed {
		if p.hadPrev {
			binds[uid] = p.prev
		} else {
			delete(binds, uid)
		}
		return
	}
	e.revision, e.committing = revision, nil
	binds[uid] = e
}

// OpenEviction records the pod's Evict (on evict's node), unless the pod has
// an eviction already: then it returns false and records nothing, so a pod
// gets at most one Evict whatever the causes racing for it (preemption,
// taints, the eviction API, node pressure). The decision log calls it
// before the decision's commit, so that a deletion of the pod racing with
// it removes the record.
func (l *Book) OpenEviction(uid string, evict *berthv1.Evict) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	evictions := l.table(KindEvict)
	if _, ok := evictions[uid]; ok {
		return false
	}
	evictions[uid] = entry{node: evict.GetNode(), evict: evict}
	return true
}

// Eviction returns the pod's Evict awaiting its deletion, restored ones
// included (the admin API's Explain).
func (l *Book) Eviction(uid string) (*berthv1.Evict, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.table(KindEvict)[uid]
	return e.evict, ok && e.evict != nil
}

// AbortEviction drops the record OpenEviction made for an Evict whose
// commit failed: nothing was sent, so the pod may be evicted later.
func (l *Book) AbortEviction(uid string) {
	l.mu.Lock()
	delete(l.table(KindEvict), uid)
	l.mu.Unlock()
}

// lockSettled locks mu once the record k is not being committed and
// returns it. It returns with mu unlocked only on error (ctx ended while
// waiting).
func (l *Book) lockSettled(ctx context.Context, k key) (entry, bool, error) {
	for {
		l.mu.Lock()
		e, ok := l.table(k.kind)[k.uid]
		if !ok || e.committing == nil {
			return e, ok, nil
		}
		if e.committing.done == nil {
			e.committing.done = make(chan struct{})
		}
		ch := e.committing.done
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return entry{}, false, fmt.Errorf("podbook: waiting for the %s of %s: %w", k.kind, k.uid, ctx.Err())
		}
	}
}

// Get returns the pod's record of kind k; a Bind being committed is
// returned as it is (Revision 0).
func (l *Book) Get(k Kind, uid string) (Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.table(k)[uid]
	return e.record(key{k, uid}), ok
}

// Outstanding returns the pod's record of kind k if its outcome has not
// arrived.
func (l *Book) Outstanding(k Kind, uid string) (Record, bool) {
	r, ok := l.Get(k, uid)
	return r, ok && !r.Settled
}

// HeldOnNode reports a pod whose bind from before a restart is
// outstanding: sent without a node, Outcomes holds it on the bind's. The
// pods' admission asks it (core/podadmission's Options.HeldOnNode, which
// runs before Outcomes.AddPod), so that such a pod is admitted as the
// bound pod it is held as.
func (l *Book) HeldOnNode(uid string) bool {
	r, ok := l.Outstanding(KindBind, uid)
	return ok && r.Restored
}

// BindRevision returns the revision of the last Bind decision made for the
// pod since it was last forgotten; false while none was, or while the
// first is being committed. A bind restored after a restart whose record
// was compacted away has revision 0.
func (l *Book) BindRevision(podUID string) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.table(KindBind)[podUID]
	return e.revision, ok && e.committing == nil
}

// WaitBindRevision is BindRevision once no Bind of the pod is being
// committed (statesvc.BindRevisions): a caller that saw a Bind decision
// on a watch may report it before the binder's commit returned.
func (l *Book) WaitBindRevision(ctx context.Context, podUID string) (uint64, bool, error) {
	e, ok, err := l.lockSettled(ctx, key{KindBind, podUID})
	if err != nil {
		return 0, false, err
	}
	l.mu.Unlock()
	return e.revision, ok, nil
}

// ListRestored returns the outstanding records of kind k made before the
// last restart, sorted by pod uid.
func (l *Book) ListRestored(k Kind) []Record {
	l.mu.Lock()
	var out []Record
	for uid, e := range l.table(k) {
		if e.restored && !e.settled {
			out = append(out, e.record(key{k, uid}))
		}
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b Record) int { return cmp.Compare(a.PodUID, b.PodUID) })
	return out
}

// settle marks the pod's outstanding record of kind k settled and reports
// whether there was one; its durable copy is for the caller to remove.
func (l *Book) settle(ctx context.Context, k Kind, uid string) (bool, error) {
	e, ok, err := l.lockSettled(ctx, key{k, uid})
	if err != nil {
		return false, err
	}
	defer l.mu.Unlock()
	if !ok || e.settled {
		return false, nil
	}
	e.settled = true
	l.table(k)[uid] = e
	return true, nil
}

// forget drops every record of the pod (waiting for a Bind being
// committed) and returns the keyspaces their durable copies are in.
func (l *Book) forget(ctx context.Context, uid string) ([]store.Space, error) {
	var spaces []store.Space
	for _, k := range kinds() {
		_, ok, err := l.lockSettled(ctx, key{k, uid})
		if err != nil {
			return spaces, err
		}
		delete(l.table(k), uid)
		l.mu.Unlock()
		if ok {
			spaces = append(spaces, k.Space())
		}
	}
	return spaces, nil
}

// unknown lists the pods, sorted, with a restored bind (not being
// committed) or an eviction that known says do not exist.
func (l *Book) unknown(known func(podUID string) bool) []string {
	l.mu.Lock()
	gone := map[string]bool{}
	for _, k := range kinds() {
		for uid, e := range l.table(k) {
			if k == KindBind && (!e.restored || e.committing != nil) {
				continue
			}
			if !known(uid) {
				gone[uid] = true
			}
		}
	}
	l.mu.Unlock()
	return slices.Sorted(maps.Keys(gone))
}
