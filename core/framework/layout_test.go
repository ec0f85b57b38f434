package framework

import (
	"testing"
	"unsafe"
)

// TestNodeInfoLayout keeps what the filter pass reads of every node it
// visits (the NodeInfo's header and its first memo entry's verdict and
// scores) within the first two cache lines of a NodeInfo (its allocation
// class, 1024 bytes, is 64-byte aligned). A NodeInfo trimmed into the
// 896-byte class measured slower at 100,000 nodes (docs/performance.md,
// "Cost growth"), so the size stays above it.
func TestNodeInfoLayout(t *testing.T) {
	var ni NodeInfo
	e := &ni.memo.entries[0]
	base := uintptr(unsafe.Pointer(&ni))
	scoresEnd := uintptr(unsafe.Pointer(&e.Scores[5])) + unsafe.Sizeof(e.Scores[5]) - base
	checks := []struct {
		name      string
		got, most uintptr
	}{
		{"NodeInfo size", unsafe.Sizeof(ni), 1024},
		{"end of node, name and generation", uintptr(unsafe.Pointer(&ni.node)) + unsafe.Sizeof(ni.node) - base, 64},
		{"end of the first entry's filter verdict", uintptr(unsafe.Pointer(&e.FilterStatus)) + unsafe.Sizeof(e.FilterStatus) - base, 128},
		{"end of the first entry's first six scores", scoresEnd, 128},
	}
	for _, c := range checks {
		if c.got > c.most {
			t.Errorf("%s: %d bytes, want at most %d", c.name, c.got, c.most)
		}
	}
}
