// Package checksum is the CRC-32C (Castagnoli) that every store backend puts
// on what it stores, one definition so that the backends' encodings agree:
// a record's covers its revision, so a record moved to another revision
// fails; a keyspace value's covers its keyspace and key, so a value moved to
// another key fails.
package checksum

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/berthsched/berth/store"
)

// Size is the length of a checksum trailer.
const Size = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is the checksum of the record at rev whose stored body (time
// header and payload, trailer excluded) is body.
func Record(rev uint64, body []byte) uint32 {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], rev)
	return crc32.Update(crc32.Checksum(k[:], castagnoli), castagnoli, body)
}

// SealValue returns a copy of a keyspace value with its checksum trailer.
func SealValue(sp store.Space, key, value []byte) []byte {
	out := make([]byte, len(value), len(value)+Size)
	copy(out, value)
	return binary.BigEndian.AppendUint32(out, valueCRC(sp, key, value))
}

func valueCRC(sp store.Space, key, value []byte) uint32 {
	crc := crc32.Checksum([]byte(sp), castagnoli)
	crc = crc32.Update(crc, castagnoli, []byte{0})
	crc = crc32.Update(crc, castagnoli, key)
	crc = crc32.Update(crc, castagnoli, []byte{0})
	return crc32.Update(crc, castagnoli, value)
}

// OpenValue checks a stored keyspace value's checksum and returns the value
// without it (aliasing v); a damaged one fails with store.ErrCorrupt naming
// its keyspace and key.
func OpenValue(sp store.Space, key, v []byte) ([]byte, error) {
	if len(v) < Size {
		return nil, fmt.Errorf("%w: %s %q: value of %d bytes, shorter than its checksum", store.ErrCorrupt, sp, key, len(v))
	}
	value := v[:len(v)-Size]
	if want, got := binary.BigEndian.Uint32(v[len(value):]), valueCRC(sp, key, value); want != got {
		return nil, fmt.Errorf("%w: %s %q: checksum %08x, stored %08x", store.ErrCorrupt, sp, key, got, want)
	}
	return value, nil
}
