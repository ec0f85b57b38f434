package bboltstore

import (
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// schemaVersion is the layout this build reads and writes. Bump it, with a
// migration, whenever a bucket, a key or an encoding below changes meaning.
//
// Version 2 added the write-ahead file and walSeqKey; a version 1 file is
// upgraded in place when opened (it has no write-ahead file to replay).
const schemaVersion uint64 = 2

// fileName is the data file inside the data directory.
const fileName = "berth.db"

// Buckets. Every bucket is named here; Open creates the missing ones.
const (
	// metaBucket holds the store's own metadata under the meta keys.
	metaBucket = "meta"
	// logBucket maps a revision (8 bytes, big-endian) to a record value:
	// the commit time (8 bytes, big-endian Unix nanoseconds) then the payload.
	logBucket = "log"
	// spacePrefix prefixes a keyspace's name to name its bucket, keeping
	// keyspaces apart from the buckets above.
	spacePrefix = "space/"
)

// Keys of metaBucket, each holding an 8-byte big-endian integer.
const (
	schemaKey = "schema-version"
	// nextKey is the revision the next record gets. It outlives the
	// records, so revisions are never reused even if all are compacted.
	nextKey = "next-revision"
	// walSeqKey is the sequence number of the last write-ahead group
	// copied into bbolt: Open replays the groups after it.
	walSeqKey = "wal-seq"
)

// bucketNames returns every bucket the store uses.
func bucketNames() []string {
	names := []string{metaBucket, logBucket}
	for _, sp := range store.Spaces() {
		names = append(names, spaceBucket(sp))
	}
	return names
}

func spaceBucket(sp store.Space) string { return spacePrefix + string(sp) }

// timeSize is the length of the time header of a record value.
const timeSize = 8

func putUint64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func getUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: %d-byte integer, want 8", store.ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

func stampRecordValue(v []byte, t time.Time) {
	binary.BigEndian.PutUint64(v[:timeSize], uint64(t.UnixNano()))
}

// decodeRecord decodes a log entry. The payload aliases v when share is true
// and is a copy otherwise (values read inside a bbolt transaction must be
// copied to outlive it).
func decodeRecord(k, v []byte, share bool) (store.Record, error) {
	rev, err := getUint64(k)
	if err != nil {
		return store.Record{}, fmt.Errorf("log key: %w", err)
	}
	if len(v) < timeSize {
		return store.Record{}, fmt.Errorf("%w: record %d is %d bytes, shorter than its header", store.ErrCorrupt, rev, len(v))
	}
	p := v[timeSize:]
	if !share {
		p = append([]byte(nil), p...)
	}
	return store.Record{Revision: rev, Time: recordTime(v), Payload: p}, nil
}

func recordTime(v []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(v[:timeSize])))
}

// bucket returns the named bucket of tx, or an ErrCorrupt error if the file
// lacks it (Open creates them all, so that means damage).
func bucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(name))
	if b == nil {
		return nil, fmt.Errorf("%w: bucket %q missing", store.ErrCorrupt, name)
	}
	return b, nil
}

// putRevision writes rev as a log key into k (8 bytes).
func putRevision(k []byte, rev uint64) { binary.BigEndian.PutUint64(k, rev) }
