package dashboard

import (
	"cmp"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
)

// shortfallNodesShown is how many nodes short of a resource the pod page
// lists: on a large cluster they are many, and much alike.
const shortfallNodesShown = 10

// defaultNamespace is where a pod named without one is looked for.
const defaultNamespace = "default"

// podView is the data of the pod page.
type podView struct {
	Explain *berthv1.ExplainResponse
	State   string
	// Message is the last failed attempt's, as kube prints it in the
	// pod's FailedScheduling event.
	Message string
	Table   explainTable
	Pager   pager // the table's rows are paged
	// DryRun says what the dry run found, or why there is none.
	DryRun string
	// Requests are the pod's effective requests, "cpu 2, memory 1Gi,
	// pods 1"; Shortfalls the numbers behind "Insufficient cpu": the
	// request against each short node's free room now.
	Requests   string
	Shortfalls []shortfallRow
	// MoreShort is how many nodes short of a resource are left out of
	// Shortfalls (beyond shortfallNodesShown).
	MoreShort int
	// Volumes are the pod's claims and where each stands; VolumeReasons
	// the volume plugins' reasons per node in the last failed attempt (at
	// most volumeNodesShown, MoreVolumeReasons left out).
	Volumes           []volumeRow
	VolumeReasons     []nodeReasonsRow
	MoreVolumeReasons int
}

// volumeNodesShown is how many nodes' volume reasons the pod page lists.
const volumeNodesShown = 10

// isVolumePlugin: the pod page's volume section lists the rejections of
// kube's four volume plugins.
func isVolumePlugin(name string) bool {
	switch name {
	case names.VolumeRestrictions, names.NodeVolumeLimits, names.VolumeBinding, names.VolumeZone:
		return true
	}
	return false
}

// volumeRow is one of a pod's claims as the pod page shows it.
type volumeRow struct {
	Volume, Claim, Class, Request string
	// State is where the claim stands: "bound to pv-1", "volume pv-1
	// chosen, to be bound", "to be provisioned on node-3", "unbound",
	// "not found".
	State string
}

// nodeReasonsRow is one node's reasons from one plugin ("" for every node
// a PreFilter rejected together).
type nodeReasonsRow struct {
	Node, Plugin, Reasons string
}

// volumeRows lays out a pod's claims.
func volumeRows(vols []scheduler.ClaimVolume) []volumeRow {
	out := make([]volumeRow, 0, len(vols))
	for _, v := range vols {
		r := volumeRow{Volume: v.Name, Claim: v.Claim, Class: v.Class}
		if v.Ephemeral {
			r.Volume += " (ephemeral)"
		}
		if v.RequestBytes > 0 {
			r.Request = bytesString(v.RequestBytes)
		}
		switch {
		case !v.Found:
			r.State = "not found"
		case v.BoundTo != "":
			r.State = "bound to " + v.BoundTo
		case v.Chosen != "":
			r.State = "volume " + v.Chosen + " chosen, to be bound"
		case v.SelectedNode != "":
			r.State = "to be provisioned on " + v.SelectedNode
		default:
			r.State = "unbound"
		}
		out = append(out, r)
	}
	return out
}

// volumeReasons are the nodes a volume plugin rejected in the last failed
// attempt, with its reasons, by node name; a PreFilter rejection of every
// node is one row for all of them. The second result counts the rows left
// out beyond limit.
func volumeReasons(d *scheduler.Diagnosis, limit int) ([]nodeReasonsRow, int) {
	if d == nil {
		return nil, 0
	}
	var out []nodeReasonsRow
	if isVolumePlugin(d.OtherPlugin) && len(d.OtherReasons) > 0 {
		out = append(out, nodeReasonsRow{Node: "every node", Plugin: d.OtherPlugin, Reasons: strings.Join(d.OtherReasons, "; ")})
	}
	more := 0
	for _, n := range d.Nodes {
		if !isVolumePlugin(n.Plugin) {
			continue
		}
		if len(out) >= limit {
			more++
			continue
		}
		out = append(out, nodeReasonsRow{Node: n.Node, Plugin: n.Plugin, Reasons: strings.Join(n.Reasons, "; ")})
	}
	return out, more
}

// shortfallRow is one resource one node lacks, amounts as people write
// them.
type shortfallRow struct {
	Node                         string // on the node's first row only
	Resource                     string
	Requested, Free, Allocatable string
	Short                        bool // free below requested
}

// explainTable is explain as nodes by plugins.
type explainTable struct {
	// Filters are the plugins that rejected a node in the last failed
	// attempt; Scores the scoring plugins of the dry run.
	Filters, Scores []string
	Rows            []explainRow
}

// explainRow is one node of the table.
type explainRow struct {
	Node     string
	Rejected bool      // a filter rejected it in the last failed attempt
	Filters  []verdict // one per explainTable.Filters
	Feasible bool      // it passes every filter in the dry run
	Reasons  string    // the dry run's reasons when it does not
	Scores   []int64   // one per explainTable.Scores
	Total    int64     // the dry run's total score
	Chosen   bool      // the dry run picks it
	Tried    bool      // the dry run considered it
}

// verdict is one plugin's verdict on one node: Failed with its reasons
// for the plugin that rejected the node; empty for the others, which
// passed or, after the rejection, did not run.
type verdict struct {
	Failed  bool
	Reasons string
}

// findPod serves the search form: ?pod=namespace/name (or a name in the
// default namespace).
func (d *Dashboard) findPod(w http.ResponseWriter, r *http.Request) {
	ref := strings.TrimSpace(r.URL.Query().Get("pod"))
	ns, name, ok := strings.Cut(ref, "/")
	if !ok {
		ns, name = defaultNamespace, ref
	}
	if ns == "" || name == "" {
		d.message(w, http.StatusBadRequest, "Which pod?", "Give a pod as namespace/name, for example default/web-1.")
		return
	}
	http.Redirect(w, r, "/pods/"+url.PathEscape(ns)+"/"+url.PathEscape(name), http.StatusSeeOther)
}

func (d *Dashboard) podPage(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	ex, err := d.admin.Explain(r.Context(), &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: ns, Name: name}})
	if err != nil {
		d.failed(w, "explain "+ns+"/"+name, err)
		return
	}
	short := ex.GetShortfalls()
	v := podView{Explain: ex, State: stateName(ex.GetState()), Requests: requestsString(ex.GetRequests()),
		Shortfalls: shortfallRows(short[:min(len(short), shortfallNodesShown)]), MoreShort: max(len(short)-shortfallNodesShown, 0)}
	if diag := ex.GetLastDiagnosis(); diag != nil {
		v.Message = diag.GetMessage()
	}
	live, err := d.explainer.Explain(ns, name)
	if err != nil || live.Pod.UID != ex.GetPod().GetUid() {
		live = scheduler.Explanation{} // deleted or replaced meanwhile
	}
	var attempt *berthv1.SimulateAttempt
	attempt, v.DryRun = d.dryRun(r, live.Pod)
	v.Table = newExplainTable(ex, live.Diagnosis, attempt)
	v.Volumes = volumeRows(live.Volumes)
	v.VolumeReasons, v.MoreVolumeReasons = volumeReasons(live.Diagnosis, volumeNodesShown)
	p, err := parseList(r.URL.Query(), []column{{Key: "node"}}, "node")
	if err != nil {
		d.message(w, http.StatusBadRequest, "Which page?", err.Error())
		return
	}
	slices.SortStableFunc(v.Table.Rows, bestFirst)
	v.Table.Rows, v.Pager = pageOf(r.URL, p, v.Table.Rows)
	d.render(w, r, http.StatusOK, "pod", page{Title: ns + "/" + name, Data: v})
}

// dryRun schedules the pod on a copy of the cluster now (Simulate) and
// returns its last attempt, with a summary.
func (d *Dashboard) dryRun(r *http.Request, pod *model.Pod) (*berthv1.SimulateAttempt, string) {
	if pod == nil {
		return nil, "no dry run: the pod changed while the page was made"
	}
	// Under a uid of its own, the pod replaces the one of its name in the
	// copy, even when that one is bound (whose node an upsert cannot clear).
	wire := convert.PodToProto(pod)
	wire.Uid, wire.NodeName, wire.NominatedNodeName = "dry-run-"+pod.UID, "", ""
	resp, err := d.admin.Simulate(r.Context(), &berthv1.SimulateRequest{Pods: []*berthv1.Pod{wire}})
	if err != nil {
		return nil, "no dry run: " + errorMessage(err)
	}
	atts := resp.GetAttempts()
	if len(atts) == 0 {
		return nil, "no dry run: the simulation made no attempt"
	}
	att := atts[len(atts)-1]
	switch att.GetResult() {
	case berthv1.SimulateResult_SIMULATE_RESULT_BOUND:
		return att, "it would bind to " + att.GetNode() + "."
	case berthv1.SimulateResult_SIMULATE_RESULT_NOMINATED:
		return att, "it would preempt and be nominated on " + att.GetNode() + "."
	case berthv1.SimulateResult_SIMULATE_RESULT_GATED:
		return att, "it would wait: " + att.GetMessage()
	}
	return att, "it would still not fit: " + att.GetMessage()
}

// newExplainTable puts together the last failed attempt (which plugin
// rejected each node) and the dry run (verdicts and scores now).
func newExplainTable(ex *berthv1.ExplainResponse, diag *scheduler.Diagnosis, att *berthv1.SimulateAttempt) explainTable {
	rows := map[string]*explainRow{}
	row := func(node string) *explainRow {
		if rows[node] == nil {
			rows[node] = &explainRow{Node: node}
		}
		return rows[node]
	}
	rejected := map[string]map[string]string{} // node -> plugin -> reasons
	reject := func(node, plugin string, reasons []string) {
		row(node).Rejected = true
		if rejected[node] == nil {
			rejected[node] = map[string]string{}
		}
		rejected[node][cmp.Or(plugin, "(unknown plugin)")] = strings.Join(reasons, "; ")
	}
	own := map[string]bool{}
	if diag != nil {
		for _, n := range diag.Nodes {
			own[n.Node] = true
			reject(n.Node, n.Plugin, n.Reasons)
		}
	}
	// The API's diagnosis also lists the nodes rejected together (by a
	// PreFilter), which the scheduler's keeps as OtherReasons.
	for _, nr := range ex.GetLastDiagnosis().GetNodeReasons() {
		if !own[nr.GetNode()] {
			plugin := ""
			if diag != nil {
				plugin = diag.OtherPlugin
			}
			reject(nr.GetNode(), plugin, nr.GetReasons())
		}
	}
	t := explainTable{}
	scores := map[string]bool{}
	for _, nv := range att.GetNodes() {
		r := row(nv.GetNode())
		r.Tried, r.Feasible, r.Total = true, nv.GetFeasible(), nv.GetTotalScore()
		r.Reasons = strings.Join(nv.GetReasons(), "; ")
		r.Chosen = nv.GetNode() == att.GetNode()
		for p := range nv.GetPluginScores() {
			scores[p] = true
		}
	}
	filters := map[string]bool{}
	for _, byPlugin := range rejected {
		for p := range byPlugin {
			filters[p] = true
		}
	}
	t.Filters, t.Scores = sortedSet(filters), sortedSet(scores)
	for _, nv := range att.GetNodes() {
		r := rows[nv.GetNode()]
		for _, p := range t.Scores {
			r.Scores = append(r.Scores, nv.GetPluginScores()[p])
		}
	}
	for _, r := range rows {
		for _, p := range t.Filters {
			reasons, failed := rejected[r.Node][p]
			r.Filters = append(r.Filters, verdict{Failed: failed, Reasons: reasons})
		}
		t.Rows = append(t.Rows, *r)
	}
	slices.SortFunc(t.Rows, func(a, b explainRow) int { return strings.Compare(a.Node, b.Node) })
	return t
}

// bestFirst orders the explain table for a large cluster, where it is
// paged: the node chosen, then those that fit by score, then the others
// (by name, as newExplainTable leaves them).
func bestFirst(a, b explainRow) int {
	rank := func(r explainRow) int {
		switch {
		case r.Chosen:
			return 0
		case r.Feasible:
			return 1
		}
		return 2
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	if a.Feasible && b.Feasible {
		return cmp.Compare(b.Total, a.Total)
	}
	return 0
}

// requestsString is a pod's requests by resource name.
func requestsString(req map[string]int64) string {
	var parts []string
	for _, res := range slices.Sorted(maps.Keys(req)) {
		parts = append(parts, res+" "+amount(res, req[res]))
	}
	return strings.Join(parts, ", ")
}

// shortfallRows lays the API's shortfalls out one resource a row.
func shortfallRows(nodes []*berthv1.NodeShortfall) []shortfallRow {
	var out []shortfallRow
	for _, n := range nodes {
		node := n.GetNode()
		for _, r := range n.GetResources() {
			res := r.GetResource()
			out = append(out, shortfallRow{Node: node, Resource: res, Requested: amount(res, r.GetRequested()),
				Free: amount(res, r.GetFree()), Allocatable: amount(res, r.GetAllocatable()), Short: r.GetFree() < r.GetRequested()})
			node = ""
		}
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// stateName is a QueueState as the pages show it: "unschedulable".
func stateName(s berthv1.QueueState) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "QUEUE_STATE_"))
}

// httpStatus is the HTTP status of a failed read, by its gRPC code.
func httpStatus(err error) int {
	switch status.Code(err) {
	case codes.NotFound:
		return http.StatusNotFound
	case codes.InvalidArgument, codes.FailedPrecondition:
		return http.StatusBadRequest
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errorMessage is the message of a gRPC status error, or the error's.
func errorMessage(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}
