package framework

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth/core/model"
)

// NodeInfo is a node with the pods placed on it and what they use. The cache
// owns the live NodeInfos; snapshots hold clones that the scheduling cycle
// reads without locks.
type NodeInfo struct {
	// The fields a scheduling cycle reads of every node it filters come
	// first, together, so that they share cache lines.

	// Generation increases on every change; the cache uses it to copy only
	// the NodeInfos that changed into the next snapshot.
	Generation int64
	name       string // node.Name, kept here: the hot loops read it per node
	// node is here too: filtering asks every node for its nominated pods
	// (NominatedPodsToAdd), which reads it first.
	node *model.Node
	// memo is the runtime's per-signature results for this version of the
	// node (see Memo); never cloned.
	memo nodeMemo

	// images holds the names of the node's images (node.Images), nil when
	// it has none; never changed, so clones share it.
	images map[string]struct{}

	Pods                         []*PodInfo
	PodsWithAffinity             []*PodInfo // pods with any pod affinity or anti-affinity
	PodsWithRequiredAntiAffinity []*PodInfo
	UsedPorts                    HostPortInfo

	Allocatable model.Resources // from the node; Pods is the pod-count limit
	Requested   model.Resources // sum of the pods' effective requests
	// NonZeroRequested sums requests with the scoring defaults applied to
	// containers that request no cpu or memory (MilliCPU and Memory only).
	NonZeroRequested model.Resources
}

// NewNodeInfo returns a NodeInfo for node (nil for a node the cache knows
// only through its pods) holding pods.
func NewNodeInfo(node *model.Node, pods ...*PodInfo) *NodeInfo {
	ni := &NodeInfo{}
	ni.SetNode(node)
	for _, p := range pods {
		ni.AddPodInfo(p)
	}
	return ni
}

// Node returns the node, nil if only its pods are known.
func (n *NodeInfo) Node() *model.Node { return n.node }

// Name returns the node name ("" when the node is unknown).
func (n *NodeInfo) Name() string { return n.name }

// SetNode sets or replaces the node object.
func (n *NodeInfo) SetNode(node *model.Node) {
	n.node = node
	n.name = ""
	n.images = nil
	if node != nil {
		n.name = node.Name
		n.Allocatable = model.ResourcesFromList(node.Allocatable)
		n.images = imageNames(node.Images)
	} else {
		n.Allocatable = model.Resources{}
	}
	n.Generation++
}

// HasImage reports whether the node has an image of that name (exactly as
// the node lists it).
func (n *NodeInfo) HasImage(name string) bool {
	_, ok := n.images[name]
	return ok
}

func imageNames(images []model.ContainerImage) map[string]struct{} {
	if len(images) == 0 {
		return nil
	}
	out := make(map[string]struct{}, len(images))
	for _, img := range images {
		for _, name := range img.Names {
			out[name] = struct{}{}
		}
	}
	return out
}

// AddPodInfo accounts for a pod placed on the node.
func (n *NodeInfo) AddPodInfo(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if pi.Pod.HasPodAffinityConstraints() {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if len(pi.RequiredAntiAffinityTerms) > 0 {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.update(pi, +1)
}

// RemovePod removes the pod with pod's UID from the node.
func (n *NodeInfo) RemovePod(pod *model.Pod) error {
	idx := slices.IndexFunc(n.Pods, func(p *PodInfo) bool { return p.Pod.UID == pod.UID })
	if idx < 0 {
		return fmt.Errorf("pod %s (uid %s) is not on node %s", pod.Key(), pod.UID, n.Name())
	}
	pi := n.Pods[idx]
	n.Pods = removeAt(n.Pods, idx)
	if i := slices.IndexFunc(n.PodsWithAffinity, func(p *PodInfo) bool { return p.Pod.UID == pod.UID }); i >= 0 {
		n.PodsWithAffinity = removeAt(n.PodsWithAffinity, i)
	}
	if i := slices.IndexFunc(n.PodsWithRequiredAntiAffinity, func(p *PodInfo) bool { return p.Pod.UID == pod.UID }); i >= 0 {
		n.PodsWithRequiredAntiAffinity = removeAt(n.PodsWithRequiredAntiAffinity, i)
	}
	n.update(pi, -1)
	return nil
}

// removeAt removes element i as kube's NodeInfo does, moving the last
// element into the hole: the order matters, preemption reprieves victims of
// equal importance in it. It writes to a new array, so clones sharing s's
// backing array are not changed.
func removeAt(s []*PodInfo, i int) []*PodInfo {
	last := len(s) - 1
	out := make([]*PodInfo, last)
	copy(out, s[:last])
	if i < last {
		out[i] = s[last]
	}
	return out
}

func (n *NodeInfo) update(pi *PodInfo, sign int64) {
	req := pi.Requests.Requests
	if sign > 0 {
		n.Requested.Add(&req)
	} else {
		n.Requested.Sub(&req)
	}
	n.NonZeroRequested.MilliCPU += sign * pi.Requests.NonZeroMilliCPU
	n.NonZeroRequested.Memory += sign * pi.Requests.NonZeroMemory
	for _, c := range pi.Pod.Containers {
		n.updatePorts(c.Ports, sign)
	}
	for _, c := range pi.Pod.InitContainers {
		if c.RestartAlways {
			n.updatePorts(c.Ports, sign)
		}
	}
	n.Generation++
}

func (n *NodeInfo) updatePorts(ports []model.ContainerPort, sign int64) {
	for _, p := range ports {
		if p.HostPort <= 0 {
			continue
		}
		if sign > 0 {
			n.UsedPorts.Add(p.HostIP, p.Protocol, p.HostPort)
		} else {
			n.UsedPorts.Remove(p.HostIP, p.Protocol, p.HostPort)
		}
	}
}

// Clone returns a copy that can be changed (pods added or removed) without
// affecting n. PodInfos are shared: they are immutable.
func (n *NodeInfo) Clone() *NodeInfo {
	return &NodeInfo{
		node:                         n.node,
		name:                         n.name,
		images:                       n.images,
		Pods:                         slices.Clone(n.Pods),
		PodsWithAffinity:             slices.Clone(n.PodsWithAffinity),
		PodsWithRequiredAntiAffinity: slices.Clone(n.PodsWithRequiredAntiAffinity),
		UsedPorts:                    n.UsedPorts.Clone(),
		Allocatable:                  n.Allocatable.Clone(),
		Requested:                    n.Requested.Clone(),
		NonZeroRequested:             n.NonZeroRequested.Clone(),
		Generation:                   n.Generation,
	}
}

// HostPortInfo records host ports in use: ip -> protocol/port.
type HostPortInfo map[string]map[ProtocolPort]struct{}

// ProtocolPort is a protocol and port pair.
type ProtocolPort struct {
	Protocol string
	Port     int32
}

const wildcardIP = "0.0.0.0"

func normalizePort(ip, protocol string) (string, string) {
	if ip == "" {
		ip = wildcardIP
	}
	if protocol == "" {
		protocol = "TCP"
	}
	return ip, protocol
}

// Add records a used port.
func (h *HostPortInfo) Add(ip, protocol string, port int32) {
	ip, protocol = normalizePort(ip, protocol)
	if *h == nil {
		*h = make(HostPortInfo)
	}
	if (*h)[ip] == nil {
		(*h)[ip] = make(map[ProtocolPort]struct{})
	}
	(*h)[ip][ProtocolPort{protocol, port}] = struct{}{}
}

// Remove forgets a used port.
func (h HostPortInfo) Remove(ip, protocol string, port int32) {
	ip, protocol = normalizePort(ip, protocol)
	if m := h[ip]; m != nil {
		delete(m, ProtocolPort{protocol, port})
		if len(m) == 0 {
			delete(h, ip)
		}
	}
}

// Conflicts reports whether a wanted port clashes with a used one. The
// wildcard address 0.0.0.0 clashes with every address.
func (h HostPortInfo) Conflicts(ip, protocol string, port int32) bool {
	if port <= 0 {
		return false
	}
	ip, protocol = normalizePort(ip, protocol)
	pp := ProtocolPort{protocol, port}
	if ip == wildcardIP {
		for _, m := range h {
			if _, ok := m[pp]; ok {
				return true
			}
		}
		return false
	}
	for _, addr := range [2]string{ip, wildcardIP} {
		if _, ok := h[addr][pp]; ok {
			return true
		}
	}
	return false
}

// Len returns the number of used ports.
func (h HostPortInfo) Len() int {
	n := 0
	for _, m := range h {
		n += len(m)
	}
	return n
}

// Clone returns a deep copy.
func (h HostPortInfo) Clone() HostPortInfo {
	if h == nil {
		return nil
	}
	out := make(HostPortInfo, len(h))
	for ip, m := range h {
		c := make(map[ProtocolPort]struct{}, len(m))
		for k := range m {
			c[k] = struct{}{}
		}
		out[ip] = c
	}
	return out
}
