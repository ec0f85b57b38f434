package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// RepairReport is what Repair did.
type RepairReport struct {
	// Backup is the directory holding the copy of the data file and the
	// write-ahead file taken before anything changed; empty when there
	// was nothing to repair.
	Backup string
	// Dropped are the damaged keyspace values removed.
	Dropped []ValueRef
}

// Repair drops the damaged keyspace values of the data directory dir of a
// store that is not open, after keeping a copy of its files in
// dir/backup-<UTC time>/. Keyspace values are derived or recomputable (a
// store skips a damaged one as absent, and the server writes it again);
// damaged records are decisions and are never dropped: Repair leaves them
// (Verify lists them). It opens the store as berthd would (replaying the
// write-ahead file), so a directory Open refuses is refused here too.
func Repair(ctx context.Context, dir string, opts Options) (*RepairReport, error) {
	rep, err := Verify(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	if len(rep.DamagedValues) == 0 {
		return &RepairReport{}, nil
	}
	now := time.Now
	if opts.Clock != nil {
		now = opts.Clock
	}
	backup := filepath.Join(dir, "backup-"+now().UTC().Format("20060102T150405Z"))
	if err := copyFiles(backup, filepath.Join(dir, fileName), filepath.Join(dir, walFileName)); err != nil {
		return nil, fmt.Errorf("bboltstore: repair: keep a copy in %s: %w", backup, err)
	}
	out := &RepairReport{Backup: backup}
	s, err := Open(ctx, dir, opts)
	if err != nil {
		return out, fmt.Errorf("bboltstore: repair: %w", err)
	}
	err = s.in.AfterCompaction(func() error {
		if err := s.waitAllApplied(ctx); err != nil {
			return err
		}
		return s.db.Update(func(tx *bolt.Tx) (err error) {
			out.Dropped, err = dropDamagedValues(tx)
			return err
		})
	})
	if cerr := s.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return out, fmt.Errorf("bboltstore: repair %s: %w", s.path, err)
	}
	return out, nil
}

// dropDamagedValues deletes every keyspace value failing its checksum.
func dropDamagedValues(tx *bolt.Tx) ([]ValueRef, error) {
	var dropped []ValueRef
	for _, sp := range store.Spaces() {
		b, err := bucket(tx, spaceBucket(sp))
		if err != nil {
			return nil, err
		}
		var keys [][]byte
		_ = b.ForEach(func(k, v []byte) error {
			if _, err := checksum.OpenValue(sp, k, v); err != nil {
				keys = append(keys, clone(k))
			}
			return nil
		})
		for _, k := range keys { // deleting while ForEach walks would skip keys
			if err := b.Delete(k); err != nil {
				return nil, fmt.Errorf("drop %s %q: %w", sp, k, err)
			}
			dropped = append(dropped, ValueRef{Space: sp, Key: string(k)})
		}
	}
	return dropped, nil
}

// copyFiles copies the files that exist of paths into the new directory
// dir, synced.
func copyFiles(dir string, paths ...string) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	for _, p := range paths {
		if err := copyFile(filepath.Join(dir, filepath.Base(p)), p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func copyFile(dst, src string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Sync()
}
