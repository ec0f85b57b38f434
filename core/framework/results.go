package framework

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
)

// NodeScore is one node's score from one plugin or in total.
type NodeScore struct {
	Name  string
	Score int64
}

// NodeScoreList holds the scores of the nodes being scored, in node order.
type NodeScoreList []NodeScore

// Score bounds for a single plugin after NormalizeScore.
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
	// MaxTotalScore bounds the weighted sum so it cannot overflow.
	MaxTotalScore int64 = 1<<63 - 1
)

// PreFilterResult narrows the nodes worth filtering. A nil result, or one
// with a nil NodeNames, means all nodes.
type PreFilterResult struct {
	NodeNames map[string]struct{}
}

// AllNodes reports whether the result places no restriction.
func (r *PreFilterResult) AllNodes() bool { return r == nil || r.NodeNames == nil }

// Merge intersects two results.
func (r *PreFilterResult) Merge(o *PreFilterResult) *PreFilterResult {
	if r.AllNodes() {
		return o
	}
	if o.AllNodes() {
		return r
	}
	out := &PreFilterResult{NodeNames: make(map[string]struct{})}
	for n := range r.NodeNames {
		if _, ok := o.NodeNames[n]; ok {
			out.NodeNames[n] = struct{}{}
		}
	}
	return out
}

// PostFilterResult is what a PostFilter plugin achieved: for preemption, the
// node the pod is nominated to.
type PostFilterResult struct {
	NominatedNodeName string
}

// NodeToStatus maps the nodes that failed filtering to their statuses.
// Nodes not in the map (never evaluated because PreFilter narrowed the set)
// share AbsentStatus.
type NodeToStatus struct {
	statuses     map[string]*Status
	AbsentStatus *Status
}

// NewNodeToStatus returns an empty map whose absent nodes are
// UnschedulableAndUnresolvable.
func NewNodeToStatus() *NodeToStatus {
	return &NodeToStatus{
		statuses:     make(map[string]*Status),
		AbsentStatus: NewStatus(UnschedulableAndUnresolvable),
	}
}

// Set records the status of node.
func (m *NodeToStatus) Set(node string, s *Status) { m.statuses[node] = s }

// Get returns the status of node: its own, or AbsentStatus.
func (m *NodeToStatus) Get(node string) *Status {
	if s, ok := m.statuses[node]; ok {
		return s
	}
	return m.AbsentStatus
}

// Has reports whether node has its own status.
func (m *NodeToStatus) Has(node string) bool {
	_, ok := m.statuses[node]
	return ok
}

// Len returns the number of nodes with their own status.
func (m *NodeToStatus) Len() int { return len(m.statuses) }

// Nodes returns the nodes with their own status, sorted.
func (m *NodeToStatus) Nodes() []string {
	return slices.Sorted(maps.Keys(m.statuses))
}

// All yields the nodes with their own status and their statuses, in no
// particular order: for callers that group the nodes rather than sort them.
func (m *NodeToStatus) All() iter.Seq2[string, *Status] { return maps.All(m.statuses) }

// FirstNodes returns the first k nodes, by name, with their own status,
// sorted: Nodes()[:k] without sorting them all.
func (m *NodeToStatus) FirstNodes(k int) []string {
	if k <= 0 {
		return nil
	}
	if len(m.statuses) <= k {
		return m.Nodes()
	}
	out := make([]string, 0, k+1)
	for n := range m.statuses {
		if len(out) == k && n >= out[k-1] {
			continue
		}
		i, _ := slices.BinarySearch(out, n)
		out = slices.Insert(out, i, n)
		if len(out) > k {
			out = out[:k]
		}
	}
	return out
}

// NodesWithCode returns the nodes whose own status has code, sorted.
func (m *NodeToStatus) NodesWithCode(code Code) []string {
	var out []string
	for n, s := range m.statuses {
		if s.Code() == code {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Diagnosis explains why a pod found no node.
type Diagnosis struct {
	NodeToStatus *NodeToStatus
	// UnschedulablePlugins and PendingPlugins name the plugins that rejected
	// the pod; the queue uses them to decide which events can help.
	UnschedulablePlugins map[string]struct{}
	PendingPlugins       map[string]struct{}
	// PreFilterMsg is set when PreFilter rejected the pod for every node.
	PreFilterMsg string
	// PostFilterMsg is what PostFilter (preemption) said.
	PostFilterMsg string
}

// AddUnschedulablePlugin records a rejecting plugin.
func (d *Diagnosis) AddUnschedulablePlugin(name string) {
	if name == "" {
		return
	}
	if d.UnschedulablePlugins == nil {
		d.UnschedulablePlugins = make(map[string]struct{})
	}
	d.UnschedulablePlugins[name] = struct{}{}
}

// NoNodeAvailableMsg starts every fit error message.
const NoNodeAvailableMsg = "0/%d nodes are available"

// FitError is returned when a pod fits no node.
type FitError struct {
	PodKey      string
	NumAllNodes int
	Diagnosis   Diagnosis
}

// Error renders the message kube-scheduler users know:
// "0/N nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated
// taint {k: v}. <postfilter message>."
// Reasons are counted across nodes and listed in sorted order; when
// PreFilter rejected the pod its message replaces the per-node histogram.
func (e *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, NoNodeAvailableMsg+":", e.NumAllNodes)
	d := &e.Diagnosis
	if d.PreFilterMsg != "" {
		fmt.Fprintf(&b, " %s.", d.PreFilterMsg)
	} else if d.NodeToStatus != nil {
		counts := make(map[string]int)
		// Most nodes fail for the same reasons: count runs of equal
		// reasons, and add each run to the map once.
		var run []string
		n := 0
		for _, s := range d.NodeToStatus.statuses {
			reasons := s.Reasons()
			if n > 0 && slices.Equal(reasons, run) {
				n++
				continue
			}
			for _, r := range run {
				counts[r] += n
			}
			run, n = reasons, 1
		}
		for _, r := range run {
			counts[r] += n
		}
		if absent := e.NumAllNodes - d.NodeToStatus.Len(); absent > 0 {
			for _, r := range d.NodeToStatus.AbsentStatus.Reasons() {
				counts[r] += absent
			}
		}
		parts := make([]string, 0, len(counts))
		for r, n := range counts {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(parts)
		if len(parts) > 0 {
			fmt.Fprintf(&b, " %s.", strings.Join(parts, ", "))
		}
	}
	if d.PostFilterMsg != "" {
		// Appended as is (no period), as kube does: preemption's message
		// ends with its own.
		fmt.Fprintf(&b, " %s", d.PostFilterMsg)
	}
	return b.String()
}
