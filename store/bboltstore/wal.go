package bboltstore

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/berthsched/berth/store"
)

// The write-ahead file (dir/berth.wal) makes a commit group durable with one
// fdatasync of one small write: a bbolt transaction needs two (its pages,
// then its meta page), and on small virtual disks each costs 0.3-1 ms. The
// committer appends a group's frame and syncs it before answering; the
// applier copies groups into bbolt later, many per transaction, and records
// the last sequence number it applied (walSeqKey), so that Open replays only
// what bbolt lacks.
//
// The file is preallocated with zeros and overwritten in place, so that a
// sync writes data blocks only, never the file's size. When the next frame
// would not fit, the committer waits until bbolt holds every group and
// starts again at offset 0. A frame carries a sequence number one above its
// predecessor's and a CRC over its contents: a scan from offset 0 stops at a
// torn write, at zeros, or at a frame of an older lap (a lower sequence).

const walFileName = "berth.wal"

// DefaultWALSize is the write-ahead file's preallocated size.
const DefaultWALSize = 4 << 20

const (
	walMagic      = 0x57485442 // "BTHW" little-endian
	walHeaderSize = 20         // magic, length, seq, crc
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// wal is the write-ahead file. Only the committer writes it; Open reads it.
type wal struct {
	fs   FS
	f    File
	path string
	size int64  // preallocated size: frames are written below it when they fit
	off  int64  // where the next frame goes
	seq  uint64 // sequence number of the last frame written (or applied at Open)
	buf  []byte // the frame being encoded, reused
	// dirty is how many bytes from off a failed append may have written:
	// clear zeroes them before the next frame goes there.
	dirty int
}

// walGroup is one commit group as the applier and the replay see it.
type walGroup struct {
	seq   uint64
	first uint64    // revision of the first record
	time  time.Time // stamped on every record of the group
	// values are record values with their time header stamped; ops are the
	// keyspace operations, applied after the records.
	values [][]byte
	ops    []store.Op
}

// openWAL opens or creates the write-ahead file. Before the first frame is
// written, the file is either reset or preallocated.
func openWAL(fs FS, dir string, size int64) (*wal, error) {
	path := filepath.Join(dir, walFileName)
	f, err := fs.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open write-ahead file: %w", err)
	}
	return &wal{fs: fs, f: f, path: path, size: size}, nil
}

// preallocate extends the file with zeros up to w.size and syncs it and its
// directory, so that later syncs do not change its size. Zeros past the
// frames change nothing a scan finds.
func (w *wal) preallocate() error {
	st, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", w.path, err)
	}
	if st.Size() >= w.size {
		return nil
	}
	zeros := make([]byte, 1<<20)
	for off := st.Size(); off < w.size; off += int64(len(zeros)) {
		n := min(int64(len(zeros)), w.size-off)
		if _, err := w.f.WriteAt(zeros[:n], off); err != nil {
			return fmt.Errorf("preallocate %s: %w", w.path, err)
		}
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	return syncDirOf(w.fs, w.path)
}

// reset empties the file and preallocates it again.
func (w *wal) reset() error {
	if err := w.f.Truncate(0); err != nil {
		return fmt.Errorf("truncate %s: %w", w.path, err)
	}
	return w.preallocate()
}

// scan reads the frames of the current lap, from offset 0, and returns the
// groups with a sequence number above applied, in order. It fails if those
// do not start at applied+1: the file lost groups bbolt never received.
func (w *wal) scan(applied uint64) ([]*walGroup, uint64, error) {
	data, err := io.ReadAll(io.NewSectionReader(w.f, 0, 1<<62))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", w.path, err)
	}
	var out []*walGroup
	var prev uint64
	last := applied
	for off := 0; ; {
		seq, payload, n, ok := parseFrame(data[off:])
		if !ok || (off > 0 && seq != prev+1) {
			break
		}
		prev = seq
		off += n
		if seq <= applied {
			continue
		}
		if len(out) == 0 && seq != applied+1 {
			return nil, 0, fmt.Errorf("%w: %s starts at group %d, but bbolt holds groups only up to %d",
				store.ErrCorrupt, w.path, seq, applied)
		}
		g, err := decodeGroup(payload)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %s: group %d: %w", store.ErrCorrupt, w.path, seq, err)
		}
		g.seq = seq
		out = append(out, g)
		last = seq
	}
	return out, last, nil
}

// parseFrame decodes the frame at the start of b: its sequence number, its
// payload (aliasing b) and its length; ok is false for anything but a whole,
// intact frame.
func parseFrame(b []byte) (seq uint64, payload []byte, n int, ok bool) {
	if len(b) < walHeaderSize || binary.LittleEndian.Uint32(b[0:4]) != walMagic {
		return 0, nil, 0, false
	}
	size := int(binary.LittleEndian.Uint32(b[4:8]))
	if size > len(b)-walHeaderSize {
		return 0, nil, 0, false
	}
	crc := crc32.Update(0, castagnoli, b[4:16])
	crc = crc32.Update(crc, castagnoli, b[walHeaderSize:walHeaderSize+size])
	if crc != binary.LittleEndian.Uint32(b[16:20]) {
		return 0, nil, 0, false
	}
	return binary.LittleEndian.Uint64(b[8:16]), b[walHeaderSize : walHeaderSize+size], walHeaderSize + size, true
}

// append writes the group as the next frame and syncs it. rewind is called
// first when the frame does not fit in the rest of the file; it must return
// once bbolt holds every group written so far, so that the file can be
// overwritten from its start.
func (w *wal) append(g *walGroup, rewind func() error) error {
	w.buf = encodeGroup(w.buf[:0], w.seq+1, g)
	if w.off > 0 && w.off+int64(len(w.buf)) > w.size {
		if err := rewind(); err != nil {
			return err
		}
		w.off = 0
	}
	if _, err := w.f.WriteAt(w.buf, w.off); err != nil {
		w.dirty = len(w.buf)
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	// fdatasync: the file's size does not change below w.size, so the data
	// blocks are all there is to flush. A frame past the preallocated end
	// (one larger than the file) grows it, and fdatasync flushes the size too.
	if err := w.f.Datasync(); err != nil {
		w.dirty = len(w.buf)
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	w.off += int64(len(w.buf))
	w.seq++
	if cap(w.buf) > 1<<20 {
		w.buf = nil // do not keep a huge group's buffer
	}
	return nil
}

// clear overwrites what a failed append may have written with zeros and
// syncs them: whatever part of that frame reached the disk is gone (its
// callers were told it failed), and a success shows that the file can be
// written again. The next frame goes to the same offset with the same
// sequence number. A failed sync may have dropped the page cache's copy of
// the frame (Linux marks it clean), so rewriting, not resyncing, is what
// makes the range known.
func (w *wal) clear() error {
	if w.dirty == 0 {
		return nil
	}
	if _, err := w.f.WriteAt(make([]byte, w.dirty), w.off); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.f.Datasync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	w.dirty = 0
	return nil
}

func (w *wal) close() error { return w.f.Close() }

// encodeGroup appends the frame of group g, numbered seq, to b. Payload: the time (Unix
// nanoseconds), the first revision, the records (count, then length and
// bytes of each payload, without the time header), and the operations
// (count, then for each its keyspace's index in store.Spaces, a delete flag,
// the key and, unless deleting, the value).
func encodeGroup(b []byte, seq uint64, g *walGroup) []byte {
	b = append(b, make([]byte, walHeaderSize)...)
	b = binary.LittleEndian.AppendUint64(b, uint64(g.time.UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, g.first)
	b = binary.AppendUvarint(b, uint64(len(g.values)))
	for _, v := range g.values {
		p := recordPayload(v)
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	b = binary.AppendUvarint(b, uint64(len(g.ops)))
	spaces := store.Spaces() // once per group: it allocates
	for _, op := range g.ops {
		b = append(b, spaceIndex(spaces, op.Space))
		if op.Delete {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(op.Key)))
		b = append(b, op.Key...)
		if !op.Delete {
			b = binary.AppendUvarint(b, uint64(len(op.Value)))
			b = append(b, op.Value...)
		}
	}
	h := b[:walHeaderSize]
	binary.LittleEndian.PutUint32(h[0:4], walMagic)
	binary.LittleEndian.PutUint32(h[4:8], uint32(len(b)-walHeaderSize))
	binary.LittleEndian.PutUint64(h[8:16], seq)
	crc := crc32.Update(0, castagnoli, h[4:16])
	crc = crc32.Update(crc, castagnoli, b[walHeaderSize:])
	binary.LittleEndian.PutUint32(h[16:20], crc)
	return b
}

// decodeGroup decodes a frame's payload. The values and ops are copies.
func decodeGroup(p []byte) (*walGroup, error) {
	d := decoder{b: p}
	g := &walGroup{}
	g.time = time.Unix(0, int64(d.uint64()))
	g.first = d.uint64()
	n := d.count()
	for i := range n {
		payload := d.bytes()
		v := make([]byte, timeSize+len(payload)+crcSize)
		copy(v[timeSize:], payload)
		sealRecordValue(v, g.first+i, g.time)
		g.values = append(g.values, v)
	}
	n = d.count()
	spaces := store.Spaces()
	for range n {
		idx, del := d.byte(), d.byte()
		if d.err == nil && (int(idx) >= len(spaces) || del > 1) {
			d.err = fmt.Errorf("operation on keyspace %d, delete flag %d", idx, del)
		}
		op := store.Op{Delete: del == 1, Key: d.bytes()}
		if d.err != nil {
			break
		}
		op.Space = spaces[idx]
		if !op.Delete {
			op.Value = d.bytes()
		}
		g.ops = append(g.ops, op)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the last operation", len(d.b))
	}
	return g, d.err
}

// spaceIndex is sp's position in spaces, store.Spaces (Commit validated sp).
func spaceIndex(spaces []store.Space, sp store.Space) byte {
	for i, s := range spaces {
		if s == sp {
			return byte(i)
		}
	}
	panic(fmt.Sprintf("bboltstore: unknown keyspace %q", sp))
}

// decoder reads a frame payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("truncated %s", what)
	}
	d.b = nil
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail("integer")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail("byte")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("length")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items, each at least one byte long.
func (d *decoder) count() uint64 {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("count")
		return 0
	}
	return n
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("bytes")
		return nil
	}
	// Never nil: bbolt stores an empty value but refuses a nil one.
	v := make([]byte, n)
	copy(v, d.b)
	d.b = d.b[n:]
	return v
}
