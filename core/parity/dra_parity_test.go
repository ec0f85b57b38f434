package parity_test

import (
	"path/filepath"
	"testing"
)

// TestParityDRA compares Berth's simulation with the real kube-scheduler's
// DynamicResources plugin on the DRA corpus: every line identical (claims
// and their devices, per-node reasons, firstAvailable scores,
// deallocations, binding errors).
func TestParityDRA(t *testing.T) {
	checkCorpus(t, filepath.Join("testdata", "dra", "clusters"), filepath.Join("testdata", "dra", "golden"))
}
