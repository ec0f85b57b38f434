package cache

import (
	"errors"
	"fmt"
	"sync"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Errors returned by the cache; match them with errors.Is.
var (
	// ErrPodNotFound: the pod is not in the cache.
	ErrPodNotFound = errors.New("pod not in the scheduler cache")
	// ErrPodExists: the pod is already in the cache (bound or assumed).
	ErrPodExists = errors.New("pod already in the scheduler cache")
	// ErrNotAssumed: the operation applies to assumed pods only.
	ErrNotAssumed = errors.New("pod is not assumed")
	// ErrAssumed: the operation does not apply to an assumed pod.
	ErrAssumed = errors.New("pod is assumed")
	// ErrNotBound: a pod without a node was given where a bound one is needed.
	ErrNotBound = errors.New("pod has no node")
	// ErrNodeNotFound: the node is not in the cache.
	ErrNodeNotFound = errors.New("node not in the scheduler cache")
)

// Cache holds nodes, bound pods and assumed pods. It is safe for concurrent
// use.
type Cache struct {
	mu sync.RWMutex

	nodes map[string]*nodeItem
	// head is the most recently changed NodeInfo; following next goes back
	// in time, so a snapshot stops at the first item it already has.
	head *nodeItem
	tree nodeTree
	// treeVersion changes whenever the node order may have changed (a node
	// added, removed or moved to another zone).
	treeVersion int64
	generation  int64
	pods        map[string]*podState // by UID
	numAssumed  int
	images      imageIndex
}

// nodeItem is a NodeInfo in the recency list.
type nodeItem struct {
	info       *framework.NodeInfo
	prev, next *nodeItem
}

// An assumed pod stays assumed until AddPod confirms it or ForgetPod drops
// it. Unlike kube's cache the binding cycle's end is not recorded: it only
// starts the expiry of assumed pods there, and Berth's never expire, so
// thousands of binding goroutines need not take the cache's lock for it.
type podState struct {
	info    *framework.PodInfo
	assumed bool
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{
		nodes: make(map[string]*nodeItem),
		tree:  newNodeTree(),
		pods:  make(map[string]*podState),
	}
}

// touchLocked stamps the node's NodeInfo with a new generation and moves it
// to the head of the recency list.
func (c *Cache) touchLocked(it *nodeItem) {
	c.generation++
	it.info.Generation = c.generation
	if it == c.head {
		return
	}
	c.unlinkLocked(it)
	it.next = c.head
	if c.head != nil {
		c.head.prev = it
	}
	c.head = it
}

func (c *Cache) unlinkLocked(it *nodeItem) {
	if it.prev != nil {
		it.prev.next = it.next
	}
	if it.next != nil {
		it.next.prev = it.prev
	}
	if c.head == it {
		c.head = it.next
	}
	it.prev, it.next = nil, nil
}

// itemLocked returns the node's item, creating an empty one (no node, no
// pods) if needed.
func (c *Cache) itemLocked(name string) *nodeItem {
	it, ok := c.nodes[name]
	if !ok {
		it = &nodeItem{info: framework.NewNodeInfo(nil)}
		c.nodes[name] = it
	}
	return it
}

// dropIfEmptyLocked forgets a NodeInfo that has neither node nor pods.
func (c *Cache) dropIfEmptyLocked(name string, it *nodeItem) bool {
	if it.info.Node() != nil || len(it.info.Pods) > 0 {
		return false
	}
	c.unlinkLocked(it)
	delete(c.nodes, name)
	return true
}

// AddNode adds a node, or replaces it if known (as UpdateNode).
func (c *Cache) AddNode(node *model.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.itemLocked(node.Name)
	if old := it.info.Node(); old != nil {
		if c.tree.update(old, node) {
			c.treeVersion++
		}
		c.images.update(old, node)
	} else {
		c.tree.add(node)
		c.treeVersion++
		c.images.add(node)
	}
	it.info.SetNode(node)
	c.touchLocked(it)
}

// UpdateNode replaces a node; an unknown node is added.
func (c *Cache) UpdateNode(node *model.Node) { c.AddNode(node) }

// RemoveNode removes a node. Its pods stay (on a NodeInfo without node,
// not listed in snapshots) until they are removed themselves.
func (c *Cache) RemoveNode(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.nodes[name]
	if !ok || it.info.Node() == nil {
		return fmt.Errorf("remove node %s: %w", name, ErrNodeNotFound)
	}
	c.tree.remove(it.info.Node())
	c.treeVersion++
	c.images.remove(it.info.Node())
	it.info.SetNode(nil)
	if !c.dropIfEmptyLocked(name, it) {
		c.touchLocked(it)
	}
	return nil
}

// Node returns the cached node.
func (c *Cache) Node(name string) (*model.Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if it, ok := c.nodes[name]; ok && it.info.Node() != nil {
		return it.info.Node(), true
	}
	return nil, false
}

// NodeInfo returns a copy of the node's NodeInfo, also for a node known only
// through its pods.
func (c *Cache) NodeInfo(name string) (*framework.NodeInfo, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if it, ok := c.nodes[name]; ok {
		return it.info.Clone(), true
	}
	return nil, false
}

// addPodLocked places a pod on its node.
func (c *Cache) addPodLocked(pi *framework.PodInfo, assumed bool) {
	it := c.itemLocked(pi.Pod.NodeName)
	it.info.AddPodInfo(pi)
	c.touchLocked(it)
	c.pods[pi.Pod.UID] = &podState{info: pi, assumed: assumed}
	if assumed {
		c.numAssumed++
	}
}

// removePodLocked takes a cached pod off its node.
func (c *Cache) removePodLocked(ps *podState) error {
	pod := ps.info.Pod
	if it, ok := c.nodes[pod.NodeName]; ok {
		if err := it.info.RemovePod(pod); err != nil {
			return err
		}
		if !c.dropIfEmptyLocked(pod.NodeName, it) {
			c.touchLocked(it)
		}
	}
	delete(c.pods, pod.UID)
	if ps.assumed {
		c.numAssumed--
	}
	return nil
}

// AddPod adds a bound pod. If the pod was assumed, the assumption is
// confirmed: the assumed version is replaced by this one (on the node it
// names, even if the bind went elsewhere).
func (c *Cache) AddPod(pod *model.Pod) error {
	if pod.NodeName == "" {
		return fmt.Errorf("cache add pod %s: %w", pod.Key(), ErrNotBound)
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return fmt.Errorf("cache add pod %s: %w", pod.Key(), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.pods[pod.UID]; ok {
		if !ps.assumed {
			return fmt.Errorf("cache add pod %s: %w", pod.Key(), ErrPodExists)
		}
		if err := c.removePodLocked(ps); err != nil {
			return fmt.Errorf("cache confirm pod %s: %w", pod.Key(), err)
		}
	}
	c.addPodLocked(pi, false)
	return nil
}

// UpdatePod replaces a bound pod with its new version. A new version on
// another node moves the pod.
func (c *Cache) UpdatePod(pod *model.Pod) error {
	if pod.NodeName == "" {
		return fmt.Errorf("cache update pod %s: %w", pod.Key(), ErrNotBound)
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return fmt.Errorf("cache update pod %s: %w", pod.Key(), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[pod.UID]
	switch {
	case !ok:
		return fmt.Errorf("cache update pod %s: %w", pod.Key(), ErrPodNotFound)
	case ps.assumed:
		return fmt.Errorf("cache update pod %s: %w", pod.Key(), ErrAssumed)
	}
	if err := c.removePodLocked(ps); err != nil {
		return fmt.Errorf("cache update pod %s: %w", pod.Key(), err)
	}
	c.addPodLocked(pi, false)
	return nil
}

// UpdateAssumedPod replaces the version of an assumed pod with pod, which
// must be on the same node; the pod stays assumed (the scheduler marks an
// assumed pod it evicted as terminating this way).
func (c *Cache) UpdateAssumedPod(pod *model.Pod) error {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return fmt.Errorf("cache update assumed pod %s: %w", pod.Key(), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[pod.UID]
	switch {
	case !ok:
		return fmt.Errorf("cache update assumed pod %s: %w", pod.Key(), ErrPodNotFound)
	case !ps.assumed:
		return fmt.Errorf("cache update assumed pod %s: %w", pod.Key(), ErrNotAssumed)
	case ps.info.Pod.NodeName != pod.NodeName:
		return fmt.Errorf("cache update assumed pod %s: assumed on %s, not %s: %w", pod.Key(), ps.info.Pod.NodeName, pod.NodeName, ErrNotAssumed)
	}
	if err := c.removePodLocked(ps); err != nil {
		return fmt.Errorf("cache update assumed pod %s: %w", pod.Key(), err)
	}
	c.addPodLocked(pi, true)
	return nil
}

// RemovePod removes a bound or assumed pod (by UID; the cached version
// says where it is).
func (c *Cache) RemovePod(pod *model.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[pod.UID]
	if !ok {
		return fmt.Errorf("cache remove pod %s: %w", pod.Key(), ErrPodNotFound)
	}
	if err := c.removePodLocked(ps); err != nil {
		return fmt.Errorf("cache remove pod %s: %w", pod.Key(), err)
	}
	return nil
}

// AssumePod places a pod the scheduler chose a node for (pi.Pod.NodeName)
// before its binding is confirmed, so later cycles see the node as used.
func (c *Cache) AssumePod(pi *framework.PodInfo) error {
	pod := pi.Pod
	if pod.NodeName == "" {
		return fmt.Errorf("cache assume pod %s: %w", pod.Key(), ErrNotBound)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[pod.UID]; ok {
		return fmt.Errorf("cache assume pod %s: %w", pod.Key(), ErrPodExists)
	}
	c.addPodLocked(pi, true)
	return nil
}

// ForgetPod drops an assumed pod (its bind failed or was abandoned). A pod
// already gone is not an error; a confirmed one is.
func (c *Cache) ForgetPod(pod *model.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[pod.UID]
	switch {
	case !ok:
		return nil
	case !ps.assumed:
		return fmt.Errorf("cache forget pod %s: %w", pod.Key(), ErrNotAssumed)
	case ps.info.Pod.NodeName != pod.NodeName:
		return fmt.Errorf("cache forget pod %s: assumed on %s, not %s: %w", pod.Key(), ps.info.Pod.NodeName, pod.NodeName, ErrNotAssumed)
	}
	if err := c.removePodLocked(ps); err != nil {
		return fmt.Errorf("cache forget pod %s: %w", pod.Key(), err)
	}
	return nil
}

// IsAssumed reports whether the pod with the UID is assumed.
func (c *Cache) IsAssumed(uid string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ps, ok := c.pods[uid]
	return ok && ps.assumed
}

// PodState says what the cache knows of a pod.
type PodState struct {
	Pod     *model.Pod
	Assumed bool
}

// Pod returns the cached version of the pod with the UID.
func (c *Cache) Pod(uid string) (PodState, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ps, ok := c.pods[uid]
	if !ok {
		return PodState{}, false
	}
	return PodState{Pod: ps.info.Pod, Assumed: ps.assumed}, true
}

// Counts is the size of the cache.
type Counts struct {
	Nodes       int // nodes known (listed in snapshots)
	Pods        int // bound and assumed pods
	AssumedPods int
}

// Counts returns the current sizes.
func (c *Cache) Counts() Counts {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Counts{Nodes: c.tree.numNodes, Pods: len(c.pods), AssumedPods: c.numAssumed}
}
