package etcdstore

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// schemaVersion is the layout this build reads and writes under a prefix.
// Bump it, with a migration, whenever a key or an encoding below changes
// meaning.
const schemaVersion uint64 = 1

// Keys below the prefix. Meta integers are decimal text (readable with
// etcdctl); log keys carry the revision zero-padded to 20 digits, so that
// etcd's byte order is revision order.
const (
	schemaKey = "meta/schema-version"
	// nextKey is the revision the next record gets; it outlives the
	// records, so revisions are never reused even if all are compacted.
	nextKey   = "meta/next-revision"
	logDir    = "log/"
	spaceDir  = "space/"
	revDigits = 20
)

// keys are a store's full keys, its prefix applied.
type keys struct{ prefix string }

func (k keys) schema() string { return k.prefix + schemaKey }
func (k keys) next() string   { return k.prefix + nextKey }
func (k keys) logFrom() string {
	return k.prefix + logDir
}

// logEnd is the end of the log's key range (exclusive).
func (k keys) logEnd() string { return k.prefix + "log0" } // '0' follows '/'

func (k keys) record(rev uint64) string {
	return fmt.Sprintf("%s%s%0*d", k.prefix, logDir, revDigits, rev)
}

// revision parses a log key.
func (k keys) revision(key []byte) (uint64, error) {
	s := string(key)
	p := len(k.prefix) + len(logDir)
	if len(s) != p+revDigits {
		return 0, fmt.Errorf("%w: log key %q", store.ErrCorrupt, s)
	}
	rev, err := strconv.ParseUint(s[p:], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: log key %q: %w", store.ErrCorrupt, s, err)
	}
	return rev, nil
}

// space is the key prefix of a keyspace's pairs.
func (k keys) space(sp store.Space) string { return k.prefix + spaceDir + string(sp) + "/" }

func (k keys) spaceKey(sp store.Space, key []byte) string { return k.space(sp) + string(key) }

func parseMetaInt(key string, v []byte) (uint64, error) {
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s holds %q, not a decimal integer", store.ErrCorrupt, key, v)
	}
	return n, nil
}

func formatMetaInt(n uint64) string { return strconv.FormatUint(n, 10) }

// Encodings, bboltstore's: a record value is its commit time (8 bytes,
// big-endian Unix ns), the payload and its checksum.Record; a keyspace
// value is checksum.SealValue's.
const (
	timeSize = 8
	crcSize  = 4
)

// recordValue encodes a record.
func recordValue(rev uint64, t time.Time, payload []byte) []byte {
	v := make([]byte, timeSize, timeSize+len(payload)+crcSize)
	binary.BigEndian.PutUint64(v, uint64(t.UnixNano()))
	v = append(v, payload...)
	return binary.BigEndian.AppendUint32(v, checksum.Record(rev, v))
}

// decodeRecord checks and decodes the record at rev; the payload aliases v.
func decodeRecord(rev uint64, v []byte) (store.Record, error) {
	if len(v) < timeSize+crcSize {
		return store.Record{}, &store.CorruptRecordError{Revision: rev,
			Reason: fmt.Sprintf("%d bytes, shorter than its header", len(v))}
	}
	body := v[:len(v)-crcSize]
	if want, got := binary.BigEndian.Uint32(v[len(body):]), checksum.Record(rev, body); want != got {
		return store.Record{}, &store.CorruptRecordError{Revision: rev,
			Reason: fmt.Sprintf("checksum %08x, stored %08x", got, want)}
	}
	return store.Record{Revision: rev, Time: recordTime(v), Payload: body[timeSize:]}, nil
}

func recordTime(v []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(v[:timeSize])))
}
