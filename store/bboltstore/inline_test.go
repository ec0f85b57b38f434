package bboltstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stackFS records, for every sync of the write-ahead file, whether it ran
// under Commit (on the committing goroutine) or on the committer.
type stackFS struct {
	OSFS
	mu        sync.Mutex
	underCall []bool
}

func (fs *stackFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil || filepath.Base(name) != walFileName {
		return f, err
	}
	return stackFile{File: f, fs: fs}, nil
}

type stackFile struct {
	File
	fs *stackFS
}

func (f stackFile) Datasync() error {
	buf := make([]byte, 64<<10)
	stack := string(buf[:runtime.Stack(buf, false)])
	f.fs.mu.Lock()
	f.fs.underCall = append(f.fs.underCall, strings.Contains(stack, ".(*Store).Commit("))
	f.fs.mu.Unlock()
	return f.File.Datasync()
}

// TestIdleCommitWritesOnCallersGoroutine: a commit finding no write in
// progress writes and syncs its frame on its own goroutine, not through
// the committer.
func TestIdleCommitWritesOnCallersGoroutine(t *testing.T) {
	fs := &stackFS{}
	s := open(t, t.TempDir(), Options{FS: fs})
	fs.mu.Lock()
	fs.underCall = nil // syncs of Open
	fs.mu.Unlock()
	for i := range 3 {
		res, err := s.Commit(context.Background(), batch(fmt.Sprint(i)))
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		if res.First != uint64(i+1) {
			t.Errorf("commit %d got revision %d, want %d", i, res.First, i+1)
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if diff := cmp.Diff([]bool{true, true, true}, fs.underCall); diff != "" {
		t.Errorf("syncs under Commit (-want +got):\n%s", diff)
	}
}

// TestCommitsQueueBehindAnInlineWrite holds a commit written inline in its
// sync: the commits arriving meanwhile queue for the committer, which
// writes them as one group once the first is durable, after it. The
// commit that follows within a sync's time of that group goes to the
// committer too; one after a single commit's group is written inline.
// The clock advances a millisecond per reading: every write and sync
// takes one, and the commit after the group comes within it.
func TestCommitsQueueBehindAnInlineWrite(t *testing.T) {
	fs := &gateFS{entered: make(chan struct{}), release: make(chan struct{})}
	var ticks atomic.Int64
	clock := func() time.Time { return time.Unix(0, ticks.Add(int64(time.Millisecond))) }
	s := open(t, t.TempDir(), Options{FS: fs, Clock: clock})
	fs.armed.Store(true)
	ctx := context.Background()
	revs := make([]uint64, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	commit := func(i int) {
		defer wg.Done()
		res, err := s.Commit(ctx, batch(fmt.Sprint(i)))
		revs[i], errs[i] = res.First, err
	}
	wg.Add(1)
	go commit(0)
	<-fs.entered // commit 0 syncs, holding writeMu
	wg.Add(3)
	for i := 1; i < 4; i++ {
		go commit(i)
	}
	// The committer takes one and waits for writeMu; two stay queued.
	for s.in.Queued() != 2 {
		runtime.Gosched()
	}
	close(fs.release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	if revs[0] != 1 {
		t.Errorf("the inline commit got revision %d, want 1", revs[0])
	}
	st := s.Stats()
	st.Applies = 0
	if diff := cmp.Diff(Stats{Transactions: 2, Batches: 4, Records: 4, Inline: 1}, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	// Right after a group of several, the next commit goes to the committer
	// (its callers may be about to commit again); after that group of one,
	// the next is written inline again.
	for i := range 2 {
		if _, err := s.Commit(ctx, batch(fmt.Sprint("after", i))); err != nil {
			t.Fatal(err)
		}
		// The committer answers before it lets go of writeMu: wait for it,
		// as a commit finding it still held would queue.
		s.writeMu.Lock()
		//lint:ignore SA2001 an empty critical section: waiting for the committer is the point
		s.writeMu.Unlock()
	}
	st = s.Stats()
	st.Applies = 0
	if diff := cmp.Diff(Stats{Transactions: 4, Batches: 6, Records: 6, Inline: 2}, st); diff != "" {
		t.Errorf("Stats after two more commits (-want +got):\n%s", diff)
	}
}

// TestCloseWaitsForAnInlineWrite closes the store while a commit written
// inline is in its sync: Close waits for it, the commit succeeds, and the
// record is there after reopening.
func TestCloseWaitsForAnInlineWrite(t *testing.T) {
	dir := t.TempDir()
	fs := &gateFS{entered: make(chan struct{}), release: make(chan struct{})}
	s, err := Open(context.Background(), dir, Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	fs.armed.Store(true)
	committed := make(chan error, 1)
	go func() {
		_, err := s.Commit(context.Background(), batch("inline"))
		committed <- err
	}()
	<-fs.entered
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	close(fs.release)
	if err := <-committed; err != nil {
		t.Fatalf("the inline commit: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	s2 := open(t, dir, Options{})
	if diff := cmp.Diff([]rec{{1, "inline"}}, readAll(t, s2, 1)); diff != "" {
		t.Errorf("after reopening (-want +got):\n%s", diff)
	}
	if st := s.Stats(); st.Inline != 1 {
		t.Errorf("Stats().Inline = %d, want 1 (the commit went through the committer)", st.Inline)
	}
}
