package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/logstore"
)

func TestConcurrentCommits(t *testing.T) {
	const workers, perWorker = 32, 40
	for _, opts := range []Options{{}, {MaxBatch: 3}, {MaxDelay: -1}, {TailSize: -1}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			s := open(t, t.TempDir(), opts)
			type commitOf struct {
				res      store.CommitResult
				payloads []string
			}
			results := make([][]commitOf, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range perWorker {
						var b store.Batch
						var payloads []string
						for j := range 1 + (w+i)%3 {
							p := fmt.Sprintf("w%d-%d-%d", w, i, j)
							b.Append([]byte(p))
							payloads = append(payloads, p)
						}
						b.Put(store.UserMeta, fmt.Appendf(nil, "w%d", w), fmt.Appendf(nil, "%d", i))
						res, err := s.Commit(context.Background(), &b)
						if err != nil {
							t.Errorf("worker %d commit %d: %v", w, i, err)
							return
						}
						results[w] = append(results[w], commitOf{res, payloads})
					}
				})
			}
			wg.Wait()

			all := readAll(t, s, 1)
			seen := make(map[uint64]bool)
			total := 0
			for w, commits := range results {
				var prev uint64
				for _, c := range commits {
					if c.res.First <= prev {
						t.Errorf("worker %d: revision %d after %d: one caller's commits out of order", w, c.res.First, prev)
					}
					prev = c.res.Last
					for i, p := range c.payloads {
						rev := c.res.Revision(i)
						if seen[rev] {
							t.Fatalf("revision %d given twice", rev)
						}
						seen[rev] = true
						total++
						if rev == 0 || rev > uint64(len(all)) || all[rev-1].Payload != p {
							t.Fatalf("worker %d: revision %d should hold %q", w, rev, p)
						}
					}
					if c.res.Last != c.res.Revision(len(c.payloads)-1) {
						t.Errorf("result %+v does not span %d records", c.res, len(c.payloads))
					}
				}
			}
			if first, last := s.Revisions(); first != 1 || last != uint64(total) || len(all) != total {
				t.Errorf("Revisions() = %d, %d with %d records read, want 1, %d", first, last, len(all), total)
			}
			for i, r := range all {
				if r.Rev != uint64(i+1) {
					t.Fatalf("record %d has revision %d: revisions not consecutive", i, r.Rev)
				}
			}
			meta := kvs(t, s, store.UserMeta)
			for w := range workers {
				if got, want := meta[fmt.Sprint("w", w)], fmt.Sprint(perWorker-1); got != want {
					t.Errorf("meta w%d = %q, want %q", w, got, want)
				}
			}
			st := s.Stats()
			if st.Batches != workers*perWorker || st.Records != uint64(total) || st.Transactions == 0 || st.Transactions > st.Batches {
				t.Errorf("Stats() = %+v, want %d batches and %d records", st, workers*perWorker, total)
			}
			t.Logf("%d batches in %d transactions", st.Batches, st.Transactions)
		})
	}
}

// TestGroupCommit holds the committer in the first group's sync so that
// requests pile up behind it, then checks they go out in one group.
func TestGroupCommit(t *testing.T) {
	for _, delay := range []time.Duration{-1, 0} {
		t.Run(fmt.Sprint("MaxDelay=", delay), func(t *testing.T) {
			fs := &gateFS{entered: make(chan struct{}), release: make(chan struct{})}
			s := open(t, t.TempDir(), Options{MaxDelay: delay, FS: fs})
			fs.armed.Store(true)
			first := newRequest(context.Background(), batch("first"))
			handOver(t, s, first)
			<-fs.entered // the committer syncs the first group, alone
			var rest []*request
			for i := range 10 {
				r := newRequest(context.Background(), batch(fmt.Sprint("r", i)))
				handOver(t, s, r)
				rest = append(rest, r)
			}
			close(fs.release)
			var got []uint64
			for _, r := range append([]*request{first}, rest...) {
				res, err := r.Outcome()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, res.First)
			}
			if diff := cmp.Diff(seq(1, 11), got); diff != "" {
				t.Errorf("revisions in queue order (-want +got):\n%s", diff)
			}
			// The first group alone, then the ten queued behind it in one.
			st := s.Stats()
			if st.Batches != 11 || st.Records != 11 || st.Transactions != 2 {
				t.Errorf("Stats() = %+v, want 11 batches and records in 2 transactions", st)
			}
		})
	}
}

// gateFS is the operating system's files, except that once armed the first
// sync of the write-ahead file says it was entered and waits for release.
type gateFS struct {
	OSFS
	armed   atomic.Bool
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func (fs *gateFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil || filepath.Base(name) != walFileName {
		return f, err
	}
	return gatedFile{File: f, fs: fs}, nil
}

type gatedFile struct {
	File
	fs *gateFS
}

func (f gatedFile) Datasync() error {
	if f.fs.armed.Load() {
		f.fs.once.Do(func() {
			close(f.fs.entered)
			<-f.fs.release
		})
	}
	return f.File.Datasync()
}

// TestIdleCommitDoesNotWait commits one batch at a time with an hour of
// MaxDelay: an idle committer must write at once.
func TestIdleCommitDoesNotWait(t *testing.T) {
	s := open(t, t.TempDir(), Options{MaxDelay: time1h})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 5 {
		if _, err := s.Commit(ctx, batch(fmt.Sprint(i))); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	st := s.Stats()
	st.Applies = 0 // the applier's pace is its own
	// Each found the committer idle and wrote its group itself.
	if diff := cmp.Diff(Stats{Transactions: 5, Batches: 5, Records: 5, Inline: 5}, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestGather(t *testing.T) {
	tests := []struct {
		name     string
		maxBatch int
		delay    time.Duration
		idle     bool
		expect   int
		queued   int // already in the channel
		arriving int // sent while gather runs
		lastSync time.Duration
		want     int
	}{
		{name: "idle takes what is queued and goes", maxBatch: 8, delay: time1h, idle: true, expect: 5, queued: 2, want: 3},
		{name: "busy with enough queued goes", maxBatch: 8, delay: time1h, expect: 3, queued: 4, want: 5},
		{name: "busy waits for the expected group", maxBatch: 8, delay: time1h, expect: 4, arriving: 3, want: 4},
		{name: "never beyond MaxBatch", maxBatch: 4, delay: time1h, expect: 10, queued: 6, want: 4},
		{name: "waits at most MaxDelay", maxBatch: 8, delay: time.Microsecond, expect: 5, want: 1},
		{name: "no delay never waits", maxBatch: 8, delay: 0, expect: 5, want: 1},
		{name: "waits at most the last sync", maxBatch: 8, delay: time1h, lastSync: time.Microsecond, expect: 5, want: 1},
		{name: "a slow sync does not lengthen MaxDelay", maxBatch: 8, delay: time.Microsecond, lastSync: time1h, expect: 5, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Store{opts: Options{MaxBatch: tt.maxBatch, MaxDelay: tt.delay}, in: logstore.NewIntake[*request]("bboltstore", 16), lastSync: tt.lastSync}
			for range tt.queued {
				handOver(t, s, &request{})
			}
			go func() {
				for range tt.arriving {
					handOver(t, s, &request{})
				}
			}()
			timer := time.NewTimer(time1h)
			timer.Stop()
			got := s.gather([]*request{{}}, tt.idle, tt.expect, timer)
			if len(got) != tt.want {
				t.Errorf("gathered %d, want %d", len(got), tt.want)
			}
		})
	}
}

func TestGatherStops(t *testing.T) {
	s := &Store{opts: Options{MaxBatch: 8, MaxDelay: time1h}, in: logstore.NewIntake[*request]("bboltstore", 8)}
	s.in.Close()
	timer := time.NewTimer(time1h)
	timer.Stop()
	if got := s.gather([]*request{{}}, false, 5, timer); len(got) != 1 {
		t.Errorf("gathered %d after stop, want 1", len(got))
	}
}

func TestCloseWritesAcceptedCommits(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	const n = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	var committed []uint64
	for i := range n {
		wg.Go(func() {
			res, err := s.Commit(context.Background(), batch(fmt.Sprint(i)))
			switch {
			case err == nil:
				mu.Lock()
				committed = append(committed, res.First)
				mu.Unlock()
			case !errors.Is(err, store.ErrClosed):
				t.Errorf("Commit = %v, want success or ErrClosed", err)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	s = open(t, dir, Options{})
	if _, last := s.Revisions(); last != uint64(len(committed)) {
		t.Errorf("%d commits succeeded but the log ends at %d", len(committed), last)
	}
}

func TestWait(t *testing.T) {
	ctx := context.Background()
	t.Run("already past", func(t *testing.T) {
		s := open(t, t.TempDir(), Options{})
		commit(t, s, batch("a", "b"))
		for _, after := range []uint64{0, 1} {
			if err := s.Wait(ctx, after); err != nil {
				t.Errorf("Wait(%d) = %v", after, err)
			}
		}
	})
	t.Run("wakes on commit", func(t *testing.T) {
		s := open(t, t.TempDir(), Options{})
		commit(t, s, batch("a"))
		done := make(chan uint64)
		for range 3 {
			go func() {
				if err := s.Wait(ctx, 1); err != nil {
					t.Error(err)
				}
				_, last := s.Revisions()
				done <- last
			}()
		}
		commit(t, s, batch("b"))
		for range 3 {
			if last := <-done; last != 2 {
				t.Errorf("Wait returned with last = %d, want 2", last)
			}
		}
	})
	t.Run("ends with its context", func(t *testing.T) {
		s := open(t, t.TempDir(), Options{})
		ctx, cancel := context.WithCancel(ctx)
		errc := make(chan error)
		go func() { errc <- s.Wait(ctx, 0) }()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want context.Canceled", err)
		}
	})
	t.Run("ends on close", func(t *testing.T) {
		s := open(t, t.TempDir(), Options{})
		errc := make(chan error)
		go func() { errc <- s.Wait(ctx, 0) }()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; !errors.Is(err, store.ErrClosed) {
			t.Errorf("Wait = %v, want ErrClosed", err)
		}
	})
}

// TestNewRequestCopies checks that a request owns its bytes: small and
// large batches, empty values kept non-nil, and copies that do not run
// into each other.
func TestNewRequestCopies(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		var b store.Batch
		for i := range n {
			b.Append([]byte(fmt.Sprint("payload-", i)))
			b.Put(store.Assumed, []byte(fmt.Sprint("key-", i)), []byte(fmt.Sprint("value-", i)))
			b.Put(store.UserMeta, []byte(fmt.Sprint("empty-", i)), nil)
			b.Delete(store.Nominations, []byte(fmt.Sprint("gone-", i)))
		}
		r := newRequest(context.Background(), &b)
		for _, p := range b.Records {
			clear(p)
		}
		for _, op := range b.Ops {
			clear(op.Key)
			clear(op.Value)
		}
		if len(r.values) != n || len(r.ops) != 3*n {
			t.Fatalf("n=%d: %d values and %d ops", n, len(r.values), len(r.ops))
		}
		for i, v := range r.values {
			if got, want := string(recordPayload(v)), fmt.Sprint("payload-", i); got != want {
				t.Errorf("n=%d: record %d = %q, want %q", n, i, got, want)
			}
		}
		for i := range n {
			put, empty, del := r.ops[3*i], r.ops[3*i+1], r.ops[3*i+2]
			if string(put.Key) != fmt.Sprint("key-", i) || string(put.Value) != fmt.Sprint("value-", i) {
				t.Errorf("n=%d: put %d = %q=%q", n, i, put.Key, put.Value)
			}
			if string(empty.Key) != fmt.Sprint("empty-", i) || empty.Value == nil || len(empty.Value) != 0 {
				t.Errorf("n=%d: empty put %d = %q=%q (nil %v)", n, i, empty.Key, empty.Value, empty.Value == nil)
			}
			if string(del.Key) != fmt.Sprint("gone-", i) || !del.Delete {
				t.Errorf("n=%d: delete %d = %+v", n, i, del)
			}
		}
		// An append to one copy must not overwrite the next.
		_ = append(r.ops[0].Key, "XXXXXXXXXXXXXXXX"...)
		if string(r.ops[0].Value) != "value-0" {
			t.Errorf("n=%d: appending to a key overwrote its value: %q", n, r.ops[0].Value)
		}
	}
}

// handOver queues r for the committer as Commit does.
func handOver(t testing.TB, s *Store, r *request) {
	if err := s.in.HandOver(context.Background(), r); err != nil {
		t.Error(err)
	}
}
