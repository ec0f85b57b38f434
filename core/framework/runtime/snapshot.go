package runtime

import (
	"errors"
	"sync/atomic"

	"github.com/berthsched/berth/core/framework"
)

// SnapshotRef is a NodeInfoLister that delegates to the snapshot set last.
// A scheduler that builds a fresh snapshot per cycle passes one SnapshotRef
// to every framework and calls Set before each cycle. Before the first Set
// it lists no nodes.
type SnapshotRef struct {
	cur atomic.Pointer[listerBox]
}

type listerBox struct{ l framework.NodeInfoLister }

var _ framework.NodeInfoLister = (*SnapshotRef)(nil)

// Set makes l the current snapshot.
func (r *SnapshotRef) Set(l framework.NodeInfoLister) { r.cur.Store(&listerBox{l}) }

// Current returns the current snapshot, nil before the first Set.
func (r *SnapshotRef) Current() framework.NodeInfoLister {
	if b := r.cur.Load(); b != nil {
		return b.l
	}
	return nil
}

// List implements framework.NodeInfoLister.
func (r *SnapshotRef) List() []*framework.NodeInfo {
	if l := r.Current(); l != nil {
		return l.List()
	}
	return nil
}

// HavePodsWithAffinityList implements framework.NodeInfoLister.
func (r *SnapshotRef) HavePodsWithAffinityList() []*framework.NodeInfo {
	if l := r.Current(); l != nil {
		return l.HavePodsWithAffinityList()
	}
	return nil
}

// HavePodsWithRequiredAntiAffinityList implements framework.NodeInfoLister.
func (r *SnapshotRef) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	if l := r.Current(); l != nil {
		return l.HavePodsWithRequiredAntiAffinityList()
	}
	return nil
}

// ErrNoSnapshot is returned by SnapshotRef.Get before the first Set.
var ErrNoSnapshot = errors.New("no snapshot set")

// Get implements framework.NodeInfoLister.
func (r *SnapshotRef) Get(nodeName string) (*framework.NodeInfo, error) {
	if l := r.Current(); l != nil {
		return l.Get(nodeName)
	}
	return nil, ErrNoSnapshot
}

// NumNodes implements framework.NodeInfoLister.
func (r *SnapshotRef) NumNodes() int {
	if l := r.Current(); l != nil {
		return l.NumNodes()
	}
	return 0
}
