package bboltstore

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
)

// crashDirEnv makes TestCrashChild run: it is set only for the subprocess
// TestCrashRecovery starts.
const crashDirEnv = "BERTH_STORE_CRASH_DIR"

// crashWALEnv sets the subprocess's WALSize: a small file laps many times
// before the kill.
const crashWALEnv = "BERTH_STORE_CRASH_WAL"

const crashWorkers = 4

// TestCrashChild is the subprocess of TestCrashRecovery: workers commit in a
// loop and print "ok <revision> <payload>" for each record once its Commit
// returned, until the parent kills the process.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("runs only as the subprocess of TestCrashRecovery")
	}
	walSize, _ := strconv.ParseInt(os.Getenv(crashWALEnv), 10, 64)
	s, err := Open(context.Background(), dir, Options{MaxBatch: 16, WALSize: walSize})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	var out sync.Mutex
	for w := range crashWorkers {
		go func() {
			for i := 0; ; i++ {
				// Each batch appends two records and records, per worker,
				// the latest payload and count: the keyspaces must match
				// the log prefix that survives.
				a, b := fmt.Sprintf("w%d-%d-a", w, i), fmt.Sprintf("w%d-%d-b", w, i)
				var batch store.Batch
				batch.Append([]byte(a))
				batch.Append([]byte(b))
				batch.Put(store.Assumed, fmt.Appendf(nil, "w%d", w), []byte(b))
				batch.Put(store.UserMeta, fmt.Appendf(nil, "w%d", w), fmt.Appendf(nil, "%d", i+1))
				res, err := s.Commit(context.Background(), &batch)
				if err != nil {
					fmt.Println("commit:", err)
					os.Exit(2)
				}
				out.Lock()
				fmt.Printf("ok %d %s\nok %d %s\n", res.First, a, res.Last, b)
				out.Unlock()
			}
		}()
	}
	select {}
}

// TestCrashRecovery kills a committing process with SIGKILL and checks that
// the reopened store holds a consistent prefix containing every record the
// process saw committed.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	for _, tt := range []struct {
		name    string
		walSize int64
	}{
		{"default write-ahead file", 0},
		{"write-ahead file lapping", 16 << 10},
	} {
		t.Run(tt.name, func(t *testing.T) { crashAndRecover(t, tt.walSize) })
	}
}

func crashAndRecover(t *testing.T, walSize int64) {
	const reportsBeforeKill = 3000
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, fmt.Sprint(crashWALEnv, "=", walSize))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reported := map[uint64]string{}
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() {
		var rev uint64
		var payload string
		if _, err := fmt.Sscanf(sc.Text(), "ok %d %s", &rev, &payload); err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		if old, dup := reported[rev]; dup {
			t.Fatalf("revision %d reported for %q and %q", rev, old, payload)
		}
		reported[rev] = payload
		if len(reported) >= reportsBeforeKill && !killed {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			killed = true // lines already written are still read: they count too
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error is expected
	if !killed {
		t.Fatalf("child ended after %d records without being killed", len(reported))
	}

	s := open(t, dir, Options{})
	first, last := s.Revisions()
	all := readAll(t, s, 1)
	if first != 1 || uint64(len(all)) != last {
		t.Fatalf("after restart Revisions() = %d, %d with %d records", first, last, len(all))
	}
	for rev, payload := range reported {
		if rev > last || all[rev-1].Payload != payload {
			t.Fatalf("reported revision %d (%q) lost after kill -9 (log ends at %d)", rev, payload, last)
		}
	}
	// Batches are atomic: records come in a/b pairs, and per worker the
	// keyspaces name its newest surviving batch.
	newest := map[string]string{}
	count := map[string]int{}
	for i, r := range all {
		var w, n int
		var half string
		if _, err := fmt.Sscanf(strings.ReplaceAll(r.Payload, "-", " "), "w%d %d %s", &w, &n, &half); err != nil {
			t.Fatalf("record %d: %q: %v", r.Rev, r.Payload, err)
		}
		if half == "a" && (i+1 >= len(all) || all[i+1].Payload != fmt.Sprintf("w%d-%d-b", w, n)) {
			t.Fatalf("revision %d (%q) is not followed by its pair: torn batch", r.Rev, r.Payload)
		}
		key := fmt.Sprint("w", w)
		if half == "b" {
			newest[key] = r.Payload
			count[key] = n + 1
		}
	}
	if got := kvs(t, s, store.Assumed); len(got) != len(newest) {
		t.Errorf("assumed holds %d workers, the log %d", len(got), len(newest))
	}
	for key, want := range newest {
		got, ok, err := s.Get(store.Assumed, []byte(key))
		if err != nil || !ok || string(got) != want {
			t.Errorf("assumed %s = %q, %v, %v; want %q, the newest record of %s", key, got, ok, err, want, key)
		}
		got, ok, err = s.Get(store.UserMeta, []byte(key))
		if err != nil || !ok || string(got) != fmt.Sprint(count[key]) {
			t.Errorf("meta %s = %q, %v, %v; want %d", key, got, ok, err, count[key])
		}
	}
	if res := commit(t, s, batch("after")); res.First != last+1 {
		t.Errorf("first commit after restart got revision %d, want %d", res.First, last+1)
	}
	t.Logf("killed after %d reported records; %d survived", len(reported), last)
}
