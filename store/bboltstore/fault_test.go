package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
)

// faultFS is OSFS with faults: once armed, every call of one operation on
// one file, after skip calls, fails with err until healed. A failing write
// writes the first half of its bytes (a torn write) before it fails; a
// failing sync follows a write that did reach the file.
type faultFS struct {
	OSFS
	mu    sync.Mutex
	op    string // "open", "open-data", "write", "sync", "truncate", "sync-dir"; "" is healed
	file  string // base name; "" for sync-dir
	skip  int
	err   error
	fired int // calls that failed
}

func (fs *faultFS) arm(op, file string, skip int, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.op, fs.file, fs.skip, fs.err, fs.fired = op, file, skip, err, 0
}

func (fs *faultFS) heal() { fs.arm("", "", 0, nil) }

func (fs *faultFS) firedCount() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.fired
}

// fault returns the error for a call of op on file, if armed for it.
func (fs *faultFS) fault(op, file string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.op != op || (fs.file != "" && fs.file != filepath.Base(file)) {
		return nil
	}
	if fs.skip > 0 {
		fs.skip--
		return nil
	}
	fs.fired++
	return &os.PathError{Op: op, Path: file, Err: fs.err}
}

func (fs *faultFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	if err := fs.fault("open", name); err != nil {
		return nil, err
	}
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: f, fs: fs, name: name}, nil
}

func (fs *faultFS) OpenDataFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if err := fs.fault("open-data", name); err != nil {
		return nil, err
	}
	return fs.OSFS.OpenDataFile(name, flag, perm)
}

func (fs *faultFS) SyncDir(dir string) error {
	if err := fs.fault("sync-dir", ""); err != nil {
		return err
	}
	return fs.OSFS.SyncDir(dir)
}

type faultFile struct {
	File
	fs   *faultFS
	name string
}

func (f *faultFile) WriteAt(b []byte, off int64) (int, error) {
	if err := f.fs.fault("write", f.name); err != nil {
		n, _ := f.File.WriteAt(b[:len(b)/2], off)
		return n, err
	}
	return f.File.WriteAt(b, off)
}

func (f *faultFile) Datasync() error {
	if err := f.fs.fault("sync", f.name); err != nil {
		return err
	}
	return f.File.Datasync()
}

func (f *faultFile) Sync() error {
	if err := f.fs.fault("sync", f.name); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Truncate(size int64) error {
	if err := f.fs.fault("truncate", f.name); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

// TestFaultsAtOpen fails each file operation Open makes, on a new data
// directory and on one holding commits: Open fails with the fault (nothing
// stays open: the next Open is not locked out), and a later Open without
// faults finds every commit made before.
func TestFaultsAtOpen(t *testing.T) {
	points := []struct {
		op, file string
		existing bool // the fault only happens on a new directory otherwise
	}{
		{"open", walFileName, true},
		{"open", fileName, true}, // the header check
		{"open-data", fileName, true},
		{"truncate", walFileName, false}, // emptying a stale write-ahead file
		{"write", walFileName, false},    // preallocating it
		{"sync", walFileName, false},
		{"sync-dir", "", false},
	}
	for _, p := range points {
		for _, existing := range []bool{false, true} {
			if existing && !p.existing {
				continue
			}
			name := fmt.Sprintf("%s %s/existing=%v", p.op, p.file, existing)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				want := []rec{}
				if existing {
					s := open(t, dir, Options{})
					commit(t, s, batch("before"))
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					want = []rec{{1, "before"}}
				}
				fs := &faultFS{}
				fs.arm(p.op, p.file, 0, syscall.EIO)
				if s, err := Open(context.Background(), dir, Options{FS: fs, LockTimeout: 50 * ms}); !errors.Is(err, syscall.EIO) {
					if err == nil {
						_ = s.Close()
					}
					t.Fatalf("Open with %s failing = %v, want the EIO", name, err)
				}
				if fs.firedCount() == 0 {
					t.Fatalf("the fault %s never fired", name)
				}
				s := open(t, dir, Options{LockTimeout: 50 * ms})
				wantLogThenNext(t, s, want, "after")
			})
		}
	}
}

// TestFaultsDuringCommits fails each write the store makes while it
// commits: the write-ahead file's writes and syncs (once, or until the
// disk is freed) and the transactions that copy groups into bbolt (with a
// write-ahead file small enough that commits soon wait for them), with four
// committers, so that a fault hits groups of several batches. For each:
// commits either succeed or fail with store.ErrUnavailable; Health reports
// the failure and, once healed, the recovery, without a reopen; a crash
// in the middle loses no acknowledged decision and invents none that was
// not at least attempted; after recovery and a restart the log is exactly
// the acknowledged decisions, in order, with their keyspace changes.
func TestFaultsDuringCommits(t *testing.T) {
	points := []struct {
		name       string
		op         string // faultFS operation; "apply" fails bbolt's transactions
		skip       int
		persistent bool // until healed, else the fault fires once
	}{
		{"write-ahead write fails once", "write", 1, false},
		{"write-ahead sync fails once", "sync", 1, false},
		{"disk full: write-ahead writes fail", "write", 2, true},
		{"write-ahead syncs fail", "sync", 2, true},
		{"bbolt transactions fail", "apply", 0, true},
	}
	for _, p := range points {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			fs := &faultFS{}
			var applyErr error
			var mu sync.Mutex
			opts := Options{
				FS: fs, WALSize: 4 << 10, ApplyInterval: ms, RetryMin: ms, RetryMax: 4 * ms,
				applyFault: func() error { mu.Lock(); defer mu.Unlock(); return applyErr },
			}
			s, err := Open(context.Background(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			h := newCommitHistory()
			h.run(t, s, 0, 10)
			if p.op == "apply" {
				mu.Lock()
				applyErr = syscall.ENOSPC
				mu.Unlock()
			} else {
				fs.arm(p.op, walFileName, p.skip, syscall.ENOSPC)
			}
			failures := h.run(t, s, 10, 60)
			if failures == 0 {
				t.Fatal("no commit failed: the fault never hit a commit")
			}
			if _, err := s.Health(); p.persistent && !errors.Is(err, store.ErrUnavailable) {
				t.Errorf("Health during the fault = %v, want ErrUnavailable", err)
			}
			h.checkRead(t, s)
			h.checkCrash(t, crashCopy(t, dir), false)

			if p.op == "apply" {
				mu.Lock()
				applyErr = nil
				mu.Unlock()
			} else {
				fs.heal()
			}
			waitHealthy(t, s)
			if failures := h.run(t, s, 60, 80); failures != 0 {
				t.Fatalf("%d commits failed after the fault was healed", failures)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			h.checkCrash(t, dir, true)
		})
	}
}

// commitHistory is what a test committed: batch i appends record "r<i>
// ..." and puts key "k<i%7>" = the record in store.Assumed.
type commitHistory struct {
	mu     sync.Mutex
	acked  map[uint64]string // revision -> payload, of commits that returned
	failed map[string]bool   // payloads of commits that failed
}

func newCommitHistory() *commitHistory {
	return &commitHistory{acked: map[uint64]string{}, failed: map[string]bool{}}
}

// committers is how many goroutines commit at once, so that faults hit
// groups of several batches too.
const committers = 4

// run commits batches from..to-1 from several goroutines and returns how
// many failed; a failure must wrap store.ErrUnavailable.
func (h *commitHistory) run(t *testing.T, s *Store, from, to int) (failures int) {
	t.Helper()
	next := make(chan int)
	var wg sync.WaitGroup
	for range committers {
		wg.Go(func() {
			for i := range next {
				h.commit(t, s, i)
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := from; i < to; i++ {
		if h.failed[payloadOf(i)] {
			failures++
		}
	}
	return failures
}

func (h *commitHistory) commit(t *testing.T, s *Store, i int) {
	p := payloadOf(i)
	b := batch(p)
	b.Put(store.Assumed, []byte(fmt.Sprint("k", i%7)), []byte(p))
	res, err := s.Commit(context.Background(), b)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.acked[res.First] = p
	case errors.Is(err, store.ErrUnavailable):
		h.failed[p] = true
	default:
		t.Errorf("commit %d = %v, want success or ErrUnavailable", i, err)
	}
}

func payloadOf(i int) string { return fmt.Sprintf("r%d %0200d", i, 0) } // 4 KiB of write-ahead file holds 18

// checkRead reads the log while the store may be failing: it is the
// acknowledged history, or the read fails with ErrUnavailable.
func (h *commitHistory) checkRead(t *testing.T, s *Store) {
	t.Helper()
	rs, err := s.Read(context.Background(), 1, 0)
	if errors.Is(err, store.ErrUnavailable) {
		return
	}
	if err != nil {
		t.Fatalf("Read during the fault = %v", err)
	}
	if len(rs) != len(h.acked) {
		t.Fatalf("Read during the fault: %d records, %d acknowledged", len(rs), len(h.acked))
	}
	for _, r := range rs {
		if h.acked[r.Revision] != string(r.Payload) {
			t.Fatalf("Read during the fault: revision %d is %q, acknowledged %q", r.Revision, r.Payload, h.acked[r.Revision])
		}
	}
}

// checkCrash opens dir without faults: every acknowledged record is there
// at its revision, revisions are consecutive from 1, and any other record
// is one whose commit failed (its outcome was unknown) unless exact. The
// keyspace holds the last put of each key among the records.
func (h *commitHistory) checkCrash(t *testing.T, dir string, exact bool) {
	t.Helper()
	r, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer r.Close()
	rs, err := r.Read(context.Background(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantKV := map[string]string{}
	for i, rec := range rs {
		p := string(rec.Payload)
		switch {
		case rec.Revision != uint64(i)+1:
			t.Fatalf("record %d has revision %d", i, rec.Revision)
		case h.acked[rec.Revision] == p:
		case h.acked[rec.Revision] != "":
			t.Fatalf("revision %d is %q, acknowledged as %q", rec.Revision, p, h.acked[rec.Revision])
		case exact || !h.failed[p]:
			t.Fatalf("revision %d is %q, never acknowledged", rec.Revision, p)
		}
		var n int
		fmt.Sscanf(p, "r%d", &n)
		wantKV[fmt.Sprint("k", n%7)] = p
	}
	for rev := range h.acked {
		if rev > uint64(len(rs)) {
			t.Fatalf("acknowledged revision %d lost: the log ends at %d", rev, len(rs))
		}
	}
	if got := kvs(t, r, store.Assumed); fmt.Sprint(got) != fmt.Sprint(wantKV) {
		t.Fatalf("assumed = %v, want %v", got, wantKV)
	}
}

// waitHealthy waits until the store reports it can write again.
func waitHealthy(t *testing.T, s *Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ch, err := s.Health()
		if err == nil {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("still unhealthy after the fault was healed: %v", err)
		}
	}
}
