package dashboard

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// heatPageSize is how many nodes one answer of /api/heatmap carries:
// about 350 KB of JSON, so that 50,000 nodes come in five requests.
const heatPageSize = 10000

// Query parameters of /api/heatmap besides the node filter and groupParam.
const (
	snapParam = "snap" // the snapshot of the previous pages
	fromParam = "from" // the first node's index in the heatmap's order
)

// heatPage is one answer of /api/heatmap: nodes From to From+len(Nodes)
// of Total, in the heatmap's order (by group, then name). Each node is
// [name, group, cpu%, memory%, pods%, devices%, states], a percentage -1
// when the node has none of the resource, group an index into Groups,
// states nodeInfo.State's bits. Next is the From of the next page, 0 on
// the last; Snapshot is passed back as ?snap= for it.
type heatPage struct {
	Snapshot string   `json:"snapshot"`
	Total    int      `json:"total"`
	From     int      `json:"from"`
	Next     int      `json:"next"`
	GroupBy  []string `json:"groupBy"`
	Groups   []string `json:"groups"`
	Nodes    [][]any  `json:"nodes"`
	// States are the names of the states' bits, lowest first.
	States []string `json:"states"`
}

// heatmapData serves /api/heatmap: the nodes the filter keeps, grouped by
// ?group=, heatPageSize at a time from ?from=. The first page reads the
// nodes afresh; the later ones, given ?snap=, read the same snapshot
// while it is the last one taken.
func (d *Dashboard) heatmapData(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := parseNodeFilter(q.Get)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	groupBy, err := parseGroupBy(q.Get(groupParam), q.Has(groupParam))
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	from, snapID := 0, uint64(0)
	if s := q.Get(fromParam); s != "" {
		if from, err = strconv.Atoi(s); err != nil || from < 0 {
			jsonError(w, http.StatusBadRequest, fromParam+"="+s+" is not an index: give 0 or more")
			return
		}
	}
	if s := q.Get(snapParam); s != "" {
		if snapID, err = strconv.ParseUint(s, 10, 64); err != nil {
			jsonError(w, http.StatusBadRequest, snapParam+"="+s+" is not a snapshot: pass back the snapshot of the first page")
			return
		}
	}
	snap, err := d.snapshot(r.Context(), snapID)
	if err != nil {
		jsonError(w, httpStatus(err), "nodes: "+errorMessage(err))
		return
	}
	writeJSON(w, newHeatPage(snap, f, groupBy, from))
}

// newHeatPage lays out heatPageSize nodes of snap from index from.
func newHeatPage(snap *nodeSnapshot, f nodeFilter, groupBy []string, from int) heatPage {
	type keyed struct {
		group string
		n     *nodeInfo
	}
	var kept []keyed
	for _, n := range filterNodes(snap.nodes, f) {
		kept = append(kept, keyed{groupKey(n.Labels, groupBy), n})
	}
	slices.SortFunc(kept, func(a, b keyed) int {
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		return strings.Compare(a.n.Name, b.n.Name)
	})
	p := heatPage{Snapshot: strconv.FormatUint(snap.id, 10), Total: len(kept), From: min(from, len(kept)),
		GroupBy: groupBy, Groups: []string{}, Nodes: [][]any{}, States: nodeStates()[:4]}
	to := min(p.From+heatPageSize, len(kept))
	if to < len(kept) {
		p.Next = to
	}
	groups := map[string]int{}
	for _, k := range kept[p.From:to] {
		g, ok := groups[k.group]
		if !ok {
			g = len(p.Groups)
			groups[k.group] = g
			p.Groups = append(p.Groups, k.group)
		}
		n := k.n
		p.Nodes = append(p.Nodes, []any{n.Name, g, n.percent(resCPU), n.percent(resMemory), n.percent(resPods), n.percent(resDevices), n.State})
	}
	return p
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "dashboard: encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// jsonError answers {"error": message} with status.
func jsonError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	data, _ := json.Marshal(map[string]string{"error": message})
	_, _ = w.Write(data)
}
