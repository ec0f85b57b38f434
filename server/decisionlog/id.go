package decisionlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/berthsched/berth/store"
)

// idKey is the store.UserMeta key of the log's identity.
const idKey = "decision-log-id"

// ID returns the log's identity: a random id created with the data
// directory (by the first Recover over it), so that a watcher can tell
// that revisions it holds came from another log (a new data directory, or
// another berthd). Empty before Recover.
func (l *Log) ID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// loadID reads the log's identity, creating it if the store has none.
func (l *Log) loadID(ctx context.Context) error {
	id, ok, err := ReadID(l.store)
	if err != nil {
		return fmt.Errorf("decisionlog: read the log id: %w", err)
	}
	v := []byte(id)
	if !ok {
		var raw [16]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return fmt.Errorf("decisionlog: make a log id: %w", err)
		}
		v = []byte(hex.EncodeToString(raw[:]))
		var b store.Batch
		b.Put(store.UserMeta, []byte(idKey), v)
		if _, err := l.store.Commit(ctx, &b); err != nil {
			return fmt.Errorf("decisionlog: write the log id: %w", err)
		}
	}
	l.mu.Lock()
	l.id = string(v)
	l.mu.Unlock()
	return nil
}

// ReadID reads the identity of the log in st without creating it, for a
// replica that follows the log another one writes (server/replica); found
// is false while no leader has written it yet.
func ReadID(st store.Store) (id string, found bool, err error) {
	v, ok, err := st.Get(store.UserMeta, []byte(idKey))
	if err != nil || !ok {
		return "", false, err
	}
	return string(v), true, nil
}
