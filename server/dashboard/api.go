package dashboard

import (
	"encoding/json"
	"net/http"
	"slices"

	"google.golang.org/protobuf/encoding/protojson"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// listPage is one page of a list as /api/pods and /api/nodes answer it:
// the same page, order and filter as the HTML list at the same address.
type listPage struct {
	Total int `json:"total"`
	Page  int `json:"page"`
	Pages int `json:"pages"`
	// More says there are more items than Total, not read (a list in the
	// API's order reads only as far as the page asked for).
	More  bool `json:"more,omitempty"`
	Items any  `json:"items"`
}

// apiPods serves /api/pods: a page of the pods list (see podsPage), each
// pod a PendingPod in its JSON form.
func (d *Dashboard) apiPods(w http.ResponseWriter, r *http.Request) {
	l, code, err := d.listOfPods(r.Context(), r.URL, "pods", append(pendingStates(), berthv1.QueueState_QUEUE_STATE_BOUND))
	if err != nil {
		jsonError(w, code, errorMessage(err))
		return
	}
	items := make([]json.RawMessage, 0, len(l.Pods))
	for _, p := range l.Pods {
		data, err := protojson.Marshal(p)
		if err != nil {
			jsonError(w, http.StatusInternalServerError, "encoding a pod: "+err.Error())
			return
		}
		items = append(items, data)
	}
	writeJSON(w, listPage{Total: l.Pager.Total, Page: l.Pager.Page, Pages: l.Pager.Pages, More: l.Pager.More, Items: items})
}

// nodeItem is one node of /api/nodes. Amounts are canonical (millicores,
// bytes, counts), by resource: cpu, memory, pods and devices (the
// extended resources summed).
type nodeItem struct {
	Name          string            `json:"name"`
	Group         string            `json:"group"`
	Labels        map[string]string `json:"labels,omitempty"`
	Requested     map[string]int64  `json:"requested"`
	Allocatable   map[string]int64  `json:"allocatable"`
	Ready         string            `json:"ready"`
	Conditions    []string          `json:"conditions,omitempty"`
	Taints        []string          `json:"taints,omitempty"`
	DerivedTaints []string          `json:"derivedTaints,omitempty"`
	Cordoned      bool              `json:"cordoned,omitempty"`
	Pods          uint32            `json:"pods"`
	Nominated     uint32            `json:"nominated,omitempty"`
	States        []string          `json:"states"` // of nodeStates; ["ok"] for none
}

// apiNodes serves /api/nodes: a page of the nodes table (see nodesPage).
func (d *Dashboard) apiNodes(w http.ResponseWriter, r *http.Request) {
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
	p, err := parseList(q, nodeColumns(), "name")
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	snap, err := d.snapshot(r.Context(), 0)
	if err != nil {
		jsonError(w, httpStatus(err), "nodes: "+errorMessage(err))
		return
	}
	kept := filterNodes(snap.nodes, f)
	slices.SortStableFunc(kept, order(p, nodeOrder(groupBy), byName))
	shown, pg := pageOf(r.URL, p, kept)
	items := make([]nodeItem, 0, len(shown))
	for _, n := range shown {
		it := nodeItem{Name: n.Name, Group: groupKey(n.Labels, groupBy), Labels: n.Labels, Requested: map[string]int64{}, Allocatable: map[string]int64{},
			Ready: n.Ready, Conditions: n.Conditions, Taints: n.Taints, DerivedTaints: n.DerivedTaints, Cordoned: n.Cordoned,
			Pods: n.Pods, Nominated: n.Nominated}
		for i, res := range heatResources() {
			it.Requested[res], it.Allocatable[res] = n.Requested[i], n.Allocatable[i]
		}
		for i, name := range nodeStates()[:4] {
			if n.State&(1<<i) != 0 {
				it.States = append(it.States, name)
			}
		}
		if len(it.States) == 0 {
			it.States = []string{"ok"}
		}
		items = append(items, it)
	}
	writeJSON(w, listPage{Total: pg.Total, Page: pg.Page, Pages: pg.Pages, Items: items})
}
