package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
)

func TestBatchValidate(t *testing.T) {
	big := make([]byte, store.MaxKeySize+1)
	tests := []struct {
		name    string
		build   func(b *store.Batch)
		wantErr string // substring; "" means valid
	}{
		{name: "empty", build: func(*store.Batch) {}},
		{name: "records and ops", build: func(b *store.Batch) {
			b.Append([]byte("bind"))
			b.Append(nil)
			b.Put(store.Nominations, []byte("ns/p"), []byte("n1"))
			b.Put(store.UserMeta, []byte("k"), nil)
			b.Delete(store.Assumed, []byte("ns/q"))
		}},
		{name: "unknown space", build: func(b *store.Batch) {
			b.Put(store.Nominations, []byte("a"), nil)
			b.Put("bogus", []byte("a"), nil)
		}, wantErr: `op 1: keyspace "bogus"`},
		{name: "empty key", build: func(b *store.Batch) {
			b.Delete(store.Assumed, nil)
		}, wantErr: "op 0: empty key in assumed"},
		{name: "key too long", build: func(b *store.Batch) {
			b.Put(store.Assumed, big, nil)
		}, wantErr: "key of 4097 bytes"},
		{name: "value too long", build: func(b *store.Batch) {
			b.Put(store.Assumed, []byte("k"), make([]byte, store.MaxValueSize+1))
		}, wantErr: "value of 16777217 bytes"},
		{name: "value of a delete ignored", build: func(b *store.Batch) {
			b.Ops = append(b.Ops, store.Op{Space: store.Assumed, Key: []byte("k"), Value: make([]byte, store.MaxValueSize+1), Delete: true})
		}},
		{name: "payload too long", build: func(b *store.Batch) {
			b.Append(nil)
			b.Append(make([]byte, store.MaxPayloadSize+1))
		}, wantErr: "record 1: payload of 16777217 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b store.Batch
			tt.build(&b)
			err := b.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidBatch) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want ErrInvalidBatch containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestUnknownSpaceIsTyped(t *testing.T) {
	var b store.Batch
	b.Put("bogus", []byte("k"), nil)
	if err := b.Validate(); !errors.Is(err, store.ErrUnknownSpace) {
		t.Fatalf("Validate() = %v, want ErrUnknownSpace", err)
	}
	for _, sp := range store.Spaces() {
		if !sp.Known() {
			t.Errorf("%q listed in Spaces but not Known", sp)
		}
	}
}

func TestRetentionExpired(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name      string
		r         store.Retention
		rev, last uint64
		age       time.Duration
		want      bool
	}{
		{name: "zero keeps all", r: store.Retention{}, rev: 1, last: 1000, age: 1000 * time.Hour},
		{name: "newest never expires", r: store.Retention{MaxRecords: 1, MaxAge: time.Second}, rev: 9, last: 9, age: time.Hour},
		{name: "within count", r: store.Retention{MaxRecords: 3}, rev: 8, last: 10},
		{name: "beyond count", r: store.Retention{MaxRecords: 3}, rev: 7, last: 10, want: true},
		{name: "count of one keeps only newest", r: store.Retention{MaxRecords: 1}, rev: 9, last: 10, want: true},
		{name: "younger than age", r: store.Retention{MaxAge: time.Minute}, rev: 1, last: 10, age: time.Minute - 1},
		{name: "exactly age", r: store.Retention{MaxAge: time.Minute}, rev: 1, last: 10, age: time.Minute, want: true},
		{name: "either limit expires", r: store.Retention{MaxRecords: 100, MaxAge: time.Minute}, rev: 1, last: 10, age: time.Hour, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Expired(tt.rev, tt.last, now.Add(-tt.age), now); got != tt.want {
				t.Fatalf("Expired(%d, %d, -%v) = %v, want %v", tt.rev, tt.last, tt.age, got, tt.want)
			}
		})
	}
}

func TestRetentionValidate(t *testing.T) {
	for _, r := range []store.Retention{{MaxRecords: -1}, {MaxAge: -time.Second}} {
		if err := r.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want error", r)
		}
	}
	if err := (store.Retention{MaxRecords: 5, MaxAge: time.Hour}).Validate(); err != nil {
		t.Errorf("Validate(valid) = %v", err)
	}
}

func TestTypedErrors(t *testing.T) {
	var err error = &store.CompactedError{Requested: 3, Oldest: 10}
	var ce *store.CompactedError
	if !errors.Is(err, store.ErrCompacted) || !errors.As(err, &ce) || ce.Oldest != 10 {
		t.Fatalf("CompactedError does not unwrap: %v", err)
	}
	if diff := cmp.Diff("store: revision 3 compacted, oldest retained is 10", err.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	err = &store.SchemaVersionError{Path: "/d/berth.db", Found: 7, Supported: 1}
	if !errors.Is(err, store.ErrSchemaVersion) {
		t.Fatalf("SchemaVersionError does not unwrap: %v", err)
	}
	if diff := cmp.Diff("store: /d/berth.db has schema version 7, newer than version 1 that this berthd supports", err.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

func TestCommitResultRevision(t *testing.T) {
	r := store.CommitResult{First: 41, Last: 43}
	got := []uint64{r.Revision(0), r.Revision(1), r.Revision(2)}
	if diff := cmp.Diff([]uint64{41, 42, 43}, got); diff != "" {
		t.Errorf("Revision (-want +got):\n%s", diff)
	}
}
