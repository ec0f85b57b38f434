package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// VerifyReport is what Verify found in a data directory.
type VerifyReport struct {
	Path          string
	SchemaVersion uint64
	// First and Last are the oldest and newest revision in the data file;
	// Records how many records it holds.
	First, Last uint64
	Records     int
	// ChecksumFrom is the first revision whose record carries a checksum
	// (records below it were written before schema version 3).
	ChecksumFrom uint64
	// WAL is what Verify found of the write-ahead file.
	WAL WALReport
	// Replay is how many write-ahead groups Open would copy in, and
	// ReplayLast the newest revision after them.
	Replay     int
	ReplayLast uint64
	// Damaged lists the revisions of records that fail their checksum or
	// cannot be decoded; DamagedValues the keyspace values that fail
	// theirs (a store skips them; Repair drops them); Problems every
	// finding, one sentence each.
	Damaged       []uint64
	DamagedValues []ValueRef
	Problems      []string
}

// WALReport describes the write-ahead file (berth.wal) beside the data file.
type WALReport struct {
	Path string
	// Present is false when there is none (a data file of schema version
	// 1 never had one; Open creates it).
	Present bool
	Size    int64 // bytes, preallocated
	// Applied is the last group the data file holds (wal-seq), Last the
	// newest group the file holds (Applied when none is newer).
	Applied, Last uint64
	// Acked and AckedNext are the high-water mark: the last group
	// acknowledged when bbolt last committed, and the revision after it
	// (0 when the data file records none).
	Acked, AckedNext uint64
}

// ValueRef names a keyspace value.
type ValueRef struct {
	Space store.Space
	Key   string
}

// OK reports whether Verify found nothing wrong.
func (r *VerifyReport) OK() bool { return len(r.Problems) == 0 }

func (r *VerifyReport) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// Verify checks the data directory dir of a store that is not open (it
// takes the data file's lock, read-only, for LockTimeout): the data file's
// header, bbolt's page structure, every record's checksum and the
// contiguity of revisions, every keyspace value's checksum, the meta keys,
// and the write-ahead file (the groups Open would replay and its
// high-water mark). It changes nothing. Damage goes into the report; the
// error is for what kept it from checking (a missing or locked file).
func Verify(ctx context.Context, dir string, opts Options) (*VerifyReport, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fileName)
	rep := &VerifyReport{Path: path}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("bboltstore: verify: %w", err)
	}
	if err := checkDataFile(opts.FS, path, filepath.Join(dir, walFileName)); err != nil {
		if !errors.Is(err, store.ErrCorrupt) {
			return nil, err
		}
		rep.problem("%v", err)
		return rep, nil
	}
	var db *bolt.DB
	err = guard(path, func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: opts.LockTimeout, OpenFile: opts.FS.OpenDataFile})
		return err
	})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("%w: %s is in use (stop berthd first)", store.ErrLocked, path)
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum):
		rep.problem("%v", err)
		return rep, nil
	case err != nil:
		return nil, fmt.Errorf("bboltstore: verify: open %s: %w", path, err)
	}
	defer db.Close()
	var mark highWater
	var applied, next uint64
	err = guard(path, func() error {
		return db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				rep.problem("bbolt: %v", err)
			}
			var err error
			if applied, next, mark, err = verifyMeta(tx, rep); err != nil {
				return err
			}
			if err := verifyLog(ctx, tx, rep, next); err != nil {
				return err
			}
			rep.DamagedValues = damagedValues(tx, rep.SchemaVersion)
			for _, v := range rep.DamagedValues {
				rep.problem("keyspace %s: the value of %q fails its checksum (a start skips it; berthd verify --repair drops it)", v.Space, v.Key)
			}
			return nil
		})
	})
	if err != nil {
		if errors.Is(err, store.ErrCorrupt) {
			rep.problem("%v", err)
			return rep, nil
		}
		return nil, fmt.Errorf("bboltstore: verify %s: %w", path, err)
	}
	return rep, verifyWAL(opts.FS, dir, rep, applied, next, mark)
}

// verifyMeta checks the meta bucket and returns the last group applied,
// the next revision and the high-water mark.
func verifyMeta(tx *bolt.Tx, rep *VerifyReport) (applied, next uint64, mark highWater, err error) {
	meta, err := bucket(tx, metaBucket)
	if err != nil {
		return 0, 0, mark, err
	}
	if rep.SchemaVersion, err = getUint64(meta.Get([]byte(schemaKey))); err != nil {
		return 0, 0, mark, fmt.Errorf("%s: %w", schemaKey, err)
	}
	if rep.SchemaVersion < 1 || rep.SchemaVersion > schemaVersion {
		return 0, 0, mark, &store.SchemaVersionError{Path: rep.Path, Found: rep.SchemaVersion, Supported: schemaVersion}
	}
	if next, err = getUint64(meta.Get([]byte(nextKey))); err != nil {
		return 0, 0, mark, fmt.Errorf("%s: %w", nextKey, err)
	}
	rep.ChecksumFrom = next // versions 1 and 2: none yet
	if rep.SchemaVersion < 3 {
		applied, _ = getUint64(meta.Get([]byte(walSeqKey))) // absent in version 1
		return applied, next, mark, nil
	}
	if rep.ChecksumFrom, err = getUint64(meta.Get([]byte(checksumFromKey))); err != nil {
		return 0, 0, mark, fmt.Errorf("%s: %w", checksumFromKey, err)
	}
	if applied, err = getUint64(meta.Get([]byte(walSeqKey))); err != nil {
		return 0, 0, mark, fmt.Errorf("%s: %w", walSeqKey, err)
	}
	mark, err = getHighWater(meta)
	return applied, next, mark, err
}

// verifyLog decodes every record, checking its checksum and that
// revisions are consecutive and below next.
func verifyLog(ctx context.Context, tx *bolt.Tx, rep *VerifyReport, next uint64) error {
	log, err := bucket(tx, logBucket)
	if err != nil {
		return err
	}
	var prev uint64
	c := log.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if rep.Records%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rep.Records++
		if len(k) != 8 {
			rep.problem("log key of %d bytes (%x), want 8", len(k), k)
			continue
		}
		rev := getRevision(k)
		checked := rev >= rep.ChecksumFrom && rep.SchemaVersion >= 3
		if _, err := decodeRecord(k, v, checked, true); err != nil {
			rep.Damaged = append(rep.Damaged, rev)
			rep.problem("%v", err)
		}
		switch {
		case prev == 0:
			rep.First = rev
		case rev != prev+1:
			rep.problem("revisions jump from %d to %d", prev, rev)
		}
		prev = rev
	}
	rep.Last = prev
	if rep.Records == 0 {
		rep.First, rep.Last = next, next-1
	}
	if prev >= next {
		rep.problem("the log reaches revision %d but %s is %d", prev, nextKey, next)
	}
	return nil
}

// damagedValues lists the keyspace values that fail their checksum
// (schema version 3 on: older ones carry none).
func damagedValues(tx *bolt.Tx, version uint64) []ValueRef {
	var out []ValueRef
	for _, sp := range store.Spaces() {
		b := tx.Bucket([]byte(spaceBucket(sp)))
		if b == nil || version < 3 {
			continue
		}
		_ = b.ForEach(func(k, v []byte) error {
			if _, err := checksum.OpenValue(sp, k, v); err != nil {
				out = append(out, ValueRef{Space: sp, Key: string(k)})
			}
			return nil
		})
	}
	return out
}

// verifyWAL scans the write-ahead file as Open would, without writing it:
// the groups after applied must follow it and the revisions of the data
// file, and it must reach the high-water mark.
func verifyWAL(fs FS, dir string, rep *VerifyReport, applied, next uint64, mark highWater) error {
	path := filepath.Join(dir, walFileName)
	rep.WAL = WALReport{Path: path, Applied: applied, Last: applied, Acked: mark.seq, AckedNext: mark.next}
	f, err := fs.OpenFile(path, os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bboltstore: verify: open %s: %w", path, err)
	}
	defer f.Close()
	rep.WAL.Present = true
	if st, err := f.Stat(); err == nil {
		rep.WAL.Size = st.Size()
	}
	w := &wal{fs: fs, f: f, path: path}
	groups, last, err := w.scan(applied)
	if err != nil {
		rep.problem("%v", err)
		return nil
	}
	rep.WAL.Last = last
	rep.Replay = len(groups)
	for _, g := range groups {
		if g.first != next {
			rep.problem("%s: group %d starts at revision %d, the data file's log continues at %d", path, g.seq, g.first, next)
			return nil
		}
		next += uint64(len(g.values))
	}
	rep.ReplayLast = next - 1
	if last < mark.seq {
		lost := &store.LogTruncatedError{Path: path, Last: next - 1, Acked: max(mark.next, next) - 1, Groups: mark.seq - last}
		rep.problem("%v", lost)
	}
	return nil
}

func getRevision(k []byte) uint64 { v, _ := getUint64(k); return v }
