package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func (a *app) explainCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "explain NAMESPACE/NAME [-o text|json]",
		Short: "Say where a pod stands in scheduling and why it is not placed",
		Long: `explain asks berthd (AdminService.Explain) about one pod, like the scheduling
part of kubectl describe: its sub-queue, attempts, next retry, nominated node,
and the "0/N nodes are available: ..." diagnosis of its last failed attempt
with every node's reasons; the pod's requests and, for the nodes it found short
of a resource ("Insufficient cpu", "Too many pods"), the pod's request against
the node's free room now; for a pod claiming devices, which claim or request
each node DynamicResources rejected cannot allocate, and why. A pod named
without a namespace is in "default".

explain exits 0 whatever the pod's state (an unschedulable pod is explained,
not an error) and 4 when berthd holds no such pod (right after a restart, until
the orchestrator re-lists its pods, berthd holds none, and explain says so).

-o json prints the ExplainResponse. ` + jsonShape,
		Args:              exactArgs(1, "one pod, NAMESPACE/NAME"),
		ValidArgsFunction: a.completePods(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("output", output, "text", "json"); err != nil {
				return err
			}
			return a.explain(cmd.Context(), args[0], output)
		},
	}
	outputFlag(cmd.Flags(), &output, "text", "output format: text or json (the ExplainResponse)")
	return cmd
}

func (a *app) explain(ctx context.Context, podName, output string) error {
	c, resp, err := a.explainPod(ctx, podName)
	if err != nil {
		return err
	}
	defer c.Close()
	if output == "json" {
		return writeJSON(a.out, resp)
	}
	return writeExplain(a.out, resp)
}

// explainPod dials berthd and explains the pod named NAMESPACE/NAME (or
// NAME, in "default"). The caller closes the client; on an error there is
// none.
func (a *app) explainPod(ctx context.Context, podName string) (*client, *berthv1.ExplainResponse, error) {
	ns, name, err := parsePodName(podName)
	if err != nil {
		return nil, nil, err
	}
	c, err := a.conn.dial()
	if err != nil {
		return nil, nil, err
	}
	callCtx, cancel := c.call(ctx)
	defer cancel()
	resp, err := c.admin.Explain(callCtx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: ns, Name: name}})
	if err != nil {
		err = a.notFoundHint(ctx, c, c.err(ctx, err, "pod "+ns+"/"+name))
		_ = c.Close()
		return nil, nil, err
	}
	return c, resp, nil
}

// writeExplain prints an ExplainResponse for people.
func writeExplain(w io.Writer, r *berthv1.ExplainResponse) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("Pod", podKey(r.GetPod()))
	row("UID", dash(r.GetPod().GetUid()))
	row("Scheduler", r.GetSchedulerName())
	row("Priority", fmt.Sprint(r.GetPriority()))
	row("Queue", stateName(r.GetState()))
	row("Attempts", fmt.Sprint(r.GetAttempts()))
	row("Enqueued", timeText(r.GetEnqueuedTime()))
	row("Last attempt", timeText(r.GetLastAttemptTime()))
	row("Next retry", nextRetry(r))
	row("Nominated node", dash(r.GetNominatedNode()))
	if n := r.GetNode(); n != "" {
		v := n
		if rev := r.GetBindRevision(); rev > 0 {
			v = fmt.Sprintf("%s (bind revision %d, waiting for the orchestrator to confirm it: berthctl confirm %s)", n, rev, podKey(r.GetPod()))
		}
		row("Node", v)
	}
	if f := r.GetLastBindFailure(); f != "" {
		row("Last bind failure", f)
	}
	if m := r.GetGatingMessage(); m != "" {
		row("Waiting", m)
	}
	if g := r.GetPodGroup(); g != nil {
		v := fmt.Sprintf("%s: does not exist (the pod waits for it)", g.GetName())
		if g.GetExists() {
			v = fmt.Sprintf("%s: min_count %d, %d members, %d placed", g.GetName(), g.GetMinCount(), g.GetMembers(), g.GetPlaced())
		}
		row("Pod group", v)
	}
	if wl := r.GetWorkload(); wl != nil {
		row("Workload", workloadText(wl))
		if m := wl.GetMessage(); m != "" {
			row("Quota", m)
		}
		if v := wl.GetVictims(); len(v) > 0 {
			row("Preempts", strings.Join(v, ", ")+" (admitted once their quota is released)")
		}
	}
	if ev := r.GetEviction(); ev != nil {
		row("Evicted", evictionText(ev))
	}
	if p := r.GetRejectingPlugins(); len(p) > 0 {
		row("Rejected by", strings.Join(p, ", "))
	}
	if req := r.GetRequests(); len(req) > 0 {
		row("Requests", requestsText(req))
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing: %w", err)
	}
	if err := writeDiagnosis(w, r.GetLastDiagnosis()); err != nil {
		return err
	}
	if err := writeShortfalls(w, r.GetShortfalls()); err != nil {
		return err
	}
	return writeDeviceReasons(w, r.GetDeviceReasons())
}

// workloadText is the pod's Kueue workload and where it stands:
// "team-a/pod-a4-32618 in LocalQueue lq (ClusterQueue cq-a): inadmissible",
// with the flavors an admitted one holds.
func workloadText(wl *berthv1.WorkloadStatus) string {
	v := wl.GetNamespace() + "/" + wl.GetName()
	switch {
	case wl.GetClusterQueue() != "":
		v += fmt.Sprintf(" in LocalQueue %s (ClusterQueue %s)", dash(wl.GetQueueName()), wl.GetClusterQueue())
	case wl.GetQueueName() != "":
		v += fmt.Sprintf(" in LocalQueue %s", wl.GetQueueName())
	}
	v += ": " + workloadStateText(wl.GetState())
	var flavors []string
	for _, ps := range wl.GetPodSets() {
		for _, res := range slices.Sorted(maps.Keys(ps.GetFlavors())) {
			flavors = append(flavors, ps.GetName()+"/"+res+"="+ps.GetFlavors()[res])
		}
	}
	if len(flavors) > 0 {
		v += " [" + strings.Join(flavors, ", ") + "]"
	}
	return v
}

// workloadStateText is how explain names a workload's state: whether quota
// holds the pod.
func workloadStateText(s berthv1.WorkloadState) string {
	switch s {
	case berthv1.WorkloadState_WORKLOAD_STATE_PENDING:
		return "pending, waiting for quota"
	case berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE:
		return "inadmissible, waiting for quota until something changes"
	case berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED:
		return "admitted (quota does not hold it)"
	case berthv1.WorkloadState_WORKLOAD_STATE_EVICTING:
		return "evicting: preempted, its pods are being evicted"
	}
	return "unknown"
}

// requestsText is a pod's requests by resource name: "cpu 2, memory 1Gi,
// pods 1".
func requestsText(req map[string]int64) string {
	var parts []string
	for _, res := range slices.Sorted(maps.Keys(req)) {
		parts = append(parts, res+" "+amountText(res, req[res]))
	}
	return strings.Join(parts, ", ")
}

// amountText is an amount of res as people write it: cores for cpu,
// binary units for memory and storage, counts for the rest.
func amountText(res string, v int64) string {
	switch res {
	case "cpu":
		return cores(v)
	case "memory", "ephemeral-storage":
		if v < 0 {
			return "-" + bytesText(-v)
		}
		return bytesText(v)
	}
	return strconv.FormatInt(v, 10)
}

// writeShortfalls prints, for the nodes the last attempt found short of a
// resource, the pod's request against each node's free room now: the
// numbers behind "Insufficient cpu".
func writeShortfalls(w io.Writer, nodes []*berthv1.NodeShortfall) error {
	if len(nodes) == 0 {
		return nil
	}
	// Judged now, not at the last attempt: pods may have come and gone.
	fmt.Fprintln(w, "\nResources short, as the nodes are now:")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tRESOURCE\tREQUESTED\tFREE\tALLOCATABLE")
	for _, n := range nodes {
		node := n.GetNode()
		for _, r := range n.GetResources() {
			res := r.GetResource()
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", node, res, amountText(res, r.GetRequested()), amountText(res, r.GetFree()), amountText(res, r.GetAllocatable()))
			node = "" // the node once, on its first line
		}
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// writeDiagnosis prints the last failed attempt: kube's message and each
// node's reasons.
func writeDiagnosis(w io.Writer, d *berthv1.Unschedulable) error {
	if d == nil {
		return nil
	}
	fmt.Fprintf(w, "\nLast diagnosis:\n  %s\n", d.GetMessage())
	if len(d.GetNodeReasons()) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tREASONS\tPREEMPTION")
	for _, nr := range d.GetNodeReasons() {
		pre := "may help"
		if nr.GetUnresolvable() {
			pre = "cannot help"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", nr.GetNode(), strings.Join(nr.GetReasons(), "; "), pre)
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// writeDeviceReasons prints, for the nodes DynamicResources rejected, which
// claim or request cannot be allocated there: one line per reason, since
// each names its claim and request and would not read joined. The server
// lists no more nodes than the diagnosis does.
func writeDeviceReasons(w io.Writer, nodes []*berthv1.NodeDeviceReasons) error {
	if len(nodes) == 0 {
		return nil
	}
	// Judged now, not at the last attempt: the devices may have moved since.
	fmt.Fprintln(w, "\nDevices, as they are now:")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tWHY THE CLAIMS CANNOT BE ALLOCATED")
	for _, n := range nodes {
		node := n.GetNode()
		for _, why := range n.GetReasons() {
			fmt.Fprintf(tw, "  %s\t%s\n", node, why)
			node = "" // the node once, on its first line
		}
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// nextRetry says when the queue will try the pod again.
func nextRetry(r *berthv1.ExplainResponse) string {
	switch r.GetState() {
	case berthv1.QueueState_QUEUE_STATE_ACTIVE:
		return "now (waiting in the active queue)"
	case berthv1.QueueState_QUEUE_STATE_BACKOFF:
		return "after the backoff, at " + timeText(r.GetBackoffUntil())
	case berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE:
		return "when a cluster change may help it, or once it has waited the maximum unschedulable time"
	case berthv1.QueueState_QUEUE_STATE_GATED:
		return "once its scheduling gates are removed"
	case berthv1.QueueState_QUEUE_STATE_SCHEDULING:
		return "being tried now"
	}
	return "-"
}

// stateName is a QueueState without its prefix, lower case: "backoff".
func stateName(s berthv1.QueueState) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "QUEUE_STATE_"))
}

func timeText(t *timestamppb.Timestamp) string {
	if t == nil {
		return "-"
	}
	return t.AsTime().UTC().Format(time.RFC3339)
}

// evictionText says why a pod was evicted: its cause, the reason in kube's
// words, and the preemptor or grace period where there is one.
func evictionText(ev *berthv1.Evict) string {
	cause := evictCauses[ev.GetCause()].text
	if cause == "" {
		cause = "evicted"
	}
	out := cause + " on " + ev.GetNode()
	if p := ev.GetPreemptor(); p != nil {
		out += " by " + podKey(p)
	}
	if ev.GracePeriodSeconds != nil {
		out += fmt.Sprintf(", grace period %ds", ev.GetGracePeriodSeconds())
	}
	if r := ev.GetReason(); r != "" {
		out += ": " + r
	}
	return out + " (terminating until the orchestrator deletes it)"
}
