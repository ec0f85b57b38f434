package dashboard

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// maxPodsRead bounds the pods a list reads to sort and page them; beyond
// it the list says so and berthctl lists them all.
const maxPodsRead = 100000

// Query parameters of the pod lists, kept in the address so that a
// filtered list can be reloaded, bookmarked and refreshes as it is.
const (
	filterParam    = "q"        // text the pod's namespace/name (a node's name) contains
	stateParam     = "state"    // one state
	namespaceParam = "ns"       // one namespace
	profileParam   = "profile"  // one profile (scheduler name)
	priorityParam  = "priority" // the least priority
	nodeParam      = "node"     // bound or binding on this node
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

// podFilter is a pod list's filter, as its address gives it.
type podFilter struct {
	Text, Namespace, State, Profile, Priority, Node string
	states                                          []berthv1.QueueState
	minPriority                                     *int32
}

// Active says whether the filter leaves any pod out.
func (f podFilter) Active() bool {
	return f.Text != "" || f.Namespace != "" || f.State != "" || f.Profile != "" || f.Priority != "" || f.Node != ""
}

// podList is a list of pods, paged, sorted and filtered, on the queue page
// (pending pods) or the pods page (every pod).
type podList struct {
	ID      string // the table's id
	Action  string // the page the filter's form goes to
	Filter  podFilter
	States  []string // to choose from
	Headers []header
	Pods    []*berthv1.PendingPod
	Pager   pager
	Capped  bool // more pods match than maxPodsRead
	// Sort and Size are the address's, which the filter's form keeps.
	Sort, Size string
}

// podColumns are the lists' columns, each sortable.
func podColumns() []column {
	return []column{
		{Key: "pod", Label: "Pod"}, {Key: "state", Label: "State"}, {Key: "node", Label: "Node"},
		{Key: "profile", Label: "Profile"}, {Key: "priority", Label: "Priority", Num: true},
		{Key: "attempts", Label: "Attempts", Num: true}, {Key: "nominated", Label: "Nominated"}, {Key: "queued", Label: "Queued"},
	}
}

func podOrder() map[string]func(a, b *berthv1.PendingPod) int {
	return map[string]func(a, b *berthv1.PendingPod) int{
		"pod": byPod,
		"state": func(a, b *berthv1.PendingPod) int {
			return strings.Compare(stateName(a.GetState()), stateName(b.GetState()))
		},
		"node":      func(a, b *berthv1.PendingPod) int { return strings.Compare(a.GetNode(), b.GetNode()) },
		"profile":   func(a, b *berthv1.PendingPod) int { return strings.Compare(a.GetSchedulerName(), b.GetSchedulerName()) },
		"priority":  func(a, b *berthv1.PendingPod) int { return cmp.Compare(a.GetPriority(), b.GetPriority()) },
		"attempts":  func(a, b *berthv1.PendingPod) int { return cmp.Compare(a.GetAttempts(), b.GetAttempts()) },
		"nominated": func(a, b *berthv1.PendingPod) int { return strings.Compare(a.GetNominatedNode(), b.GetNominatedNode()) },
		"queued": func(a, b *berthv1.PendingPod) int {
			return a.GetEnqueuedTime().AsTime().Compare(b.GetEnqueuedTime().AsTime())
		},
	}
}

func byPod(a, b *berthv1.PendingPod) int {
	return cmp.Or(strings.Compare(a.GetPod().GetNamespace(), b.GetPod().GetNamespace()), strings.Compare(a.GetPod().GetName(), b.GetPod().GetName()))
}

// listOfPods reads the list at u among the pods in states (the state
// filter chooses one of them).
func (d *Dashboard) listOfPods(ctx context.Context, u *url.URL, id string, states []berthv1.QueueState) (podList, int, error) {
	q := u.Query()
	l := podList{ID: id, Action: u.Path, Filter: podFilter{Text: strings.TrimSpace(q.Get(filterParam)), Namespace: strings.TrimSpace(q.Get(namespaceParam)),
		State: q.Get(stateParam), Profile: strings.TrimSpace(q.Get(profileParam)), Priority: strings.TrimSpace(q.Get(priorityParam)),
		Node: strings.TrimSpace(q.Get(nodeParam))},
		Sort: q.Get(sortParam), Size: q.Get(sizeParam)}
	for _, st := range states {
		l.States = append(l.States, stateName(st))
	}
	l.Filter.states = states
	if l.Filter.State != "" {
		i := slices.Index(l.States, l.Filter.State)
		if i < 0 {
			return l, http.StatusBadRequest, fmt.Errorf("state=%s is not a state of a pod here: use one of %s", l.Filter.State, strings.Join(l.States, ", "))
		}
		l.Filter.states = states[i : i+1]
	}
	if l.Filter.Priority != "" {
		p, err := strconv.ParseInt(l.Filter.Priority, 10, 32)
		if err != nil {
			return l, http.StatusBadRequest, fmt.Errorf("priority=%s is not a priority: give a whole number (the least priority shown)", l.Filter.Priority)
		}
		least := int32(p)
		l.Filter.minPriority = &least
	}
	p, err := parseList(q, podColumns(), "pod")
	if err != nil {
		return l, http.StatusBadRequest, err
	}
	// In the API's own order the list reads only as far as the page shown
	// (and one pod more, to know there are more); in any other it reads
	// every pod, to sort them.
	limit := maxPodsRead
	inOrder := p.Sort == "pod" && !p.Desc
	if inOrder {
		limit = min(p.Page*p.Size+1, maxPodsRead)
	}
	pods, more, err := d.readPods(ctx, l.Filter, limit)
	if err != nil {
		return l, httpStatus(err), err
	}
	if inOrder && more {
		// The rest is not read: the pager knows there is more, not how much.
		l.Pods, l.Pager = pageOf(u, p, pods)
		l.Pager.More, l.Pager.Next, l.Pager.Last = true, pageLink(u, l.Pager.Page+1), ""
	} else {
		slices.SortStableFunc(pods, order(p, podOrder(), byPod))
		l.Capped = more
		l.Pods, l.Pager = pageOf(u, p, pods)
	}
	l.Headers = headers(u, p, podColumns())
	return l, http.StatusOK, nil
}

// readPods reads the pods f keeps, page after page, in the API's order
// (namespace/name), until limit or the last; more says it stopped before
// the last.
func (d *Dashboard) readPods(ctx context.Context, f podFilter, limit int) ([]*berthv1.PendingPod, bool, error) {
	var out []*berthv1.PendingPod
	req := &berthv1.ListPodsRequest{PageSize: 1000, States: f.states, Contains: f.Text, Namespace: f.Namespace, SchedulerName: f.Profile, Node: f.Node}
	for {
		resp, err := d.admin.ListPods(ctx, req)
		if err != nil {
			return nil, false, err
		}
		for _, p := range resp.GetPods() {
			if f.minPriority == nil || p.GetPriority() >= *f.minPriority {
				out = append(out, p)
			}
		}
		if req.PageToken = resp.GetNextPageToken(); req.PageToken == "" {
			return out, false, nil
		}
		if len(out) >= limit {
			return out, true, nil
		}
	}
}

// podsView is the data of the pods page.
type podsView struct {
	List podList
}

// podsPage lists every pod, bound ones too, with its state, filtered,
// sorted and paged as its address says. With ?pod= it is the header's
// search form, which opens the pod's page.
func (d *Dashboard) podsPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("pod") {
		d.findPod(w, r)
		return
	}
	l, code, err := d.listOfPods(r.Context(), r.URL, "pods", append(pendingStates(), berthv1.QueueState_QUEUE_STATE_BOUND))
	if err != nil {
		d.listFailed(w, code, "pods", err)
		return
	}
	d.render(w, r, http.StatusOK, "pods", page{Title: "Pods", Nav: "pods", Refresh: 5, Data: podsView{List: l}})
}

// listFailed answers a list that could not be made: a bad address
// (code 400) or a failed read.
func (d *Dashboard) listFailed(w http.ResponseWriter, code int, what string, err error) {
	if code == http.StatusBadRequest {
		d.message(w, code, "Which "+what+"?", errorMessage(err))
		return
	}
	d.failed(w, what, err)
}
