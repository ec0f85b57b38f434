package bboltstore

import (
	"context"
	"testing"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/storetest"
)

// TestConformance holds bboltstore to the contract every backend passes.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		dir := t.TempDir()
		return func(t *testing.T, o storetest.Options) store.Store {
			s, err := Open(context.Background(), dir, Options{Retention: o.Retention, Clock: o.Clock, CompactInterval: -1})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		}
	})
}
