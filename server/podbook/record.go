package podbook

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
)

// Kind is what a record awaits.
type Kind uint8

const (
	// KindBind is a Bind decision awaiting the orchestrator's outcome: the
	// pod arriving bound, a report (confirmed or failed), or its deletion.
	// The binds of a group committed together (gang scheduling) are each
	// a KindBind record, sharing Record.Group.
	KindBind Kind = iota + 1
	// KindEvict is an Evict decision awaiting its victim's deletion. The
	// evictions to come (taints, the eviction API, node pressure) are
	// records of this kind too; only the decision's reason differs.
	KindEvict
)

// numKinds is how many kinds there are; they run from 1 to numKinds.
const numKinds = 2

// kinds lists every kind, in the order a pod's records are looked at.
func kinds() [numKinds]Kind { return [...]Kind{KindBind, KindEvict} }

func (k Kind) String() string {
	switch k {
	case KindBind:
		return "bind"
	case KindEvict:
		return "evict"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Space is the keyspace that holds the records of the kind, one key per
// pod uid. A store backend keeps them as it keeps any keyspace, so any
// store.Store holds the podbook.
func (k Kind) Space() store.Space {
	if k == KindEvict {
		return store.Evictions
	}
	return store.Assumed
}

// Record is one decision awaiting its outcome.
type Record struct {
	Kind   Kind
	PodUID string
	Node   string
	// Group names the records committed together (the binds of a gang);
	// empty for a record on its own.
	Group string
	// Revision is the decision's revision: 0 while it is being committed,
	// or when it was restored and its record was compacted away.
	Revision uint64
	// Restored is set on a record made before the last restart.
	Restored bool
	// Settled is set once a bind's outcome arrived: the record stays, for
	// its revision, until the pod is forgotten.
	Settled bool
}

// Durable values, by kind (compatible with every earlier data directory):
//   - a KindBind value is the revision its decision is at or above (8
//     bytes, big endian; Restore searches the log from there), then the
//     Bind decision's payload;
//   - a KindEvict value is the Evict decision's payload.
//
// The payload is a berthv1.Decision without revision and time, as the
// decision log writes it.

// BindHintSize is the size of a KindBind value's revision hint.
const BindHintSize = 8

// BindValue returns a KindBind value: the revision hint, then payload.
func BindValue(hint uint64, payload []byte) []byte {
	v := make([]byte, BindHintSize, BindHintSize+len(payload))
	binary.BigEndian.PutUint64(v, hint)
	return append(v, payload...)
}

// SetBindHint overwrites the revision hint of a KindBind value.
func SetBindHint(v []byte, hint uint64) { binary.BigEndian.PutUint64(v, hint) }

// parseValue decodes a stored value of kind k: the decision it holds and,
// for a bind, the revision hint.
func parseValue(k Kind, v []byte) (hint uint64, d *berthv1.Decision, err error) {
	payload := v
	if k == KindBind {
		if len(v) < BindHintSize {
			return 0, nil, fmt.Errorf("podbook: %s value of %d bytes: %w", k, len(v), store.ErrCorrupt)
		}
		hint, payload = binary.BigEndian.Uint64(v), v[BindHintSize:]
	}
	d, err = decodePayload(payload)
	if err != nil {
		return 0, nil, err
	}
	if k == KindBind && d.GetBind() == nil || k == KindEvict && d.GetEvict() == nil {
		return 0, nil, fmt.Errorf("podbook: %s value holds another decision: %w", k, store.ErrCorrupt)
	}
	return hint, d, nil
}

// decodePayload parses a decision's payload.
func decodePayload(payload []byte) (*berthv1.Decision, error) {
	d := new(berthv1.Decision)
	if err := proto.Unmarshal(payload, d); err != nil {
		return nil, fmt.Errorf("podbook: decode decision: %w: %w", store.ErrCorrupt, err)
	}
	return d, nil
}

// ParseBind returns the Bind decision a KindBind value holds (tests and
// tools read stored values with it).
func ParseBind(v []byte) (*berthv1.Decision, error) {
	_, d, err := parseValue(KindBind, v)
	return d, err
}

// ParseEvict returns the Evict decision a KindEvict value holds.
func ParseEvict(v []byte) (*berthv1.Decision, error) {
	_, d, err := parseValue(KindEvict, v)
	return d, err
}
