package dashboard

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// Query parameters of the heatmap.
const (
	groupParam = "group" // label keys, comma-separated
	colorParam = "color" // a resource of heatResources, or "state"
)

// nodesView is the data of the nodes page.
type nodesView struct {
	Filter    nodeFilter
	States    []string // to choose from
	GroupBy   string   // the labels grouped by, as ?group= takes them
	Color     string   // what the heatmap colours by
	Colors    []string // to choose from
	HeatmapAt string   // the heatmap's data, /api/heatmap with the filter
	Total     nodeRow  // the sums over the nodes the filter keeps
	Headers   []header
	Nodes     []nodeRow // this page's
	Pager     pager
	Held      int // nodes Berth holds, before the filter
	Legend    []legendKey
	LabelKeys []string // the label keys the nodes carry, to group by
	// Sort and Size are the address's, which the filter's form keeps.
	Sort, Size string
}

// maxLabelKeys bounds the label keys offered to group by.
const maxLabelKeys = 100

// legendKey is one colour of the heatmap's legend.
type legendKey struct {
	Class, Label string
}

// nodeRow is one node of the table.
type nodeRow struct {
	Name  string
	Href  string
	Group string
	Cells []heatCell // one per heatResources
	// Ready is the Ready condition as kubectl shows it: Ready (also when
	// none was sent), NotReady (False) or Unknown.
	Ready string
	// Conditions are the other conditions whose status is True
	// (MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable), and
	// those node-pressure eviction set from the node's stats.
	Conditions []string
	// Taints are those sent; DerivedTaints those Berth derived from the
	// conditions (taintNodesByCondition), which filtering sees too.
	Taints, DerivedTaints []string
	Cordoned              bool
	Nominated             uint32
}

// heatCell is one resource of one node: requested over allocatable.
type heatCell struct {
	Text    string // "1.5/4 (37%)"
	Percent int
	Class   string // h0 (idle) to h10 (full); "over" beyond allocatable; "na" without allocatable
}

// nodeColumns are the table's columns, each sortable.
func nodeColumns() []column {
	return []column{
		{Key: "name", Label: "Node"}, {Key: "group", Label: "Group"},
		{Key: "cpu", Label: "cpu"}, {Key: "memory", Label: "memory"}, {Key: "pods", Label: "pods"}, {Key: "devices", Label: "devices"},
		{Key: "nominated", Label: "Nominated", Num: true}, {Key: "state", Label: "Status"}, {Key: "taints", Label: "Taints"},
	}
}

// nodeOrder compares nodes by each column; state by the first state a
// node is in (notready first), resources by their share in use.
func nodeOrder(groupBy []string) map[string]func(a, b *nodeInfo) int {
	by := map[string]func(a, b *nodeInfo) int{
		"name": byName,
		"group": func(a, b *nodeInfo) int {
			return strings.Compare(groupKey(a.Labels, groupBy), groupKey(b.Labels, groupBy))
		},
		"nominated": func(a, b *nodeInfo) int { return cmp.Compare(a.Nominated, b.Nominated) },
		"state": func(a, b *nodeInfo) int {
			return cmp.Compare(slices.Index(nodeStates(), a.stateName()), slices.Index(nodeStates(), b.stateName()))
		},
		"taints": func(a, b *nodeInfo) int {
			return cmp.Compare(len(a.Taints)+len(a.DerivedTaints), len(b.Taints)+len(b.DerivedTaints))
		},
	}
	for i, res := range heatResources() {
		by[res] = func(a, b *nodeInfo) int { return cmp.Compare(a.percent(i), b.percent(i)) }
	}
	return by
}

func byName(a, b *nodeInfo) int { return strings.Compare(a.Name, b.Name) }

func (d *Dashboard) nodesPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := parseNodeFilter(q.Get)
	if err != nil {
		d.message(w, http.StatusBadRequest, "Which nodes?", err.Error())
		return
	}
	groupBy, err := parseGroupBy(q.Get(groupParam), q.Has(groupParam))
	if err != nil {
		d.message(w, http.StatusBadRequest, "Grouped by what?", err.Error())
		return
	}
	color := cmp.Or(q.Get(colorParam), model.ResourceCPU)
	colors := append(heatResources(), "state")
	if !slices.Contains(colors, color) {
		d.message(w, http.StatusBadRequest, "Coloured by what?", colorParam+"="+color+" is not one of "+strings.Join(colors, ", ")+".")
		return
	}
	p, err := parseList(q, nodeColumns(), "name")
	if err != nil {
		d.message(w, http.StatusBadRequest, "Which page?", err.Error())
		return
	}
	snap, err := d.snapshot(r.Context(), 0)
	if err != nil {
		d.failed(w, "nodes", err)
		return
	}
	kept := filterNodes(snap.nodes, f)
	slices.SortStableFunc(kept, order(p, nodeOrder(groupBy), byName))
	shown, pg := pageOf(r.URL, p, kept)
	v := nodesView{Filter: f, States: nodeStates(), GroupBy: strings.Join(groupBy, ","), Color: color, Colors: colors,
		Headers: headers(r.URL, p, nodeColumns()), Pager: pg, Held: len(snap.nodes), Legend: legend(color),
		Sort: q.Get(sortParam), Size: q.Get(sizeParam)}
	heat := url.Values{}
	for k, val := range map[string]string{filterParam: f.Name, selectorParam: f.Selector, nodeStateParam: f.State} {
		if val != "" {
			heat.Set(k, val)
		}
	}
	heat.Set(groupParam, cmp.Or(v.GroupBy, "-"))
	// The heatmap's first read takes the table's snapshot, if still the last.
	heat.Set(snapParam, strconv.FormatUint(snap.id, 10))
	v.HeatmapAt = "/api/heatmap?" + heat.Encode()
	for _, n := range shown {
		v.Nodes = append(v.Nodes, newNodeRow(n, groupBy))
	}
	v.Total = totalRow(kept, f.Active())
	v.LabelKeys = labelKeys(snap.nodes)
	// Each refresh reads every node: less often in a large fleet (25 s at
	// 50,000 nodes).
	refresh := min(max(5, len(snap.nodes)/2000), 60)
	d.render(w, r, http.StatusOK, "nodes", page{Title: "Nodes", Nav: "nodes", Refresh: refresh, Data: v})
}

// labelKeys are the label keys of the nodes, sorted, up to maxLabelKeys.
func labelKeys(nodes []nodeInfo) []string {
	seen := map[string]bool{}
	for i := range nodes {
		for k := range nodes[i].Labels {
			if len(seen) == maxLabelKeys {
				break
			}
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// newNodeRow lays out one node of the table.
func newNodeRow(n *nodeInfo, groupBy []string) nodeRow {
	row := nodeRow{Name: n.Name, Href: nodePath(n.Name), Group: groupKey(n.Labels, groupBy), Ready: n.Ready,
		Conditions: n.Conditions, Taints: n.Taints, DerivedTaints: n.DerivedTaints, Cordoned: n.Cordoned, Nominated: n.Nominated}
	for i, res := range heatResources() {
		row.Cells = append(row.Cells, newHeatCell(res, n.Requested[i], n.Allocatable[i]))
	}
	return row
}

// totalRow sums the nodes the filter keeps.
func totalRow(nodes []*nodeInfo, filtered bool) nodeRow {
	var req, alloc [numRes]int64
	for _, n := range nodes {
		for i := range numRes {
			req[i] += n.Requested[i]
			alloc[i] += n.Allocatable[i]
		}
	}
	row := nodeRow{Name: fmt.Sprintf("all %d nodes", len(nodes))}
	if filtered {
		row.Name = fmt.Sprintf("%d nodes matching", len(nodes))
	}
	for i, res := range heatResources() {
		row.Cells = append(row.Cells, newHeatCell(res, req[i], alloc[i]))
	}
	return row
}

// legend is the heatmap's colours when it colours by color.
func legend(color string) []legendKey {
	if color == "state" {
		return []legendKey{{"st-ok", "ok"}, {"st-tainted", "tainted"}, {"st-cordoned", "cordoned"},
			{"st-pressure", "under pressure"}, {"st-notready", "NotReady"}}
	}
	out := []legendKey{{"na", "none"}}
	for i := 0; i <= 10; i += 2 {
		out = append(out, legendKey{"h" + strconv.Itoa(i), strconv.Itoa(i*10) + "%"})
	}
	return append(out, legendKey{"over", "over 100%"})
}

// nodePath is the node page of name.
func nodePath(name string) string { return "/nodes/" + url.PathEscape(name) }

func newHeatCell(res string, req, alloc int64) heatCell {
	c := heatCell{Text: amount(res, req) + " / " + amount(res, alloc)}
	switch {
	case alloc <= 0 && req <= 0:
		c.Text, c.Class = "–", "na"
		return c
	case alloc <= 0:
		c.Class = "na"
		return c
	case req > alloc:
		c.Class = "over"
	}
	c.Percent = int(req * 100 / alloc)
	if c.Class == "" {
		c.Class = "h" + strconv.Itoa((c.Percent+5)/10)
	}
	c.Text += fmt.Sprintf(" (%d%%)", c.Percent)
	return c
}

// amount is a canonical amount of res as people write it: cores, binary
// byte units, counts.
func amount(res string, v int64) string {
	switch res {
	case model.ResourceCPU:
		if v%1000 == 0 {
			return strconv.FormatInt(v/1000, 10)
		}
		return strconv.FormatFloat(float64(v)/1000, 'f', -1, 64)
	case model.ResourceMemory, model.ResourceEphemeralStorage:
		return bytesString(v)
	}
	return strconv.FormatInt(v, 10)
}

// bytesString is v in the largest binary unit that keeps one decimal.
func bytesString(v int64) string {
	if v < 0 {
		return "-" + bytesString(-v)
	}
	units := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi"}
	f, i := float64(v), 0
	for f >= 1024 && i < len(units)-1 {
		f, i = f/1024, i+1
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + units[i]
}

// nodeConditions reads a node's conditions as kubectl's STATUS column
// does: the Ready condition (Ready when none was sent: Berth's nodes need
// not carry one), then the other conditions that are True.
func nodeConditions(conds []*berthv1.NodeCondition) (ready string, others []string) {
	ready = "Ready"
	for _, c := range conds {
		isReady := c.GetType() == berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY
		switch {
		case isReady && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_FALSE:
			ready = "NotReady"
		case isReady && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_UNKNOWN:
			ready = "Unknown"
		case !isReady && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_TRUE:
			others = append(others, conditionName(c.GetType()))
		}
	}
	return ready, others
}

// conditionName is a condition type as Kubernetes spells it.
func conditionName(t berthv1.NodeConditionType) string {
	return camelCase(strings.TrimPrefix(t.String(), "NODE_CONDITION_TYPE_"))
}

// camelCase is an enum's words as Kubernetes spells them: MEMORY_PRESSURE
// is MemoryPressure, PID_PRESSURE PidPressure but for the acronym.
func camelCase(enum string) string {
	if enum == "PID_PRESSURE" {
		return "PIDPressure"
	}
	words := strings.Split(enum, "_")
	for i, w := range words {
		if w != "" {
			words[i] = w[:1] + strings.ToLower(w[1:])
		}
	}
	return strings.Join(words, "")
}

// taintString is a taint as kubectl prints it: key=value:Effect.
func taintString(t *berthv1.Taint) string {
	s := t.GetKey()
	if t.GetValue() != "" {
		s += "=" + t.GetValue()
	}
	return s + ":" + taintEffect(t.GetEffect())
}

func taintEffect(e berthv1.TaintEffect) string {
	switch e {
	case berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE:
		return string(model.TaintEffectNoSchedule)
	case berthv1.TaintEffect_TAINT_EFFECT_PREFER_NO_SCHEDULE:
		return string(model.TaintEffectPreferNoSchedule)
	case berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE:
		return string(model.TaintEffectNoExecute)
	}
	return e.String()
}
