package logstore

import (
	"log/slog"
	"maps"
	"sync"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// Values opens stored keyspace values through their checksum. Keyspace
// values are derived from decisions or recomputable (a nomination, a bind
// awaiting its outcome, a timer), unlike the log's records: a damaged one is
// skipped as absent, so that one bad value cannot keep berthd from
// starting, and logged and counted the first time it is met.
type Values struct {
	logger *slog.Logger

	mu      sync.Mutex
	damaged map[store.Space]map[string]bool // met so far, by keyspace and key
}

// NewValues returns Values that log damaged values to logger.
func NewValues(logger *slog.Logger) *Values {
	return &Values{logger: logger, damaged: make(map[store.Space]map[string]bool)}
}

// Open returns the value stored as v under key in sp without its checksum
// (aliasing v), or false when it is damaged.
func (vs *Values) Open(sp store.Space, key, v []byte) ([]byte, bool) {
	value, err := checksum.OpenValue(sp, key, v)
	if err == nil {
		return value, true
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if !vs.damaged[sp][string(key)] {
		if vs.damaged[sp] == nil {
			vs.damaged[sp] = make(map[string]bool)
		}
		vs.damaged[sp][string(key)] = true
		vs.logger.Warn("store: damaged keyspace value skipped as absent; it is rebuilt when next written ('berthd verify --repair' drops it)",
			"keyspace", string(sp), "key", string(key), "err", err)
	}
	return nil, false
}

// Damaged counts the damaged values met so far, by keyspace.
func (vs *Values) Damaged() map[store.Space]uint64 {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	out := make(map[store.Space]uint64, len(vs.damaged))
	for sp, keys := range maps.All(vs.damaged) {
		out[sp] = uint64(len(keys))
	}
	return out
}
