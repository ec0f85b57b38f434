package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// maxNodesShown bounds the nodes the heatmap reads, page after page.
const maxNodesShown = 5000

// heatResources are the heatmap's columns: the resource names of
// NodeUsage's maps.
func heatResources() []string {
	return []string{model.ResourceCPU, model.ResourceMemory, model.ResourcePods}
}

// nodesView is the data of the nodes page.
type nodesView struct {
	Resources []string
	Filter    string  // the text the names shown contain (?q=), "" for all
	Total     nodeRow // the sums over the nodes shown
	Nodes     []nodeRow
	More      bool // more nodes than maxNodesShown
}

// nodeRow is one node of the heatmap.
type nodeRow struct {
	Name  string
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

func (d *Dashboard) nodesPage(w http.ResponseWriter, r *http.Request) {
	nodes, more, err := d.listNodes(r.Context())
	if err != nil {
		d.failed(w, "nodes", err)
		return
	}
	pressure, err := d.nodePressure(r.Context())
	if err != nil {
		d.failed(w, "node pressure", err)
		return
	}
	filter := strings.TrimSpace(r.URL.Query().Get(filterParam))
	d.render(w, http.StatusOK, "nodes", page{Title: "Nodes", Nav: "nodes", Refresh: 5, Data: newNodesView(nodes, pressure, more, filter)})
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

// listNodes reads every node, up to maxNodesShown.
func (d *Dashboard) listNodes(ctx context.Context) ([]*berthv1.NodeUsage, bool, error) {
	var out []*berthv1.NodeUsage
	token := ""
	for {
		resp, err := d.admin.ListNodes(ctx, &berthv1.ListNodesRequest{PageSize: 1000, PageToken: token})
		if err != nil {
			return nil, false, err
		}
		out = append(out, resp.GetNodes()...)
		token = resp.GetNextPageToken()
		if token == "" {
			return out, false, nil
		}
		if len(out) >= maxNodesShown {
			return out, true, nil
		}
	}
}

// newNodesView lays out the nodes whose names contain filter, with the
// pressure conditions their stats set.
func newNodesView(nodes []*berthv1.NodeUsage, pressure map[string][]string, more bool, filter string) nodesView {
	v := nodesView{Resources: heatResources(), More: more, Filter: filter}
	requested, allocatable := map[string]int64{}, map[string]int64{}
	for _, n := range nodes {
		if !strings.Contains(n.GetName(), filter) {
			continue
		}
		row := nodeRow{Name: n.GetName(), Cordoned: n.GetUnschedulable(), Nominated: n.GetNominatedPodCount()}
		row.Ready, row.Conditions = nodeConditions(n.GetConditions())
		for _, c := range pressure[n.GetName()] {
			if !slices.Contains(row.Conditions, c) {
				row.Conditions = append(row.Conditions, c)
			}
		}
		for _, res := range v.Resources {
			req, alloc := n.GetRequested()[res], n.GetAllocatable()[res]
			requested[res] += req
			allocatable[res] += alloc
			row.Cells = append(row.Cells, newHeatCell(res, req, alloc))
		}
		for _, t := range n.GetTaints() {
			row.Taints = append(row.Taints, taintString(t))
		}
		for _, t := range n.GetDerivedTaints() {
			row.DerivedTaints = append(row.DerivedTaints, taintString(t))
		}
		v.Nodes = append(v.Nodes, row)
	}
	v.Total = nodeRow{Name: fmt.Sprintf("all %d nodes", len(v.Nodes))}
	if filter != "" {
		v.Total.Name = fmt.Sprintf("%d nodes matching", len(v.Nodes))
	}
	for _, res := range v.Resources {
		v.Total.Cells = append(v.Total.Cells, newHeatCell(res, requested[res], allocatable[res]))
	}
	return v
}

func newHeatCell(res string, req, alloc int64) heatCell {
	c := heatCell{Text: amount(res, req) + " / " + amount(res, alloc)}
	switch {
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
			others = append(others, camelCase(strings.TrimPrefix(c.GetType().String(), "NODE_CONDITION_TYPE_")))
		}
	}
	return ready, others
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
