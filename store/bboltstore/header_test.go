package bboltstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthsched/berth/store"
)

// TestCorruptDataFile damages berth.db as a filesystem or an operator
// might: Open fails with a "corrupt data file" error wrapping
// store.ErrCorrupt, never with a fault (a truncated file made bbolt SIGBUS).
func TestCorruptDataFile(t *testing.T) {
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	tests := []struct {
		name    string
		damage  func(t *testing.T, path string)
		wantMsg string
	}{
		{"truncated to 12K", truncateTo(12 << 10), "the file was truncated"},
		{"truncated to one page", truncateTo(4 << 10), "the file was truncated"},
		{"short", truncateTo(50), "too short for a bbolt header"},
		{"zero length beside a write-ahead file", truncateTo(0), "empty, beside a write-ahead file"},
		{"random garbage", writeFile(garbage), "no valid bbolt meta page"},
		{"meta pages overwritten", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, off := range []int64{boltPageHeader + 8, 4096 + boltPageHeader + 8} {
				if _, err := f.WriteAt([]byte{0xff, 0xff}, off); err != nil {
					t.Fatal(err)
				}
			}
		}, "no valid bbolt meta page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, Options{})
			for range 40 {
				commit(t, s, batch(strings.Repeat("x", 2000)))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, filepath.Join(dir, fileName))
			_, err := Open(context.Background(), dir, Options{})
			if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "corrupt data file") ||
				!strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Open = %v, want ErrCorrupt: corrupt data file ... %s", err, tt.wantMsg)
			}
		})
	}
}

// An empty berth.db without a write-ahead file is what a crash leaves
// while bbolt creates it: nothing was ever committed, and it opens as new.
func TestEmptyDataFileWithoutWriteAheadFileIsNew(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, fileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, Options{})
	wantLogThenNext(t, s, []rec{}, "first")
}

func TestCheckHeader(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	commit(t, s, batch("a"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(filepath.Join(dir, fileName))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(head))
	if err := checkHeader(head, size, os.Getpagesize()); err != nil {
		t.Fatalf("checkHeader(a good file) = %v", err)
	}
	// One damaged meta page is what bbolt recovers from: the other serves.
	for _, off := range []int{boltPageHeader, 4096 + boltPageHeader} {
		bad := append([]byte(nil), head...)
		bad[off] ^= 1
		if err := checkHeader(bad, size, 4096); err != nil {
			t.Errorf("meta at %d damaged: checkHeader = %v, want nil (the other meta page is valid)", off, err)
		}
	}
	if err := checkHeader(head[:8192], 8192, 4096); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("checkHeader(two pages of a larger file) = %v, want ErrCorrupt", err)
	}
}

func truncateTo(size int64) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(data []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGuardTurnsAPanicIntoErrCorrupt(t *testing.T) {
	err := guard("berth.db", func() error { panic("invalid page type: 0: 10") })
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "invalid page type") {
		t.Errorf("guard = %v, want ErrCorrupt with the panic's message", err)
	}
}
