package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// berthctl simulate allocates devices offline (kubeoracle's DRA example,
// core/simulate's golden trace) and -o text shows claims and
// deallocations.
func TestSimulateDevicesOffline(t *testing.T) {
	dir := filepath.Join("..", "..", "core", "simulate", "testdata", "dra")
	want, err := os.ReadFile(filepath.Join(dir, "dra.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := berthctl(t, nil, "", "simulate", "-f", filepath.Join(dir, "dra.yaml"))
	if r.code != exitOK || r.stdout != string(want) {
		t.Errorf("exit %d (stderr %q); -o json:\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, string(want))
	}
	text := berthctl(t, nil, "", "simulate", "-o", "text", "-f", filepath.Join(dir, "dra-deallocation.yaml"))
	for _, line := range []string{
		"default/p-stale  deallocated  -     deallocated default/stale; 0/2 nodes are available",
		"default/p-stale  bound        n2    1 feasible; claim gpu=default/stale: gpu.example.com/n2/gpu-0",
	} {
		if !strings.Contains(text.stdout, line) {
			t.Errorf("-o text lacks %q:\n%s", line, text.stdout)
		}
	}
}
