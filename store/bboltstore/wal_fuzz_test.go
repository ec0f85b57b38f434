package bboltstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
)

// seedFrames are frames of real groups: what a committer writes.
func seedFrames() [][]byte {
	now := time.Unix(0, 1_700_000_000_123_456_789)
	rec := func(rev uint64, p string) []byte {
		v := append(append(make([]byte, timeSize), p...), make([]byte, crcSize)...)
		sealRecordValue(v, rev, now)
		return v
	}
	groups := []*walGroup{
		{first: 1, time: now, values: [][]byte{rec(1, "\x1a\x11default-scheduler\"\x0f\n\x07default\x12\x02p1\x1a\x02u1R\x04\n\x02n1")},
			ops: []store.Op{{Space: store.Assumed, Key: []byte("u1"), Value: []byte("node")}}},
		{first: 2, time: now, values: [][]byte{rec(2, ""), rec(3, "x")}},
		{first: 4, time: now, ops: []store.Op{
			{Space: store.Nominations, Key: []byte("uid-2"), Delete: true},
			{Space: store.Unschedulable, Key: []byte("uid-3"), Value: []byte{}},
			{Space: store.UserMeta, Key: []byte("k"), Value: []byte("v")},
		}},
	}
	var out [][]byte
	for i, g := range groups {
		out = append(out, encodeGroup(nil, uint64(i+1), g))
	}
	return out
}

// FuzzWALFrame checks the write-ahead file's frame and group decoders on
// any bytes. A frame that parses is exactly the bytes its header
// describes, and flipping any bit of it makes it unreadable (the CRC
// covers everything but the magic, which is checked). A payload that
// decodes re-encodes to a frame that decodes to the same group, never
// larger than the input; values always carry their time header and a
// valid checksum, and no
// operation is on an unknown keyspace.
func FuzzWALFrame(f *testing.F) {
	for _, fr := range seedFrames() {
		f.Add(fr, uint16(0))
		f.Add(fr[:len(fr)-1], uint16(3))
	}
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, flip uint16) {
		seq, payload, n, ok := parseFrame(data)
		if ok {
			if n > len(data) || n != walHeaderSize+len(payload) || !bytes.Equal(payload, data[walHeaderSize:n]) {
				t.Fatalf("parseFrame: n %d, payload %d bytes, of %d bytes", n, len(payload), len(data))
			}
			bit := int(flip) % (n * 8)
			bad := bytes.Clone(data[:n])
			bad[bit/8] ^= 1 << (bit % 8)
			if _, _, _, ok := parseFrame(bad); ok {
				t.Fatalf("a frame with bit %d flipped still parses", bit)
			}
		} else {
			payload, seq = data, 1 // the group decoder on its own
		}
		g, err := decodeGroup(payload)
		if err != nil {
			if g != nil && len(g.ops) > 0 && g.ops[len(g.ops)-1].Key == nil {
				t.Fatalf("a failed decode left a half-read operation: %+v", g.ops)
			}
			return
		}
		checkGroup(t, g)
		frame := encodeGroup(nil, seq, g)
		if len(frame)-walHeaderSize > len(payload) {
			t.Fatalf("re-encoding %d bytes gave %d", len(payload), len(frame)-walHeaderSize)
		}
		seq2, payload2, _, ok := parseFrame(frame)
		if !ok || seq2 != seq {
			t.Fatalf("the re-encoded frame does not parse (ok %v, seq %d, want %d)", ok, seq2, seq)
		}
		g2, err := decodeGroup(payload2)
		if err != nil {
			t.Fatalf("the re-encoded group does not decode: %v", err)
		}
		g.seq, g2.seq = 0, 0
		if !g.time.Equal(g2.time) || g.first != g2.first || !reflect.DeepEqual(g.values, g2.values) || !reflect.DeepEqual(g.ops, g2.ops) {
			t.Fatalf("decode(encode(g)) != g:\n%+v\n%+v", g, g2)
		}
	})
}

func checkGroup(t *testing.T, g *walGroup) {
	t.Helper()
	for i, v := range g.values {
		if len(v) < timeSize+crcSize || !recordTime(v).Equal(g.time) {
			t.Fatalf("value %d lacks the group's time header: %x", i, v)
		}
		if _, err := decodeRecord(binary.BigEndian.AppendUint64(nil, g.first+uint64(i)), v, true, true); err != nil {
			t.Fatalf("value %d does not pass its checksum: %v", i, err)
		}
	}
	for i, op := range g.ops {
		if !op.Space.Known() || op.Key == nil || (!op.Delete && op.Value == nil) {
			t.Fatalf("operation %d decoded as %+v", i, op)
		}
	}
}

// FuzzWALScan runs the replay's scan over a write-ahead file of any
// content, with bbolt holding groups up to applied. The groups returned
// are numbered applied+1, applied+2, ... with no gap; a failure is
// ErrCorrupt; every group is well formed and carried by a frame of its own.
func FuzzWALScan(f *testing.F) {
	frames := seedFrames()
	all := bytes.Join(frames, nil)
	f.Add(all, uint8(0))
	f.Add(all, uint8(1))
	f.Add(all, uint8(5))                                             // bbolt ahead of the file: nothing to replay
	f.Add(bytes.Join([][]byte{frames[1], frames[2]}, nil), uint8(0)) // the file lost group 1
	f.Add(append(bytes.Clone(all), make([]byte, 64)...), uint8(0))
	f.Add(append(bytes.Clone(frames[0]), frames[2]...), uint8(0)) // a gap: the scan stops
	path := filepath.Join(f.TempDir(), walFileName)               // rewritten by each input, in turn
	f.Fuzz(func(t *testing.T, data []byte, applied uint8) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		w := &wal{f: osFile{file}, path: path}
		groups, last, err := w.scan(uint64(applied))
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("scan error %v is not ErrCorrupt", err)
			}
			return
		}
		if len(groups) == 0 && last != uint64(applied) {
			t.Fatalf("no group replayed, but last = %d (applied %d)", last, applied)
		}
		for i, g := range groups {
			if want := uint64(applied) + uint64(i) + 1; g.seq != want {
				t.Fatalf("group %d has seq %d, want %d", i, g.seq, want)
			}
			checkGroup(t, g)
		}
		if len(groups)*walHeaderSize > len(data) {
			t.Fatalf("%d groups from %d bytes", len(groups), len(data))
		}
		if len(groups) > 0 && last != groups[len(groups)-1].seq {
			t.Fatalf("last = %d, the last group replayed is %d", last, groups[len(groups)-1].seq)
		}
	})
}
