package store

import "fmt"

// Space names a keyspace: a small durable map from key to value, changed only
// through Batch operations so that it moves atomically with the log.
type Space string

// The keyspaces. To add one, declare it here and list it in Spaces; backends
// create what is missing when they open.
const (
	// Nominations maps a pod to the node it is nominated to.
	Nominations Space = "nominations"
	// Assumed maps a pod to its outstanding bind (node and revision) until
	// the orchestrator confirms or fails it.
	Assumed Space = "assumed"
	// Evictions maps a pod to the Evict decision made for it until the pod
	// is deleted: the scheduler holds it as terminating by preemption
	// meanwhile, across restarts.
	Evictions Space = "evictions"
	// UserMeta holds the server's own metadata (the store's is apart).
	UserMeta Space = "meta-user"
	// Unschedulable maps a pending pod to the message of its last
	// Unschedulable decision, so that a restart does not repeat it.
	Unschedulable Space = "unschedulable"
	// Pressure maps a node to its node-pressure eviction state
	// (server/pressuresvc): when thresholds were first met and conditions
	// last observed, deadlines that survive restarts.
	Pressure Space = "pressure"
	// Deadlines maps a named timer (a pod's NoExecute toleration, a
	// pressure grace period) to when it fires, so that timers survive a
	// restart (server/deadlines).
	Deadlines Space = "deadlines"
	// Claims maps an allocated ResourceClaim ("namespace/name") to the
	// claim with its allocation and consumers, from the Bind that
	// allocated it to its deallocation, so that a restart allocates none
	// of its devices again (server/decisionlog).
	Claims Space = "claims"
	// Admissions maps an admitted Kueue workload ("namespace/name") to its
	// Admit decision, from the Admit to its WorkloadEviction or the
	// workload's deletion, so that a restart admits no workload twice and
	// takes no admission back (server/queuesvc).
	Admissions Space = "admissions"
)

// Spaces returns every keyspace, in declaration order.
func Spaces() []Space {
	return []Space{Nominations, Assumed, Evictions, UserMeta, Unschedulable, Pressure, Deadlines, Claims, Admissions}
}

// Known reports whether s is one of Spaces.
func (s Space) Known() bool {
	switch s {
	case Nominations, Assumed, Evictions, UserMeta, Unschedulable, Pressure, Deadlines, Claims, Admissions:
		return true
	}
	return false
}

// Limits on what a Batch may carry.
const (
	MaxKeySize     = 4 << 10  // bytes in a keyspace key
	MaxValueSize   = 16 << 20 // bytes in a keyspace value
	MaxPayloadSize = 16 << 20 // bytes in a record payload
)

// Batch is what one Commit applies atomically: records appended to the log,
// in order, and keyspace operations, applied in order after them. The zero
// value is an empty batch.
type Batch struct {
	Records [][]byte
	Ops     []Op
}

// Op is one keyspace operation: a put of Value under Key, or a delete.
type Op struct {
	Space  Space
	Key    []byte
	Value  []byte // ignored by a delete
	Delete bool
}

// Append adds a record with the given payload.
func (b *Batch) Append(payload []byte) { b.Records = append(b.Records, payload) }

// Put sets key to value in space.
func (b *Batch) Put(space Space, key, value []byte) {
	b.Ops = append(b.Ops, Op{Space: space, Key: key, Value: value})
}

// Delete removes key from space; deleting a missing key is not an error.
func (b *Batch) Delete(space Space, key []byte) {
	b.Ops = append(b.Ops, Op{Space: space, Key: key, Delete: true})
}

// Empty reports whether the batch holds nothing to apply.
func (b *Batch) Empty() bool { return len(b.Records) == 0 && len(b.Ops) == 0 }

// Validate checks the batch against the limits: known spaces, keys of 1 to
// MaxKeySize bytes, values and payloads within their maximum. The error wraps
// ErrInvalidBatch and names the offending record or operation.
func (b *Batch) Validate() error {
	for i, p := range b.Records {
		if len(p) > MaxPayloadSize {
			return fmt.Errorf("%w: record %d: payload of %d bytes exceeds %d", ErrInvalidBatch, i, len(p), MaxPayloadSize)
		}
	}
	for i, op := range b.Ops {
		switch {
		case !op.Space.Known():
			return fmt.Errorf("%w: op %d: keyspace %q: %w", ErrInvalidBatch, i, op.Space, ErrUnknownSpace)
		case len(op.Key) == 0:
			return fmt.Errorf("%w: op %d: empty key in %s", ErrInvalidBatch, i, op.Space)
		case len(op.Key) > MaxKeySize:
			return fmt.Errorf("%w: op %d: key of %d bytes in %s exceeds %d", ErrInvalidBatch, i, len(op.Key), op.Space, MaxKeySize)
		case !op.Delete && len(op.Value) > MaxValueSize:
			return fmt.Errorf("%w: op %d: value of %d bytes in %s exceeds %d", ErrInvalidBatch, i, len(op.Value), op.Space, MaxValueSize)
		}
	}
	return nil
}
