package queue

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Nominator remembers which pending pods preemption nominated to which
// node, so that lower-priority pods leave the room free. It implements
// framework.PodNominator and is safe for concurrent use.
//
// Its lock is the innermost: the queue calls it holding the queue's lock,
// and it never calls the queue.
type Nominator struct {
	mu sync.RWMutex
	// byNode lists the pods nominated to each node, in nomination order.
	byNode map[string][]*framework.PodInfo
	// nodeOf maps a pod UID to its nominated node.
	nodeOf map[string]string
	// restored holds nominations reloaded by Restore whose pods the
	// nominator has not seen yet, by pod UID.
	restored map[string]Nomination
	// lookup, when set, tells whether a pod still exists unbound.
	lookup func(uid string) (*model.Pod, bool)
	// nominated is len(nodeOf), readable without the lock: filtering asks
	// every node for its nominated pods, and there usually are none.
	nominated atomic.Int64
}

// Nomination is one pod's reservation of a node, as persisted.
type Nomination struct {
	PodUID   string
	PodKey   string // namespace/name
	NodeName string
}

var _ framework.PodNominator = (*Nominator)(nil)

// NewNominator returns an empty nominator. lookup (may be nil) returns the
// current version of a pod; a pod it does not know or reports bound is not
// nominated. It is called without the nominator's lock held.
func NewNominator(lookup func(uid string) (*model.Pod, bool)) *Nominator {
	return &Nominator{
		byNode:   make(map[string][]*framework.PodInfo),
		nodeOf:   make(map[string]string),
		restored: make(map[string]Nomination),
		lookup:   lookup,
	}
}

// AddNominatedPod records pi's nomination: to info's node in ModeOverride
// (an empty node clears it), else to the pod's own NominatedNodeName or a
// nomination restored for it. Any previous nomination of the pod is
// replaced.
func (n *Nominator) AddNominatedPod(pi *framework.PodInfo, info *framework.NominatingInfo) {
	alive := n.alive(pi.Pod)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.addLocked(pi, info, alive)
}

// alive reports whether the pod may hold a nomination: not bound, and
// known unbound to the lookup when there is one.
func (n *Nominator) alive(pod *model.Pod) bool {
	if pod.NodeName != "" {
		return false
	}
	if n.lookup == nil {
		return true
	}
	cur, ok := n.lookup(pod.UID)
	return ok && cur.NodeName == ""
}

func (n *Nominator) addLocked(pi *framework.PodInfo, info *framework.NominatingInfo, alive bool) {
	uid := pi.Pod.UID
	n.deleteLocked(uid)
	var node string
	if info != nil && info.Mode == framework.ModeOverride {
		node = info.NominatedNodeName
	} else {
		node = pi.Pod.NominatedNodeName
		if node == "" {
			node = n.restored[uid].NodeName
		}
	}
	delete(n.restored, uid)
	if node == "" || !alive {
		return
	}
	n.nodeOf[uid] = node
	n.nominated.Store(int64(len(n.nodeOf)))
	// Copy on write: NominatedPodsForNode hands the slice out.
	pods := n.byNode[node]
	n.byNode[node] = append(pods[:len(pods):len(pods)], pi)
}

// DeleteNominatedPodIfExists forgets the pod's nomination.
func (n *Nominator) DeleteNominatedPodIfExists(pod *model.Pod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.deleteLocked(pod.UID)
	delete(n.restored, pod.UID)
}

func (n *Nominator) deleteLocked(uid string) {
	node, ok := n.nodeOf[uid]
	if !ok {
		return
	}
	delete(n.nodeOf, uid)
	n.nominated.Store(int64(len(n.nodeOf)))
	pods := n.byNode[node]
	i := slices.IndexFunc(pods, func(pi *framework.PodInfo) bool { return pi.Pod.UID == uid })
	if i >= 0 {
		// Copy on write: NominatedPodsForNode hands the slice out.
		pods = slices.Concat(pods[:i], pods[i+1:])
	}
	if len(pods) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = pods
	}
}

// UpdateNominatedPod replaces the pod's entry with its new version. When
// neither version carries a NominatedNodeName, the node the scheduler
// nominated is kept: the update just has not caught up with it (seed 002).
// Otherwise the new version's own nomination wins.
func (n *Nominator) UpdateNominatedPod(oldPod *model.Pod, newPodInfo *framework.PodInfo) {
	alive := n.alive(newPodInfo.Pod)
	n.mu.Lock()
	defer n.mu.Unlock()
	var info *framework.NominatingInfo
	if oldPod.NominatedNodeName == "" && newPodInfo.Pod.NominatedNodeName == "" {
		if node, ok := n.nodeOf[oldPod.UID]; ok {
			info = &framework.NominatingInfo{NominatedNodeName: node, Mode: framework.ModeOverride}
		}
	}
	n.deleteLocked(oldPod.UID)
	n.addLocked(newPodInfo, info, alive)
}

// NominatedPodsForNode returns the pods nominated to the node, in
// nomination order. The slice is shared and must not be changed: the
// nominator never changes it either (it makes a new one on every change),
// so it stays what it was when returned. Filter passes call this for
// every node they visit.
func (n *Nominator) NominatedPodsForNode(nodeName string) []*framework.PodInfo {
	if n.nominated.Load() == 0 {
		return nil
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.byNode[nodeName]
}

// AnyNominated reports whether any pod is nominated: one atomic load.
func (n *Nominator) AnyNominated() bool { return n.nominated.Load() != 0 }

// NominatedNodeName returns the node the pod is nominated to.
func (n *Nominator) NominatedNodeName(uid string) (string, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if node, ok := n.nodeOf[uid]; ok {
		return node, true
	}
	r, ok := n.restored[uid]
	return r.NodeName, ok
}

// All returns every nomination, restored ones not yet claimed included,
// sorted by node then pod key, for persistence.
func (n *Nominator) All() []Nomination {
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := make([]Nomination, 0, len(n.nodeOf)+len(n.restored))
	for node, pods := range n.byNode {
		for _, pi := range pods {
			out = append(out, Nomination{PodUID: pi.Pod.UID, PodKey: pi.Pod.Key(), NodeName: node})
		}
	}
	for _, r := range n.restored {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Nomination) int {
		return cmp.Or(cmp.Compare(a.NodeName, b.NodeName), cmp.Compare(a.PodKey, b.PodKey), cmp.Compare(a.PodUID, b.PodUID))
	})
	return out
}

// Restore reloads persisted nominations, typically at startup before the
// pods are queued. A restored nomination is claimed when its pod is next
// nominated without a node of its own (the queue does that when the pod is
// added), and dropped when the pod is deleted or nominated elsewhere.
// Pods already nominated keep their current node.
func (n *Nominator) Restore(noms []Nomination) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range noms {
		if r.NodeName == "" || r.PodUID == "" {
			continue
		}
		if _, ok := n.nodeOf[r.PodUID]; ok {
			continue
		}
		n.restored[r.PodUID] = r
	}
}
