package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// Resources the heatmap colours by, in the order of nodeInfo's amounts.
// devices sums the node's extended resources (names with a domain, such
// as example.com/gpu).
const (
	resCPU = iota
	resMemory
	resPods
	resDevices
	numRes
)

// heatResources are the names of those resources as the pages show them.
func heatResources() []string {
	return []string{model.ResourceCPU, model.ResourceMemory, model.ResourcePods, "devices"}
}

// Node states, each a bit of nodeInfo.State; a node may be in several.
// The heatmap colours a node by the first it is in, in this order.
const (
	stateNotReady = 1 << iota // Ready condition False or Unknown
	statePressure             // a pressure condition True, sent or from stats
	stateCordoned             // unschedulable
	stateTainted              // a taint sent (derived ones follow conditions)
)

// nodeStates are the states' names, by bit, as ?state= takes them.
func nodeStates() []string { return []string{"notready", "pressure", "cordoned", "tainted", "ok"} }

// stateOf is the bit of a state's name; 0 for "ok" (no bit), -1 unknown.
func stateOf(name string) int {
	i := slices.Index(nodeStates(), name)
	switch {
	case i < 0:
		return -1
	case name == "ok":
		return 0
	}
	return 1 << i
}

// nodeInfo is one node as the dashboard shows it, compact enough to hold
// 50,000 of them.
type nodeInfo struct {
	Name   string
	Labels map[string]string
	// Requested and Allocatable by resCPU..resDevices.
	Requested, Allocatable [numRes]int64
	Ready                  string // Ready, NotReady or Unknown, as kubectl shows it
	// Conditions are the True ones besides Ready, sent or set from the
	// node's stats.
	Conditions            []string
	Taints, DerivedTaints []string
	Cordoned              bool
	Pods, Nominated       uint32
	State                 int // stateNotReady | ...
}

// percent is requested over allocatable of resource r, in percent; -1
// when the node has none of it.
func (n *nodeInfo) percent(r int) int {
	if n.Allocatable[r] <= 0 {
		return -1
	}
	return int(n.Requested[r] * 100 / n.Allocatable[r])
}

// stateName is the first of the node's states, "ok" for none.
func (n *nodeInfo) stateName() string {
	for i, name := range nodeStates() {
		if n.State&(1<<i) != 0 {
			return name
		}
	}
	return "ok"
}

// newNodeInfo flattens a node of ListNodes with the pressure conditions
// its stats set.
func newNodeInfo(u *berthv1.NodeUsage, pressure []string) nodeInfo {
	n := nodeInfo{Name: u.GetName(), Labels: u.GetLabels(), Cordoned: u.GetUnschedulable(),
		Pods: u.GetPodCount(), Nominated: u.GetNominatedPodCount()}
	n.Ready, n.Conditions = nodeConditions(u.GetConditions())
	for _, c := range pressure {
		if !slices.Contains(n.Conditions, c) {
			n.Conditions = append(n.Conditions, c)
		}
	}
	for res, v := range u.GetAllocatable() {
		if i := resIndex(res); i >= 0 {
			n.Allocatable[i] += v
		}
	}
	for res, v := range u.GetRequested() {
		if i := resIndex(res); i >= 0 {
			n.Requested[i] += v
		}
	}
	for _, t := range u.GetTaints() {
		n.Taints = append(n.Taints, taintString(t))
	}
	for _, t := range u.GetDerivedTaints() {
		n.DerivedTaints = append(n.DerivedTaints, taintString(t))
	}
	if n.Ready != "Ready" {
		n.State |= stateNotReady
	}
	if slices.ContainsFunc(n.Conditions, func(c string) bool { return strings.HasSuffix(c, "Pressure") }) {
		n.State |= statePressure
	}
	if n.Cordoned {
		n.State |= stateCordoned
	}
	if len(n.Taints) > 0 {
		n.State |= stateTainted
	}
	return n
}

// resIndex is where a resource of the API counts among nodeInfo's
// amounts, -1 for none.
func resIndex(res string) int {
	switch {
	case res == model.ResourceCPU:
		return resCPU
	case res == model.ResourceMemory:
		return resMemory
	case res == model.ResourcePods:
		return resPods
	case strings.Contains(res, "/"):
		return resDevices
	}
	return -1
}

// nodeSnapshot is every node at one moment, by name.
type nodeSnapshot struct {
	id    uint64
	nodes []nodeInfo
}

// nodeCache keeps the last snapshot taken, so that the heatmap's later
// pages come from the same one as its first.
type nodeCache struct {
	mu   sync.Mutex
	last *nodeSnapshot
	ids  uint64
}

// snapshot reads every node afresh (id 0), or returns snapshot id if it
// is still the last one taken, or a fresh one if not.
func (d *Dashboard) snapshot(ctx context.Context, id uint64) (*nodeSnapshot, error) {
	d.nodeCache.mu.Lock()
	if last := d.nodeCache.last; id != 0 && last != nil && last.id == id {
		d.nodeCache.mu.Unlock()
		return last, nil
	}
	d.nodeCache.mu.Unlock()
	nodes, err := d.readNodes(ctx)
	if err != nil {
		return nil, err
	}
	d.nodeCache.mu.Lock()
	defer d.nodeCache.mu.Unlock()
	d.nodeCache.ids++
	s := &nodeSnapshot{id: d.nodeCache.ids, nodes: nodes}
	d.nodeCache.last = s
	return s, nil
}

// readNodes reads every node, with the pressure conditions their stats
// set.
func (d *Dashboard) readNodes(ctx context.Context) ([]nodeInfo, error) {
	pressure, err := d.nodePressure(ctx)
	if err != nil {
		return nil, fmt.Errorf("node pressure: %w", err)
	}
	nodes, err := d.admin.AllNodes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]nodeInfo, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, newNodeInfo(n, pressure[n.GetName()]))
	}
	return out, nil
}

// nodePressure is the pressure conditions of the nodes whose stats set
// some (Options.Pressure), none without it.
func (d *Dashboard) nodePressure(ctx context.Context) (map[string][]string, error) {
	if d.opts.Pressure == nil {
		return nil, nil
	}
	resp, err := d.opts.Pressure.GetNodePressure(ctx, &berthv1.GetNodePressureRequest{})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, n := range resp.GetNodes() {
		out[n.GetNode()] = n.GetConditions()
	}
	return out, nil
}

// nodeFilter is what the nodes page and the heatmap show: the nodes whose
// name contains Name, whose labels match Selector and which are in State
// ("" any; "ok" none of the states).
type nodeFilter struct {
	Name, Selector, State string
	selector              model.Selector
	state                 int
}

// Query parameters of the node filter besides filterParam (the name).
const (
	selectorParam  = "sel"
	nodeStateParam = "state"
)

// parseNodeFilter reads and checks the filter of a nodes address.
func parseNodeFilter(get func(string) string) (nodeFilter, error) {
	f := nodeFilter{Name: strings.TrimSpace(get(filterParam)), Selector: strings.TrimSpace(get(selectorParam)),
		State: get(nodeStateParam)}
	var err error
	if f.selector, err = parseSelector(f.Selector); err != nil {
		return f, fmt.Errorf("%s: %w", selectorParam, err)
	}
	if f.State != "" {
		if f.state = stateOf(f.State); f.state < 0 {
			return f, fmt.Errorf("%s=%s is not a state of a node: use one of %s", nodeStateParam, f.State, strings.Join(nodeStates(), ", "))
		}
	}
	return f, nil
}

// Active says whether the filter leaves any node out.
func (f nodeFilter) Active() bool { return f.Name != "" || f.Selector != "" || f.State != "" }

func (f nodeFilter) match(n *nodeInfo) bool {
	switch {
	case !strings.Contains(n.Name, f.Name), !f.selector.Matches(n.Labels):
		return false
	case f.State == "":
		return true
	case f.state == 0:
		return n.State == 0
	}
	return n.State&f.state != 0
}

// filterNodes returns the nodes that f keeps.
func filterNodes(nodes []nodeInfo, f nodeFilter) []*nodeInfo {
	out := make([]*nodeInfo, 0, len(nodes))
	for i := range nodes {
		if f.match(&nodes[i]) {
			out = append(out, &nodes[i])
		}
	}
	return out
}

// groupKey is a node's group: its values of the labels, " / " between
// them, "(no zone)" for a label it lacks (the key's last word).
func groupKey(labels map[string]string, by []string) string {
	if len(by) == 0 {
		return "all nodes"
	}
	parts := make([]string, len(by))
	for i, k := range by {
		parts[i] = labels[k]
		if _, ok := labels[k]; !ok {
			parts[i] = "(no " + k[strings.LastIndex(k, "/")+1:] + ")"
		}
	}
	return strings.Join(parts, " / ")
}

// defaultGroupBy is what the heatmap groups by unless ?group= says
// otherwise: zone, then pool.
func defaultGroupBy() []string {
	return []string{model.LabelZone, "node.kubernetes.io/pool"}
}

// parseGroupBy reads ?group=: label keys separated by commas; "-" (or
// nothing after group=) for no grouping.
func parseGroupBy(s string, present bool) ([]string, error) {
	if !present {
		return defaultGroupBy(), nil
	}
	if s = strings.TrimSpace(s); s == "" || s == "-" {
		return nil, nil
	}
	var out []string
	for k := range strings.SplitSeq(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" || strings.ContainsAny(k, " ()!=") {
			return nil, fmt.Errorf("group=%s: %q is not a label key", s, k)
		}
		out = append(out, k)
	}
	if len(out) > 3 {
		return nil, fmt.Errorf("group=%s: group by at most 3 labels", s)
	}
	return out, nil
}
