package dashboard

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/watch"
)

const (
	// nodePodsListed is how many of a node's pods its page lists.
	nodePodsListed = 500
	// recentScanned is how many of the last decisions the node page looks
	// through for those about the node.
	recentScanned = 5000
	// recentShown is how many of those it shows, newest first.
	recentShown = 50
	// recentWait bounds reading them: the log is local, so this only
	// guards against a log that stops answering.
	recentWait = 5 * time.Second
)

// nodeView is the data of a node's page.
type nodeView struct {
	Node       nodeRow
	Labels     [][2]string // by key
	Resources  []resourceRow
	Conditions []conditionRow
	Pods       []*berthv1.PendingPod
	PodsMore   bool
	Nominated  []*berthv1.Nomination
	Decisions  []decisionEvent
	Scanned    int // decisions looked through for Decisions
}

// resourceRow is one resource of the node: its pods' requests against
// its allocatable.
type resourceRow struct {
	Resource                     string
	Requested, Allocatable, Free string
	Cell                         heatCell
}

// conditionRow is one condition as sent, or set from the node's stats.
type conditionRow struct {
	Type, Status, Reason, Message, Since string
}

func (d *Dashboard) nodePage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	u, err := d.findNode(r.Context(), name)
	if err != nil {
		d.failed(w, "node "+name, err)
		return
	}
	pressure, err := d.nodePressure(r.Context())
	if err != nil {
		d.failed(w, "node pressure", err)
		return
	}
	info := newNodeInfo(u, pressure[name])
	v := nodeView{Node: newNodeRow(&info, defaultGroupBy()), Resources: resourceRows(u), Conditions: conditionRows(u, pressure[name])}
	for _, k := range slices.Sorted(maps.Keys(u.GetLabels())) {
		v.Labels = append(v.Labels, [2]string{k, u.GetLabels()[k]})
	}
	pods, err := d.admin.ListPods(r.Context(), &berthv1.ListPodsRequest{Node: name, PageSize: nodePodsListed})
	if err != nil {
		d.failed(w, "pods on "+name, err)
		return
	}
	v.Pods, v.PodsMore = pods.GetPods(), pods.GetNextPageToken() != ""
	noms, err := d.admin.ListNominations(r.Context(), &berthv1.ListNominationsRequest{Node: name, PageSize: 1000})
	if err != nil {
		d.failed(w, "nominations on "+name, err)
		return
	}
	v.Nominated = noms.GetNominations()
	v.Decisions, v.Scanned, err = d.recentDecisions(r.Context(), func(ev decisionEvent) bool { return ev.Node == name })
	if err != nil {
		d.failed(w, "decisions about "+name, err)
		return
	}
	d.render(w, r, http.StatusOK, "node", page{Title: "Node " + name, Nav: "nodes", Refresh: 5, Data: v})
}

// findNode reads one node: first among the nodes labelled with its name as
// hostname (as kube's are), else among every node.
func (d *Dashboard) findNode(ctx context.Context, name string) (*berthv1.NodeUsage, error) {
	resp, err := d.admin.ListNodes(ctx, &berthv1.ListNodesRequest{PageSize: 1000, MatchLabels: map[string]string{model.LabelHostname: name}})
	if err != nil {
		return nil, err
	}
	for _, n := range resp.GetNodes() {
		if n.GetName() == name {
			return n, nil
		}
	}
	all, err := d.admin.AllNodes(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range all {
		if n.GetName() == name {
			return n, nil
		}
	}
	return nil, status.Error(codes.NotFound, "Berth holds no node "+name)
}

// resourceRows are every resource the node has or its pods request, cpu,
// memory and pods first.
func resourceRows(u *berthv1.NodeUsage) []resourceRow {
	names := map[string]bool{}
	for res := range u.GetAllocatable() {
		names[res] = true
	}
	for res := range u.GetRequested() {
		names[res] = true
	}
	first := []string{model.ResourceCPU, model.ResourceMemory, model.ResourcePods}
	rest := slices.DeleteFunc(slices.Sorted(maps.Keys(names)), func(res string) bool { return slices.Contains(first, res) })
	var out []resourceRow
	for _, res := range append(first, rest...) {
		if !names[res] {
			continue
		}
		req, alloc := u.GetRequested()[res], u.GetAllocatable()[res]
		out = append(out, resourceRow{Resource: res, Requested: amount(res, req), Allocatable: amount(res, alloc),
			Free: amount(res, alloc-req), Cell: newHeatCell(res, req, alloc)})
	}
	return out
}

// conditionRows are the node's conditions as sent, then those its stats
// set that it did not send.
func conditionRows(u *berthv1.NodeUsage, pressure []string) []conditionRow {
	var out []conditionRow
	sent := map[string]bool{}
	for _, c := range u.GetConditions() {
		row := conditionRow{Type: conditionName(c.GetType()), Status: camelCase(strings.TrimPrefix(c.GetStatus().String(), "CONDITION_STATUS_")),
			Reason: c.GetReason(), Message: c.GetMessage(), Since: timeString(c.GetLastTransitionTime())}
		sent[row.Type] = row.Status == "True"
		out = append(out, row)
	}
	for _, p := range pressure {
		if !sent[p] {
			out = append(out, conditionRow{Type: p, Status: "True", Reason: "NodeStats", Message: "set by node-pressure eviction from the node's stats"})
		}
	}
	return out
}

// errCaughtUp ends a read of the recent decisions at the last one.
var errCaughtUp = errors.New("caught up")

// recentDecisions looks through the last recentScanned decisions for
// those keep keeps, and returns the newest recentShown of them, newest
// first, with how many it looked through.
func (d *Dashboard) recentDecisions(ctx context.Context, keep func(decisionEvent) bool) ([]decisionEvent, int, error) {
	first, last := d.decisions.Revisions()
	if last == 0 || last < first {
		return nil, 0, nil
	}
	from := max(first, 1)
	if last >= recentScanned {
		from = max(from, last+1-recentScanned)
	}
	ctx, cancel := context.WithTimeout(ctx, recentWait)
	defer cancel()
	var kept []decisionEvent
	scanned := 0
	err := d.decisions.Watch(ctx, from, "", watch.Filter{}, func(resp *berthv1.WatchResponse) error {
		for _, dec := range resp.GetDecisions() {
			scanned++
			if ev := newDecisionEvent(dec); keep(ev) {
				kept = append(kept, ev)
			}
			if dec.GetRevision() >= last {
				return errCaughtUp
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errCaughtUp) {
		return nil, 0, err
	}
	slices.Reverse(kept)
	return kept[:min(len(kept), recentShown)], scanned, nil
}
