package dashboard

import (
	"context"
	"net/http"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// podsListed is how many pods a list shows; the filter narrows it.
const podsListed = 200

// Query parameters of the lists, kept in the address so that a filtered
// page can be reloaded, bookmarked and refreshes as it is.
const (
	filterParam = "q"     // text the pod's namespace/name (a node's name) contains
	stateParam  = "state" // one state of the pods page
)

// pendingStates are the states of pods not bound yet, as ListPending lists
// them.
func pendingStates() []berthv1.QueueState {
	return []berthv1.QueueState{
		berthv1.QueueState_QUEUE_STATE_ACTIVE, berthv1.QueueState_QUEUE_STATE_BACKOFF,
		berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, berthv1.QueueState_QUEUE_STATE_GATED,
		berthv1.QueueState_QUEUE_STATE_SCHEDULING, berthv1.QueueState_QUEUE_STATE_BINDING,
		berthv1.QueueState_QUEUE_STATE_IGNORED,
	}
}

// podsView is the data of the pods page.
type podsView struct {
	Filter string   // the text filter, "" for none
	State  string   // the state shown, "" for every one
	States []string // the states to choose from
	Pods   []*berthv1.PendingPod
	More   bool // more pods than listed
}

// podsPage lists every pod, bound ones too, with its state: ?state= keeps
// one state, ?q= the pods whose namespace/name contains the text. With
// ?pod= it is the header's search form, which opens the pod's page.
func (d *Dashboard) podsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("pod") {
		d.findPod(w, r)
		return
	}
	v := podsView{Filter: strings.TrimSpace(q.Get(filterParam)), State: q.Get(stateParam)}
	all := append(pendingStates(), berthv1.QueueState_QUEUE_STATE_BOUND)
	for _, st := range all {
		v.States = append(v.States, stateName(st))
	}
	var states []berthv1.QueueState
	if v.State != "" {
		i := slices.Index(v.States, v.State)
		if i < 0 {
			d.message(w, http.StatusBadRequest, "Which state?", "state="+v.State+" is not a state of a pod: use one of "+strings.Join(v.States, ", ")+".")
			return
		}
		states = all[i : i+1]
	}
	pods, more, err := d.listPods(r.Context(), states, v.Filter)
	if err != nil {
		d.failed(w, "pods", err)
		return
	}
	v.Pods, v.More = pods, more
	d.render(w, http.StatusOK, "pods", page{Title: "Pods", Nav: "pods", Refresh: 5, Data: v})
}

// listPods reads the first podsListed pods in states (every state when
// empty) whose namespace/name contains filter.
func (d *Dashboard) listPods(ctx context.Context, states []berthv1.QueueState, filter string) ([]*berthv1.PendingPod, bool, error) {
	resp, err := d.admin.ListPods(ctx, &berthv1.ListPodsRequest{PageSize: podsListed, States: states, Contains: filter})
	if err != nil {
		return nil, false, err
	}
	return resp.GetPods(), resp.GetNextPageToken() != "", nil
}
