package bboltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/berthsched/berth/store"
)

// bbolt's file header, as far as checkHeader reads it: two meta pages, at
// offset 0 and at one page size, each a 16-byte page header and then the
// meta (little-endian on the platforms Berth runs on): magic, version, page
// size, flags (4 bytes each), root bucket page and sequence, freelist page,
// high-water page count, transaction id (8 bytes each) and the FNV-64a
// checksum of what precedes it.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltPageHeader   = 16
	boltMetaSum      = 56 // bytes of meta covered by its checksum
	boltMetaSize     = boltMetaSum + 8
	boltNoFreelist   = ^uint64(0)
	boltMinPageSize  = 512
	boltMaxPageSize  = 1 << 20
	headerReadLength = boltMaxPageSize + boltPageHeader + boltMetaSize
)

// boltMeta is the part of a meta page checkHeader checks.
type boltMeta struct {
	pageSize                    uint32
	root, freelist, pages, txid uint64
}

// parseBoltMeta decodes the meta page at the start of b; ok is false unless
// its magic, version and checksum are right.
func parseBoltMeta(b []byte) (m boltMeta, ok bool) {
	if len(b) < boltPageHeader+boltMetaSize {
		return m, false
	}
	b = b[boltPageHeader:]
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != boltMagic || le.Uint32(b[4:]) != boltVersion {
		return m, false
	}
	h := fnv.New64a()
	_, _ = h.Write(b[:boltMetaSum])
	if h.Sum64() != le.Uint64(b[boltMetaSum:]) {
		return m, false
	}
	return boltMeta{
		pageSize: le.Uint32(b[8:]),
		root:     le.Uint64(b[16:]),
		freelist: le.Uint64(b[32:]),
		pages:    le.Uint64(b[40:]),
		txid:     le.Uint64(b[48:]),
	}, true
}

// checkHeader checks that head, the first bytes of a data file of size
// bytes, is a bbolt header that bbolt can open without reading past the
// end of the file: a valid meta page (the one bbolt would pick) with a sane
// page size, and the file at least as long as the pages it counts. bbolt
// maps the file and would otherwise fault (SIGBUS) on a truncated one. The
// error wraps store.ErrCorrupt. It is a pure function.
func checkHeader(head []byte, size int64, osPageSize int) error {
	if size < boltPageHeader+boltMetaSize {
		return fmt.Errorf("%w: %d bytes, too short for a bbolt header", store.ErrCorrupt, size)
	}
	m0, ok0 := parseBoltMeta(head)
	pageSize := osPageSize
	if ok0 {
		pageSize = int(m0.pageSize)
	}
	var m1 boltMeta
	ok1 := false
	if pageSize > 0 && pageSize < len(head) {
		m1, ok1 = parseBoltMeta(head[pageSize:])
	}
	m := m0
	switch {
	case !ok0 && !ok1:
		return fmt.Errorf("%w: no valid bbolt meta page (magic, version or checksum wrong): not a bbolt file, or its header is damaged", store.ErrCorrupt)
	case !ok0 || (ok1 && m1.txid > m0.txid):
		m = m1
	}
	ps := uint64(m.pageSize)
	switch {
	case ps < boltMinPageSize || ps > boltMaxPageSize || ps&(ps-1) != 0:
		return fmt.Errorf("%w: page size %d", store.ErrCorrupt, ps)
	case m.pages < 4 || m.pages > uint64(size)/ps:
		return fmt.Errorf("%w: %d bytes, but its header counts %d pages of %d bytes (%d bytes): the file was truncated",
			store.ErrCorrupt, size, m.pages, ps, m.pages*ps)
	case m.root >= m.pages || (m.freelist >= m.pages && m.freelist != boltNoFreelist):
		return fmt.Errorf("%w: root page %d or freelist page %d beyond the %d pages", store.ErrCorrupt, m.root, m.freelist, m.pages)
	}
	return nil
}

// checkDataFile checks the header of the data file at path, if it exists,
// before bbolt opens it. exists is false when there is no file, or an empty
// one that bbolt may initialise: a crash while bbolt created it leaves it
// empty, before any write-ahead file existed. An empty data file beside a
// write-ahead file lost its contents.
func checkDataFile(fs FS, path, walPath string) error {
	f, err := fs.OpenFile(path, os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size() == 0 {
		if _, err := os.Stat(walPath); os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("corrupt data file %s: %w: empty, beside a write-ahead file %s", path, store.ErrCorrupt, walPath)
	}
	head := make([]byte, min(st.Size(), headerReadLength))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := checkHeader(head, st.Size(), os.Getpagesize()); err != nil {
		return fmt.Errorf("corrupt data file %s: %w", path, err)
	}
	return nil
}

// openBolt checks the data file's header and opens it with bbolt.
func openBolt(path string, opts Options) (*bolt.DB, error) {
	if err := checkDataFile(opts.FS, path, filepath.Join(filepath.Dir(path), walFileName)); err != nil {
		return nil, fmt.Errorf("bboltstore: %w", err)
	}
	var db *bolt.DB
	err := guard(path, func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:         opts.LockTimeout,
			FreelistType:    bolt.FreelistMapType,
			NoFreelistSync:  true,
			InitialMmapSize: 256 << 20,
			OpenFile:        opts.FS.OpenDataFile,
		})
		return err
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: another berthd is using the data dir %s (no lock on %s within %v)",
			store.ErrLocked, filepath.Dir(path), path, opts.LockTimeout)
	}
	if errors.Is(err, bolterrors.ErrInvalid) || errors.Is(err, bolterrors.ErrChecksum) || errors.Is(err, bolterrors.ErrVersionMismatch) {
		return nil, fmt.Errorf("bboltstore: corrupt data file %s: %w: %w", path, store.ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("bboltstore: open %s: %w", path, err)
	}
	return db, nil
}

// guard runs fn, turning a fault on the data file's memory map (bbolt
// reading past the end of a damaged file) or a panic of bbolt's over
// damaged pages into an error wrapping store.ErrCorrupt, instead of a crash.
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bboltstore: corrupt data file %s: %w: %v", path, store.ErrCorrupt, r)
		}
	}()
	return fn()
}
