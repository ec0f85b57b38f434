package bboltstore

import (
	"bytes"
	"context"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/storetest"
)

// TestConformance holds bboltstore to the contract every backend passes.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Place {
		dir := t.TempDir()
		return storetest.Place{
			Open: func(t *testing.T, o storetest.Options) store.Store {
				s, err := Open(context.Background(), dir, Options{Retention: o.Retention, Clock: o.Clock, CompactInterval: -1})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return s
			},
			Damage: storetest.Damage{
				Record: func(t *testing.T, rev uint64) { flipStored(t, dir, logBucket, putUint64(rev), timeSize) },
				Value:  func(t *testing.T, sp store.Space, key []byte) { flipStored(t, dir, spaceBucket(sp), key, 0) },
			},
		}
	})
}

// flipStored flips a bit of byte i of the value under key in bucket.
func flipStored(t *testing.T, dir, bucket string, key []byte, i int) {
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		v := bytes.Clone(b.Get(key))
		if len(v) <= i {
			t.Fatalf("%s %q holds %d bytes, none to damage at %d", bucket, key, len(v), i)
		}
		v[i] ^= 0x10
		return b.Put(key, v)
	})
}
