package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/store/bboltstore"
)

// newDataDir makes a data directory as a stopped berthd leaves it.
func newDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := daemon.Open(t.Context(), daemon.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A truncated data file made bbolt fault (SIGBUS); berthd now exits with
// exitCorrupt and says why.
func TestRunCorruptDataFile(t *testing.T) {
	dir := newDataDir(t)
	if err := os.Truncate(filepath.Join(dir, "berth.db"), 8<<10); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--metrics-listen", ""}, io.Discard, &bytes.Buffer{})
	if got := exitCode(err); got != exitCorrupt || !strings.Contains(err.Error(), "corrupt data file") {
		t.Errorf("run on a truncated data file = %v (exit %d), want exit %d and a corrupt data file", err, got, exitCorrupt)
	}
}

// A write-ahead file that ends before its high-water mark stops berthd
// with exitLogTruncated, unless --accept-truncated-log.
func TestRunTruncatedLog(t *testing.T) {
	dir := newDataDir(t)
	db, err := bolt.Open(filepath.Join(dir, "berth.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// The store's meta keys (bboltstore/schema.go): a mark past the file.
		meta := tx.Bucket([]byte("meta"))
		if err := meta.Put([]byte("wal-acked"), binary.BigEndian.AppendUint64(nil, 9)); err != nil {
			return err
		}
		return meta.Put([]byte("wal-acked-next-revision"), binary.BigEndian.AppendUint64(nil, 346))
	})
	if cerr := db.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	args := []string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--metrics-listen", ""}
	err = run(t.Context(), args, io.Discard, &bytes.Buffer{})
	if got := exitCode(err); got != exitLogTruncated || !strings.Contains(err.Error(), "revisions up to 345 were acknowledged") {
		t.Fatalf("run = %v (exit %d), want exit %d naming the lost revisions", err, got, exitLogTruncated)
	}
	// Accepted, berthd opens the store and serves; it stops when asked.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logged := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append(args, "--accept-truncated-log"), io.Discard, logged) }()
	for !strings.Contains(logged.String(), "serving gRPC") {
		select {
		case err := <-done:
			t.Fatalf("run --accept-truncated-log = %v before serving, want it to serve; log:\n%s", err, logged.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run --accept-truncated-log stopped with %v, want nil", err)
	}
}

// lockedBuffer is a log destination the test reads while berthd writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestVerifyCommand(t *testing.T) {
	clean := newDataDir(t)
	truncated := newDataDir(t)
	if err := os.Truncate(filepath.Join(truncated, "berth.db"), 8<<10); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"clean", []string{"--data-dir", clean}, exitOK, "result:          ok"},
		{"clean: the write-ahead file", []string{"--data-dir", clean}, exitOK, "berth.wal, 4194304 bytes; the data file holds its groups up to"},
		{"clean: nothing to replay", []string{"--data-dir", clean}, exitOK, "nothing to replay"},
		{"clean: nothing to repair", []string{"--data-dir", clean, "--repair"}, exitOK, "result:          ok"},
		{"truncated data file", []string{"--data-dir", truncated}, exitCorrupt, "the file was truncated"},
		{"no data file", []string{"--data-dir", t.TempDir()}, exitFailure, "no such file"},
		{"stray argument", []string{"--data-dir", clean, "now"}, exitFailure, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := runVerify(t.Context(), tt.args, &out, &errOut); got != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tt.wantCode, out.String(), errOut.String())
			}
			if all := out.String() + errOut.String(); !strings.Contains(all, tt.wantOut) {
				t.Errorf("output lacks %q:\n%s", tt.wantOut, all)
			}
		})
	}
}

// TestVerifyRepair: a damaged keyspace value is reported, and --repair
// drops it after keeping a copy, so that a second check is clean.
func TestVerifyRepair(t *testing.T) {
	dir := newDataDir(t)
	db, err := bolt.Open(filepath.Join(dir, "berth.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// A value without a valid checksum (bboltstore/schema.go's layout).
		return tx.Bucket([]byte("space/nominations")).Put([]byte("uid-1"), []byte("node-a\x00\x00\x00\x00"))
	})
	if cerr := db.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	var out, errOut bytes.Buffer
	if got := runVerify(t.Context(), []string{"--data-dir", dir}, &out, &errOut); got != exitCorrupt ||
		!strings.Contains(out.String(), `keyspace nominations: the value of "uid-1" fails its checksum`) {
		t.Fatalf("verify = exit %d, want %d naming the value:\n%s%s", got, exitCorrupt, out.String(), errOut.String())
	}
	out.Reset()
	if got := runVerify(t.Context(), []string{"--data-dir", dir, "--repair"}, &out, &errOut); got != exitOK {
		t.Fatalf("verify --repair = exit %d, want %d:\n%s%s", got, exitOK, out.String(), errOut.String())
	}
	for _, want := range []string{"kept a copy of the data file and the write-ahead file in " + filepath.Join(dir, "backup-"),
		"dropped 1 damaged keyspace values", `  - nominations "uid-1"`, "after repair:", "result:          ok"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verify --repair output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestPrintReportWording(t *testing.T) {
	tests := []struct {
		name string
		rep  bboltstore.VerifyReport
		want []string
	}{
		{"empty store", bboltstore.VerifyReport{Path: "d/berth.db", SchemaVersion: 3, First: 1}, []string{"records:         none yet\n", "result:          ok\n"}},
		{"one problem", bboltstore.VerifyReport{Path: "d/berth.db", SchemaVersion: 3, Records: 2, First: 1, Last: 2, Problems: []string{"p"}},
			[]string{"records:         2, revisions 1-2\n", "result:          1 problem\n", "  - p\n"}},
		{"two problems", bboltstore.VerifyReport{Path: "d/berth.db", SchemaVersion: 3, Records: 2, First: 1, Last: 2, Problems: []string{"p", "q"}},
			[]string{"result:          2 problems\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			printReport(&out, &tt.rep)
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
