package berth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Lister returns every object the orchestrator currently holds (of the kinds
// the session re-lists). A Session calls it each time it (re)connects.
//
// The Lister is the truth: what it returns replaces, in Berth, every call
// made before it was called (see Session). Update what it returns before
// calling Upsert or Delete for the same change.
type Lister func(ctx context.Context) ([]*berthv1.Object, error)

// ResyncResult is what one re-list did, passed to the OnResync callback.
type ResyncResult struct {
	// Sent is how many objects the Lister returned.
	Sent int
	// Deleted is how many objects Berth removed because they were not re-sent.
	Deleted int
	// Errors are the re-sent objects Berth refused; Index is the position in
	// the Lister's slice.
	Errors []*ObjectError
}

// ErrSessionClosed is returned by Upsert and Delete calls still waiting when
// the session's Run returns.
var ErrSessionClosed = errors.New("berth client: session closed")

// ErrRequestTooLarge is wrapped by the error of a call whose request berthd
// refused with RESOURCE_EXHAUSTED (more objects than its
// --max-batch-objects, or more bytes than its message size limit). The call
// is not retried; lower MaxBatch (or WithMaxBatch).
var ErrRequestTooLarge = errors.New("berth client: request larger than berthd accepts")

// DefaultMaxBatch is the default of MaxBatch and WithMaxBatch: far below
// berthd's default --max-batch-objects (10000).
const DefaultMaxBatch = 500

// Session keeps one Sync stream open. Each time it connects, it re-lists
// everything the Lister returns between resync markers, so Berth drops what
// the orchestrator no longer holds; then it sends the mutations of Upsert and
// Delete calls, several calls per request when they queue up, and a call of
// more than MaxBatch mutations over several requests.
//
// The re-list is the truth. Upserts and deletes of a re-listed kind that are
// still waiting when the Lister is called (never sent, or sent on a stream
// that broke before their acknowledgement) are not sent: the re-list
// supersedes them. They are answered once the re-list is acknowledged, with
// Berth's refusal of the re-listed object of the same identity if there was
// one, else success. Sending them after the re-list could undo newer state
// (a pod the re-list sent with node_name set, replaced by an older pending
// copy, is scheduled a second time); sending them before it would show the
// scheduler stale state in between. This is correct when the orchestrator
// updates what its Lister returns before calling Upsert or Delete, which is
// what the Session requires. Calls made after the Lister was called are sent
// after the re-list, in call order. Mutations of kinds the session does not
// re-list (ResyncKinds) are never superseded: they are sent again.
//
// Every call is answered once: success, a *BatchError, an error wrapping
// ErrRequestTooLarge, ErrSessionClosed or its ctx's error.
type Session struct {
	c        *Client
	list     Lister
	kinds    []berthv1.ObjectKind
	maxBatch int
	onResync func(ResyncResult)

	wake chan struct{} // capacity 1: "the queue has work"

	mu      sync.Mutex // guards the fields below and every call's fields
	queue   []*call    // calls with mutations not yet sent, in call order
	batchID uint64
	closed  bool
}

// call is one Upsert or Delete waiting for its acknowledgement.
type call struct {
	muts []*berthv1.Mutation
	// todo holds the indexes of the mutations not yet sent (nor
	// superseded), in order; pending counts those not yet answered.
	todo     []int
	pending  int
	applied  int
	errs     []*ObjectError
	finished bool
	done     chan error // capacity 1
}

// SessionOption configures a Session.
type SessionOption func(*Session)

// ResyncKinds re-lists only these kinds on reconnect. Without it every kind
// is re-listed: at the end of each re-list Berth deletes every object, of
// every kind, that this session did not re-send, including those other
// orchestrators sent to a shared berthd. The API scopes a re-list by kind
// only; within a kind it is global.
func ResyncKinds(kinds ...berthv1.ObjectKind) SessionOption {
	return func(s *Session) { s.kinds = append(s.kinds, kinds...) }
}

// MaxBatch caps the mutations per request (the Client's WithMaxBatch, 500 by
// default). A call with more mutations is sent over several requests, so
// Berth may apply part of it before the rest. Keep it at or below berthd's
// --max-batch-objects.
func MaxBatch(n int) SessionOption { return func(s *Session) { s.maxBatch = max(n, 1) } }

// OnResync is called after each re-list Berth acknowledged.
func OnResync(f func(ResyncResult)) SessionOption { return func(s *Session) { s.onResync = f } }

// NewSession returns a session that re-lists through list. It does nothing
// until Run.
func (c *Client) NewSession(list Lister, opts ...SessionOption) *Session {
	s := &Session{c: c, list: list, maxBatch: c.maxBatch, wake: make(chan struct{}, 1)}
	if s.maxBatch <= 0 {
		s.maxBatch = DefaultMaxBatch
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Upsert creates or replaces objects and waits for Berth's acknowledgement.
// Refused objects are returned as a *BatchError (indexes into objs); the
// others took effect. If ctx ends first the objects may still be sent.
func (s *Session) Upsert(ctx context.Context, objs ...*berthv1.Object) error {
	muts := make([]*berthv1.Mutation, len(objs))
	for i, o := range objs {
		muts[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
	}
	return s.submit(ctx, muts)
}

// Delete removes objects and waits for Berth's acknowledgement. A reference
// Berth does not hold counts as deleted; other refusals are returned as a
// *BatchError (indexes into refs).
func (s *Session) Delete(ctx context.Context, refs ...*berthv1.ObjectRef) error {
	muts := make([]*berthv1.Mutation, len(refs))
	for i, r := range refs {
		muts[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: r}}
	}
	return s.submit(ctx, muts)
}

func newCall(muts []*berthv1.Mutation) *call {
	c := &call{muts: muts, todo: make([]int, len(muts)), pending: len(muts), done: make(chan error, 1)}
	for i := range c.todo {
		c.todo[i] = i
	}
	return c
}

func (s *Session) submit(ctx context.Context, muts []*berthv1.Mutation) error {
	if len(muts) == 0 {
		return nil
	}
	c := newCall(muts)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrSessionClosed
	}
	s.queue = append(s.queue, c)
	s.mu.Unlock()
	s.signal()
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Session) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run keeps the session connected until ctx ends, reconnecting with backoff
// and re-listing each time. It returns ctx.Err(), or the error of a stream
// that is not worth retrying (INVALID_ARGUMENT, UNAUTHENTICATED, a re-list
// request refused as too large, ...). Calls still waiting then fail with
// ErrSessionClosed. Run is called once.
func (s *Session) Run(ctx context.Context) error {
	err := s.run(ctx)
	s.mu.Lock()
	s.closed = true
	queue := s.queue
	s.queue = nil
	for _, c := range queue {
		c.finishLocked(ErrSessionClosed)
	}
	s.mu.Unlock()
	return err
}

func (s *Session) run(ctx context.Context) error {
	hops, atOnce := 0, false
	var last error // the previous stream's failure
	for attempt := 0; ; attempt++ {
		if !atOnce {
			if err := wait(ctx, s.c.clock, leaderBackoff(s.c.backoff, last), attempt); err != nil {
				return err
			}
		}
		resynced, err := s.connect(ctx)
		last = err
		if resynced {
			attempt = 0
		}
		if atOnce = s.c.reconnectAtOnce(err, &hops); atOnce {
			attempt-- // another replica, at once: not a failure of its own
		}
		var le listError
		var re reconnectError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &le) || errors.As(err, &re) || retryable(ctx, err):
			s.c.logger.Warn("berth sync broken; reconnecting", "err", err, "endpoint", s.c.Target())
		default:
			return fmt.Errorf("berth client: sync: %w", err)
		}
	}
}

// listError is a Lister failure: retried with backoff like a broken stream.
type listError struct{ err error }

func (e listError) Error() string { return "berth client: list objects: " + e.err.Error() }
func (e listError) Unwrap() error { return e.err }

// reconnectError is a stream failure dealt with (the calls concerned were
// answered) after which the session reconnects.
type reconnectError struct{ err error }

func (e reconnectError) Error() string { return e.err.Error() }
func (e reconnectError) Unwrap() error { return e.err }

// relisted tells whether the session re-lists objects of kind k.
func (s *Session) relisted(k berthv1.ObjectKind) bool {
	return len(s.kinds) == 0 || slices.Contains(s.kinds, k)
}

// take removes from the queue the mutations of the next request: up to
// maxBatch of them, from as many calls as fit, splitting a call that does
// not.
func (s *Session) take() []segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var segs []segment
	room := s.maxBatch
	for room > 0 && len(s.queue) > 0 {
		c := s.queue[0]
		if len(c.todo) == 0 { // answered already (refused as too large)
			s.queue = s.queue[1:]
			continue
		}
		n := min(len(c.todo), room)
		segs = append(segs, segment{c: c, idx: c.todo[:n:n]})
		c.todo = c.todo[n:]
		room -= n
		if len(c.todo) == 0 {
			s.queue = s.queue[1:]
		}
	}
	return segs
}

// supersede removes from the queue, before the Lister is called, the
// mutations the re-list will supersede: those of re-listed kinds. It returns
// them, to be answered once the re-list is acknowledged.
func (s *Session) supersede() []segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []segment
	keep := make([]*call, 0, len(s.queue))
	for _, c := range s.queue {
		var sup, rest []int
		for _, i := range c.todo {
			if s.relisted(mutationKind(c.muts[i])) {
				sup = append(sup, i)
			} else {
				rest = append(rest, i)
			}
		}
		if len(sup) > 0 {
			out = append(out, segment{c: c, idx: sup})
		}
		c.todo = rest
		if len(rest) > 0 {
			keep = append(keep, c)
		}
	}
	s.queue = keep
	return out
}

// requeue puts segments back at the head of the queue, in order, to be sent
// (or superseded) on the next stream.
func (s *Session) requeue(segs []segment) {
	if len(segs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head := make([]*call, 0, len(segs))
	seen := map[*call]bool{}
	for _, sg := range segs {
		if sg.c.finished {
			continue
		}
		sg.c.todo = append(sg.c.todo, sg.idx...)
		slices.Sort(sg.c.todo)
		if !seen[sg.c] {
			seen[sg.c] = true
			head = append(head, sg.c)
		}
	}
	for _, c := range s.queue {
		if !seen[c] {
			head = append(head, c)
		}
	}
	s.queue = head
}

// answerLocked records the outcome of some of a call's mutations, and
// finishes the call when none is left.
func (c *call) answerLocked(n, applied int, errs []*ObjectError) {
	if c.finished {
		return
	}
	c.pending -= n
	c.applied += applied
	c.errs = append(c.errs, errs...)
	if c.pending > 0 {
		return
	}
	if len(c.errs) == 0 {
		c.finishLocked(nil)
		return
	}
	slices.SortFunc(c.errs, func(a, b *ObjectError) int { return a.Index - b.Index })
	c.finishLocked(&BatchError{Applied: c.applied, Errors: c.errs})
}

func (c *call) finishLocked(err error) {
	if c.finished {
		return
	}
	c.finished = true
	c.todo = nil
	c.done <- err
}

func mutationKind(m *berthv1.Mutation) berthv1.ObjectKind {
	if r := m.GetDelete(); r != nil {
		return r.GetKind()
	}
	return objectRef(m.GetUpsert()).GetKind()
}

// objectRef names an object by kind, namespace and name.
func objectRef(o *berthv1.Object) *berthv1.ObjectRef {
	switch k := o.GetKind().(type) {
	case *berthv1.Object_Node:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: k.Node.GetName()}
	case *berthv1.Object_Pod:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: k.Pod.GetNamespace(), Name: k.Pod.GetName()}
	case *berthv1.Object_PriorityClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, Name: k.PriorityClass.GetName()}
	case *berthv1.Object_PodDisruptionBudget:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET,
			Namespace: k.PodDisruptionBudget.GetNamespace(), Name: k.PodDisruptionBudget.GetName()}
	case *berthv1.Object_Namespace:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NAMESPACE, Name: k.Namespace.GetName()}
	case *berthv1.Object_PodGroup:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_GROUP, Namespace: k.PodGroup.GetNamespace(), Name: k.PodGroup.GetName()}
	case *berthv1.Object_CompositePodGroup:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP, Namespace: k.CompositePodGroup.GetNamespace(), Name: k.CompositePodGroup.GetName()}
	case *berthv1.Object_DeviceClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, Name: k.DeviceClass.GetName()}
	case *berthv1.Object_ResourceSlice:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, Name: k.ResourceSlice.GetName()}
	case *berthv1.Object_ResourceClaim:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM,
			Namespace: k.ResourceClaim.GetNamespace(), Name: k.ResourceClaim.GetName()}
	case *berthv1.Object_ResourceClaimTemplate:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE,
			Namespace: k.ResourceClaimTemplate.GetNamespace(), Name: k.ResourceClaimTemplate.GetName()}
	case *berthv1.Object_DeviceTaintRule:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE, Name: k.DeviceTaintRule.GetName()}
	case *berthv1.Object_PersistentVolume:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, Name: k.PersistentVolume.GetName()}
	case *berthv1.Object_PersistentVolumeClaim:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM,
			Namespace: k.PersistentVolumeClaim.GetNamespace(), Name: k.PersistentVolumeClaim.GetName()}
	case *berthv1.Object_StorageClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS, Name: k.StorageClass.GetName()}
	case *berthv1.Object_CsiNode:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_NODE, Name: k.CsiNode.GetName()}
	case *berthv1.Object_CsiDriver:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER, Name: k.CsiDriver.GetName()}
	case *berthv1.Object_CsiStorageCapacity:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY,
			Namespace: k.CsiStorageCapacity.GetNamespace(), Name: k.CsiStorageCapacity.GetName()}
	case *berthv1.Object_ResourceFlavor:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, Name: k.ResourceFlavor.GetName()}
	case *berthv1.Object_ClusterQueue:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, Name: k.ClusterQueue.GetName()}
	case *berthv1.Object_Cohort:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_COHORT, Name: k.Cohort.GetName()}
	case *berthv1.Object_LocalQueue:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE,
			Namespace: k.LocalQueue.GetNamespace(), Name: k.LocalQueue.GetName()}
	case *berthv1.Object_WorkloadPriorityClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, Name: k.WorkloadPriorityClass.GetName()}
	case *berthv1.Object_Workload:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD,
			Namespace: k.Workload.GetNamespace(), Name: k.Workload.GetName()}
	}
	return &berthv1.ObjectRef{}
}

// identity is an object's kind, namespace and name, as a map key.
type identity struct {
	kind      berthv1.ObjectKind
	namespace string
	name      string
}

func identityOf(o *berthv1.Object) identity {
	r := objectRef(o)
	return identity{r.GetKind(), r.GetNamespace(), r.GetName()}
}
