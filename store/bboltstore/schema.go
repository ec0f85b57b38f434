package bboltstore

import (
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// schemaVersion is the layout this build reads and writes. Bump it, with a
// migration, whenever a bucket, a key or an encoding below changes meaning.
//
// Version 2 added the write-ahead file and walSeqKey; version 3 a checksum
// to every record and keyspace value, checksumFromKey and the high-water
// mark (ackedKey, ackedNextKey). Older files are upgraded in place when
// opened: a version 1 file has no write-ahead file to replay; the records
// of a version 1 or 2 file keep their encoding (checksumFromKey says where
// the checksummed ones start) and its keyspace values, a few thousand at
// most, are rewritten with their checksum.
const schemaVersion uint64 = 3

// fileName is the data file inside the data directory.
const fileName = "berth.db"

// Buckets. Every bucket is named here; Open creates the missing ones.
const (
	// metaBucket holds the store's own metadata under the meta keys.
	metaBucket = "meta"
	// logBucket maps a revision (8 bytes, big-endian) to a record value:
	// the commit time (8 bytes, big-endian Unix nanoseconds), the payload,
	// then (from checksumFromKey's revision on) the CRC-32C of the
	// revision key, the time and the payload (4 bytes, big-endian).
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
	// checksumFromKey is the first revision whose record carries a
	// checksum: the next revision when the file was upgraded to version 3,
	// 1 for a file created by it.
	checksumFromKey = "checksum-from"
	// ackedKey and ackedNextKey are the write-ahead file's high-water
	// mark: the last group acknowledged to its committers, and the
	// revision after its records, when bbolt last committed. Open refuses
	// a write-ahead file that ends before it (store.ErrLogTruncated).
	ackedKey     = "wal-acked"
	ackedNextKey = "wal-acked-next-revision"
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

// timeSize is the length of the time header of a record value, crcSize
// that of the checksum trailer of a record or keyspace value.
const (
	timeSize = 8
	crcSize  = 4
)

func putUint64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// metaInt is an integer of the meta bucket.
type metaInt struct {
	key string
	val uint64
}

// putMeta puts integers into the meta bucket.
func putMeta(meta *bolt.Bucket, ints ...metaInt) error {
	for _, m := range ints {
		if err := meta.Put([]byte(m.key), putUint64(m.val)); err != nil {
			return fmt.Errorf("put %s: %w", m.key, err)
		}
	}
	return nil
}

func getUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: %d-byte integer, want 8", store.ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// sealRecordValue stamps a record value (time header, payload, room for
// the trailer) with its time and its checksum.
func sealRecordValue(v []byte, rev uint64, t time.Time) {
	binary.BigEndian.PutUint64(v[:timeSize], uint64(t.UnixNano()))
	binary.BigEndian.PutUint32(v[len(v)-crcSize:], checksum.Record(rev, v[:len(v)-crcSize]))
}

// recordPayload is the payload of a sealed record value.
func recordPayload(v []byte) []byte { return v[timeSize : len(v)-crcSize] }

// decodeRecord decodes a log entry, checking its checksum when checked (the
// record is at or above checksumFromKey's revision). The payload aliases v
// when share is true and is a copy otherwise (values read inside a bbolt
// transaction must be copied to outlive it). A damaged record fails with a
// *store.CorruptRecordError naming its revision. It is a pure function.
func decodeRecord(k, v []byte, checked, share bool) (store.Record, error) {
	rev, err := getUint64(k)
	if err != nil {
		return store.Record{}, fmt.Errorf("log key: %w", err)
	}
	trailer := 0
	if checked {
		trailer = crcSize
	}
	if len(v) < timeSize+trailer {
		return store.Record{}, &store.CorruptRecordError{Revision: rev,
			Reason: fmt.Sprintf("%d bytes, shorter than its header", len(v))}
	}
	body := v[:len(v)-trailer]
	if checked {
		want, got := binary.BigEndian.Uint32(v[len(body):]), checksum.Record(rev, body)
		if want != got {
			return store.Record{}, &store.CorruptRecordError{Revision: rev,
				Reason: fmt.Sprintf("checksum %08x, stored %08x", got, want)}
		}
	}
	p := body[timeSize:]
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
