package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestMemProfile checks that --memprofile leaves a heap profile after the
// run: pprof's format, a gzipped protocol buffer.
func TestMemProfile(t *testing.T) {
	addr := startFake(t, true)
	path := filepath.Join(t.TempDir(), "heap.pprof")
	var out, errOut bytes.Buffer
	cmd := NewCommand(Options{})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"--workload", "basic", "--nodes", "20", "--server", addr, "-o", "json", "--memprofile", path})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("bench: %v\n%s", err, errOut.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 100 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("%s is not a heap profile (%d bytes, starting %x)", path, len(data), data[:min(len(data), 4)])
	}
}
