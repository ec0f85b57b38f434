package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// listPageSize is the page size of the list calls (the server's maximum).
const listPageSize = 1000

type getOptions struct {
	output        string
	schedulerName string
	labels        map[string]string
	states        []string
	namespace     string
}

// pendingStates are the states get pending --state takes: every
// QueueState ListPending lists (not bound).
var pendingStates = []string{"active", "backoff", "unschedulable", "gated", "scheduling", "binding", "ignored"}

// podStates are the states get pods --state takes: the pending ones and
// bound.
var podStates = append(slices.Clone(pendingStates), "bound")

// bindingNote explains the binding state under get pending.
const bindingNote = "binding: berthd decided the node (a Bind decision) and waits for the orchestrator to confirm or fail it " +
	"(berthctl confirm|fail NAMESPACE/NAME, or ReportBindResult; re-sending the pod with its node set confirms too)"

func (a *app) getCommand() *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get (pods | pending | nodes | nominations | queue | claims | deviceclasses | resourceslices | devicetaintrules | pv | pvc | storageclasses | csinodes | csidrivers | csistoragecapacities | resourceflavors | clusterqueues | cohorts | localqueues | workloadpriorityclasses | workloads) [-o text|json|yaml]",
		Short: "List what berthd holds: pods, pending pods, nodes and their use, nominations, queue counts, devices",
		Long: `get lists, from berthd's AdminService:
  pods         every pod berthd holds, bound ones included (ListPods, every page),
               by namespace and name, with its STATE (active, backoff,
               unschedulable, gated, scheduling, binding, bound, ignored) and
               NODE; --state keeps those in the states given, -n one namespace
  pending      the pods not bound yet (ListPending, every page), by namespace and name;
               --state keeps those in the states given. binding means berthd made a
               Bind decision and waits for the orchestrator to confirm it (see
               berthctl confirm and fail)
  nodes        the nodes with what their pods request against what they offer
               (ListNodes): cpu (in cores), memory and pods used/allocatable and
               in percent, pods nominated there, taints (key=value:effect), and
               SchedulingDisabled when cordoned; STATUS also names the pressure
               conditions (MemoryPressure, DiskPressure, PIDPressure) of nodes
               whose stats met an eviction threshold (StatsService.GetNodePressure;
               see berthctl stats push)
  nominations  the nominations in force (ListNominations); RESTORED marks those
               reloaded from berthd's store whose pods were not re-sent yet,
               and every one a follower replica lists (it holds no pods)
  queue        the number of pods in each state and the attempts made (QueueStats)
  claims       the ResourceClaims (ListDeviceObjects), those berthd made from
               templates for pods included: ALLOCATED, the NODE their devices
               are on (* for devices every node reaches, "selector" for
               network-attached ones), DEVICES as request=driver/pool/device,
               and the pods RESERVED (using the claim); -n keeps one namespace
  deviceclasses  the DeviceClasses with their CEL selectors
  resourceslices the ResourceSlices: driver, pool, where, how many devices
  devicetaintrules the DeviceTaintRules: the devices they select (driver/pool/device,
               * for any) and their taint (key=value:effect)
  pv, pvc      the PersistentVolumes and PersistentVolumeClaims (ListVolumeObjects),
               claims berthd made for pods' ephemeral volumes included; -n keeps
               one namespace of claims
  storageclasses, csinodes, csidrivers, csistoragecapacities
               the other storage objects (ListVolumeObjects)
  resourceflavors (rf), clusterqueues (cq), cohorts, localqueues (lq),
  workloadpriorityclasses (wpc), workloads (wl)
               Kueue's objects (ListQueueObjects). clusterqueues shows the
               PENDING and ADMITTED workloads and USAGE against nominal quota
               (flavor/resource=used/nominal) from the admission controller,
               the nominal quota alone without it; localqueues counts their
               workloads; workloads lists every workload the controller knows
               (those of pods and pod groups too) with its STATE, the
               ClusterQueue it is ADMITTED BY, its ORIGIN and why it waits;
               -n keeps one namespace of local queues and workloads

-o json prints the API's response message, all pages merged (ListPodsResponse,
ListPendingResponse, ListNodesResponse, ListNominationsResponse, QueueStatsResponse,
ListDeviceObjectsResponse, ListVolumeObjectsResponse or ListQueueObjectsResponse); -o yaml the same document in YAML. ` + jsonShape + `

An empty listing says so on standard error, and why when berthd waits for the
orchestrator's re-list: right after a restart, or on a replica that just took
the lead, berthd holds only the nodes and pods sent since (it keeps decisions,
nominations and binds, not nodes and pods) until the orchestrator re-lists them.`,
		Args: exactArgs(1, "what to list: pods, pending, nominations, queue, nodes, claims, deviceclasses, resourceslices, devicetaintrules, pv, pvc, storageclasses, csinodes, csidrivers, csistoragecapacities, "+
			"resourceflavors, clusterqueues, cohorts, localqueues, workloadpriorityclasses or workloads"),
		ValidArgsFunction: completeGetKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("output", o.output, "text", "json", "yaml"); err != nil {
				return err
			}
			return a.get(cmd.Context(), args[0], &o)
		},
	}
	fs := cmd.Flags()
	outputFlag(fs, &o.output, "text", "output format: text, json or yaml")
	fs.StringVar(&o.schedulerName, "scheduler-name", "", "pending, queue: only this scheduling profile")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "pods, claims, pvc, csistoragecapacities, localqueues, workloads: only this namespace")
	fs.StringToStringVarP(&o.labels, "selector", "l", nil, "nodes: only nodes with these labels (key=value,...)")
	fs.StringSliceVar(&o.states, "state", nil, "pods, pending: only pods in these states ("+strings.Join(podStates, ", ")+"; bound for pods only); repeatable or comma-separated")
	_ = cmd.RegisterFlagCompletionFunc("state", func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && args[0] == "pods" {
			return podStates, cobra.ShellCompDirectiveNoFileComp
		}
		return pendingStates, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func (a *app) get(ctx context.Context, what string, o *getOptions) error {
	var do func(context.Context, *client, *getOptions) error
	switch what {
	case "pods", "pod", "po":
		do = a.getPods
	case "pending":
		do = a.getPending
	case "nominations":
		do = a.getNominations
	case "queue":
		do = a.getQueue
	case "nodes", "node":
		do = a.getNodes
	case "claims", "claim", "resourceclaims":
		do = a.getClaims
	case "deviceclasses", "deviceclass":
		do = a.getDeviceClasses
	case "resourceslices", "resourceslice", "slices":
		do = a.getResourceSlices
	case "devicetaintrules", "devicetaintrule":
		do = a.getDeviceTaintRules
	default:
		if kind, ok := queueKinds[what]; ok {
			do = a.getQueueObjects(kind)
			break
		}
		kind, ok := volumeKinds[what]
		if !ok {
			return usageErrorf("get: unknown resource %q: use pods, pending, nominations, queue, nodes, claims, deviceclasses, resourceslices, devicetaintrules, "+
				"pv, pvc, storageclasses, csinodes, csidrivers, csistoragecapacities, resourceflavors, clusterqueues, cohorts, localqueues, "+
				"workloadpriorityclasses or workloads", what)
		}
		do = a.getVolumes(kind)
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	return do(ctx, c, o)
}

// queueStates reads --state, each one of allowed.
func queueStates(names, allowed []string) ([]berthv1.QueueState, error) {
	var out []berthv1.QueueState
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			return nil, usageErrorf("--state %q: want one of %s", n, strings.Join(allowed, ", "))
		}
		out = append(out, berthv1.QueueState(berthv1.QueueState_value["QUEUE_STATE_"+strings.ToUpper(n)]))
	}
	return out, nil
}

func (a *app) getPending(ctx context.Context, c *client, o *getOptions) error {
	states, err := queueStates(o.states, pendingStates)
	if err != nil {
		return err
	}
	pods, err := allPages(ctx, c, func(ctx context.Context, token string) ([]*berthv1.PendingPod, string, error) {
		resp, err := c.admin.ListPending(ctx, &berthv1.ListPendingRequest{PageSize: listPageSize, PageToken: token, SchedulerName: o.schedulerName, States: states})
		return resp.GetPods(), resp.GetNextPageToken(), err
	})
	if err != nil {
		return err
	}
	all := &berthv1.ListPendingResponse{Pods: pods}
	if len(all.GetPods()) == 0 {
		a.emptyHint(ctx, c, "pending pods")
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, all)
	}
	if slices.ContainsFunc(all.GetPods(), func(p *berthv1.PendingPod) bool { return p.GetState() == berthv1.QueueState_QUEUE_STATE_BINDING }) {
		defer fmt.Fprintln(a.err, bindingNote)
	}
	now := a.clock()
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tSTATE\tPRIORITY\tATTEMPTS\tAGE\tNOMINATED\tNODE\tSCHEDULER")
		for _, p := range all.GetPods() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", p.GetPod().GetNamespace(), p.GetPod().GetName(),
				stateName(p.GetState()), p.GetPriority(), p.GetAttempts(), age(now, p.GetEnqueuedTime()),
				dash(p.GetNominatedNode()), dash(p.GetNode()), p.GetSchedulerName())
		}
	})
}

func (a *app) getPods(ctx context.Context, c *client, o *getOptions) error {
	states, err := queueStates(o.states, podStates)
	if err != nil {
		return err
	}
	pods, err := allPages(ctx, c, func(ctx context.Context, token string) ([]*berthv1.PendingPod, string, error) {
		resp, err := c.admin.ListPods(ctx, &berthv1.ListPodsRequest{PageSize: listPageSize, PageToken: token,
			SchedulerName: o.schedulerName, States: states, Namespace: o.namespace})
		return resp.GetPods(), resp.GetNextPageToken(), err
	})
	if err != nil {
		return err
	}
	all := &berthv1.ListPodsResponse{Pods: pods}
	if len(all.GetPods()) == 0 {
		a.emptyHint(ctx, c, "pods")
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, all)
	}
	if slices.ContainsFunc(all.GetPods(), func(p *berthv1.PendingPod) bool { return p.GetState() == berthv1.QueueState_QUEUE_STATE_BINDING }) {
		defer fmt.Fprintln(a.err, bindingNote)
	}
	now := a.clock()
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tSTATE\tNODE\tPRIORITY\tATTEMPTS\tAGE\tNOMINATED\tSCHEDULER")
		for _, p := range all.GetPods() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", p.GetPod().GetNamespace(), p.GetPod().GetName(),
				stateName(p.GetState()), dash(p.GetNode()), p.GetPriority(), p.GetAttempts(), age(now, p.GetEnqueuedTime()),
				dash(p.GetNominatedNode()), p.GetSchedulerName())
		}
	})
}

func (a *app) getNominations(ctx context.Context, c *client, o *getOptions) error {
	all := &berthv1.ListNominationsResponse{}
	token := ""
	for {
		callCtx, cancel := c.call(ctx)
		resp, err := c.admin.ListNominations(callCtx, &berthv1.ListNominationsRequest{PageSize: listPageSize, PageToken: token})
		cancel()
		if err != nil {
			return c.err(ctx, err, "")
		}
		all.Nominations = append(all.Nominations, resp.GetNominations()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, all)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tNODE\tPRIORITY\tREVISION\tRESTORED")
		for _, n := range all.GetNominations() {
			prio, restored := fmt.Sprint(n.GetPriority()), "no"
			if n.GetRestored() {
				prio, restored = "-", "yes" // unknown until the pod is re-sent
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n.GetPod().GetNamespace(), n.GetPod().GetName(), n.GetNode(), prio, dashZero(n.GetRevision()), restored)
		}
	})
}

func (a *app) getQueue(ctx context.Context, c *client, o *getOptions) error {
	callCtx, cancel := c.call(ctx)
	defer cancel()
	s, err := c.admin.QueueStats(callCtx, &berthv1.QueueStatsRequest{SchedulerName: o.schedulerName})
	if err != nil {
		return c.err(ctx, err, "")
	}
	if s.GetActive()+s.GetBackoff()+s.GetUnschedulable()+s.GetGated()+s.GetInFlight()+s.GetBinding()+s.GetBound()+s.GetIgnored() == 0 {
		a.emptyHint(ctx, c, "pods")
	}
	if o.output != "text" {
		return writeJSON(a.out, s)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "STATE\tPODS")
		for _, r := range []struct {
			name string
			n    uint32
		}{
			{"active", s.GetActive()}, {"backoff", s.GetBackoff()}, {"unschedulable", s.GetUnschedulable()},
			{"gated", s.GetGated()}, {"scheduling", s.GetInFlight()}, {"binding", s.GetBinding()},
			{"bound", s.GetBound()}, {"ignored", s.GetIgnored()},
		} {
			fmt.Fprintf(tw, "%s\t%d\n", r.name, r.n)
		}
		fmt.Fprintln(tw, "\nATTEMPTS\tCOUNT")
		fmt.Fprintf(tw, "scheduled\t%d\nunschedulable\t%d\nerror\t%d\n", s.GetAttemptsScheduled(), s.GetAttemptsUnschedulable(), s.GetAttemptsError())
	})
}

func (a *app) getNodes(ctx context.Context, c *client, o *getOptions) error {
	all := &berthv1.ListNodesResponse{}
	token := ""
	for {
		callCtx, cancel := c.call(ctx)
		resp, err := c.admin.ListNodes(callCtx, &berthv1.ListNodesRequest{PageSize: listPageSize, PageToken: token, MatchLabels: o.labels})
		cancel()
		if err != nil {
			return c.err(ctx, err, "")
		}
		all.Nodes = append(all.Nodes, resp.GetNodes()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if len(all.GetNodes()) == 0 {
		a.emptyHint(ctx, c, "nodes")
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, all)
	}
	pressure, err := nodePressure(ctx, c)
	if err != nil {
		return err
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAME\tSTATUS\tCPU(cores)\tCPU%\tMEMORY\tMEMORY%\tPODS\tPODS%\tNOMINATED\tTAINTS\tDERIVED TAINTS")
		for _, n := range all.GetNodes() {
			req, alloc := n.GetRequested(), n.GetAllocatable()
			fmt.Fprintf(tw, "%s\t%s\t%s/%s\t%s\t%s/%s\t%s\t%d/%d\t%s\t%d\t%s\t%s\n", n.GetName(), nodeStatus(n, pressure[n.GetName()]),
				cores(req["cpu"]), cores(alloc["cpu"]), percent(req["cpu"], alloc["cpu"]),
				bytesText(req["memory"]), bytesText(alloc["memory"]), percent(req["memory"], alloc["memory"]),
				req["pods"], alloc["pods"], percent(req["pods"], alloc["pods"]),
				n.GetNominatedPodCount(), taintsText(n.GetTaints()), taintsText(n.GetDerivedTaints()))
		}
	})
}

// nodePressure is the pressure conditions of every node that reported
// stats (StatsService.GetNodePressure); none from a berthd without it.
func nodePressure(ctx context.Context, c *client) (map[string][]string, error) {
	callCtx, cancel := c.call(ctx)
	defer cancel()
	resp, err := c.Stats.GetNodePressure(callCtx, &berthv1.GetNodePressureRequest{})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, c.err(ctx, err, "")
	}
	out := map[string][]string{}
	for _, n := range resp.GetNodes() {
		out[n.GetNode()] = n.GetConditions()
	}
	return out, nil
}

// nodeStatus is the STATUS column as kubectl's: the Ready condition
// (Ready when none was sent), the conditions under pressure, and
// SchedulingDisabled for a cordoned node. pressure adds the conditions
// node-pressure eviction set from the node's stats (StatsService).
func nodeStatus(n *berthv1.NodeUsage, pressure []string) string {
	status := []string{"Ready"}
	for _, c := range n.GetConditions() {
		switch {
		case c.GetType() == berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_FALSE:
			status[0] = "NotReady"
		case c.GetType() == berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_UNKNOWN:
			status[0] = "Unknown"
		case c.GetType() != berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY && c.GetStatus() == berthv1.ConditionStatus_CONDITION_STATUS_TRUE:
			status = append(status, conditionName(c.GetType()))
		}
	}
	for _, cond := range pressure {
		if !slices.Contains(status, cond) {
			status = append(status, cond)
		}
	}
	if n.GetUnschedulable() {
		status = append(status, "SchedulingDisabled")
	}
	return strings.Join(status, ",")
}

// conditionName is a node condition's type as Kubernetes spells it:
// MemoryPressure, PIDPressure (the acronym kept), NetworkUnavailable.
func conditionName(t berthv1.NodeConditionType) string {
	if t == berthv1.NodeConditionType_NODE_CONDITION_TYPE_PID_PRESSURE {
		return "PIDPressure"
	}
	words := strings.Split(strings.TrimPrefix(t.String(), "NODE_CONDITION_TYPE_"), "_")
	for i, w := range words {
		if w != "" {
			words[i] = w[:1] + strings.ToLower(w[1:])
		}
	}
	return strings.Join(words, "")
}

// cores is millicores in cores, every row in the same unit: "0.5", "4".
func cores(milli int64) string {
	return strconv.FormatFloat(float64(milli)/1000, 'f', -1, 64)
}

// maxTaintsShown is how many taints a row of get nodes lists before
// counting the rest.
const maxTaintsShown = 2

// taintsText lists taints as kubectl writes them, key=value:effect, the
// first maxTaintsShown then "+N"; "-" for none.
func taintsText(taints []*berthv1.Taint) string {
	if len(taints) == 0 {
		return "-"
	}
	var parts []string
	for _, t := range taints[:min(len(taints), maxTaintsShown)] {
		kv := t.GetKey()
		if t.GetValue() != "" {
			kv += "=" + t.GetValue()
		}
		parts = append(parts, kv+":"+effectName(t.GetEffect()))
	}
	if more := len(taints) - maxTaintsShown; more > 0 {
		parts = append(parts, fmt.Sprintf("+%d", more))
	}
	return strings.Join(parts, ",")
}

// effectName is a TaintEffect as Kubernetes spells it: "NoSchedule".
func effectName(e berthv1.TaintEffect) string {
	words := strings.Split(strings.TrimPrefix(e.String(), "TAINT_EFFECT_"), "_")
	for i, w := range words {
		words[i] = w[:1] + strings.ToLower(w[1:])
	}
	return strings.Join(words, "")
}

// bytesText is a byte count with a binary suffix, at most one decimal:
// "512Mi", "1.5Gi", "0".
func bytesText(b int64) string {
	units := []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	if b < 1024 {
		return fmt.Sprint(b)
	}
	v, unit := float64(b), ""
	for _, u := range units {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + unit
}

// percent is used over allocatable, rounded down: "37%"; "-" when nothing
// is allocatable.
func percent(used, alloc int64) string {
	if alloc <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", used*100/alloc)
}

func dashZero(n uint64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// writeTable prints a tab-separated table aligned.
func writeTable(w io.Writer, rows func(io.Writer)) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows(tw)
	if err := tw.Flush(); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// age is how long ago t was, kubectl style: 45s, 12m, 3h, 2d.
func age(now time.Time, t *timestamppb.Timestamp) string {
	if t == nil {
		return "-"
	}
	d := now.Sub(t.AsTime())
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// allPages calls page with each page token in turn, from the first page
// until one has no next token, each call under the client's timeout, and
// returns every item.
func allPages[T any](ctx context.Context, c *client, page func(ctx context.Context, token string) ([]T, string, error)) ([]T, error) {
	var all []T
	token := ""
	for {
		callCtx, cancel := c.call(ctx)
		items, next, err := page(callCtx, token)
		cancel()
		if err != nil {
			return nil, c.err(ctx, err, "")
		}
		all = append(all, items...)
		if token = next; token == "" {
			return all, nil
		}
	}
}
