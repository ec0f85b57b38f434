package bboltstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// FS is the file layer under a Store: every open, write, sync and
// truncation of the write-ahead file, the data file's opening (the header
// check and bbolt's own open), and the directory syncs that make new files
// durable. The store renames nothing: bbolt and the write-ahead file are
// both written in place. OSFS is the real one; tests inject faults through
// their own.
type FS interface {
	// OpenFile opens a file the store reads or writes itself (the
	// write-ahead file; the data file for its header check).
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
	// OpenDataFile opens the data file for bbolt, which needs an *os.File.
	OpenDataFile(name string, flag int, perm os.FileMode) (*os.File, error)
	// SyncDir makes the entries of dir (a file just created) durable.
	SyncDir(dir string) error
}

// File is an open file of FS.
type File interface {
	io.ReaderAt
	io.WriterAt
	// Datasync flushes the file's data (fdatasync): its size too when it
	// changed, not its other metadata.
	Datasync() error
	// Sync flushes the file's data and metadata (fsync).
	Sync() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
	Close() error
}

// OSFS is FS on the operating system's files.
type OSFS struct{}

var _ FS = OSFS{}

// OpenFile implements FS.
func (OSFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// OpenDataFile implements FS.
func (OSFS) OpenDataFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// SyncDir implements FS.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open data dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync data dir: %w", err)
	}
	return nil
}

type osFile struct{ *os.File }

func (f osFile) Datasync() error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// syncDirOf makes the creation of the file at path durable.
func syncDirOf(fs FS, path string) error { return fs.SyncDir(filepath.Dir(path)) }
