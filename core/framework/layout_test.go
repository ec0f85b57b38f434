package framework

import (
	"testing"
	"unsafe"
)

// TestNodeInfoLayout keeps what the filter pass reads of every node it
// visits (the NodeInfo's header and its first memo entry's verdict and
// scores) within the first two cache lines of a NodeInfo, and a NodeInfo
// within Go's 896-byte allocation class: there are two per node (the
// cache's and the snapshot's), 100,000 of each at 100,000 nodes.
func TestNodeInfoLayout(t *testing.T) {
	var ni NodeInfo
	e := &ni.memo.entries[0]
	base := uintptr(unsafe.Pointer(&ni))
	scoresEnd := uintptr(unsafe.Pointer(&e.Scores[5])) + unsafe.Sizeof(e.Scores[5]) - base
	checks := []struct {
		name      string
		got, most uintptr
	}{
		{"NodeInfo size", unsafe.Sizeof(ni), 896},
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
