package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// listPageSize is the page size of the list calls (the server's maximum).
const listPageSize = 1000

type getOptions struct {
	output        string
	schedulerName string
	labels        map[string]string
}

func (a *app) getCommand() *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get (pending | nodes | nominations | queue) [-o text|json]",
		Short: "List what berthd holds: pending pods, nodes and their use, nominations, queue counts",
		Long: `get lists, from berthd's AdminService:
  pending      the pods not bound yet (ListPending, every page), by namespace and name
  nodes        the nodes with what their pods request against what they offer
               (ListNodes): cpu, memory and pods used/allocatable and in percent,
               pods nominated there, taints, and SchedulingDisabled when cordoned
  nominations  the nominations in force (ListNominations); RESTORED marks those
               reloaded from berthd's store whose pods were not re-sent yet
  queue        the number of pods in each state and the attempts made (QueueStats)

-o json prints the API's response message, all pages merged (ListPendingResponse,
ListNodesResponse, ListNominationsResponse or QueueStatsResponse). ` + jsonShape,
		Args: exactArgs(1, "what to list: pending, nominations, queue or nodes"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("output", o.output, "text", "json"); err != nil {
				return err
			}
			return a.get(cmd.Context(), args[0], &o)
		},
	}
	fs := cmd.Flags()
	outputFlag(fs, &o.output, "text", "output format: text or json")
	fs.StringVar(&o.schedulerName, "scheduler-name", "", "pending, queue: only this scheduling profile")
	fs.StringToStringVarP(&o.labels, "selector", "l", nil, "nodes: only nodes with these labels (key=value,...)")
	return cmd
}

func (a *app) get(ctx context.Context, what string, o *getOptions) error {
	var do func(context.Context, *client, *getOptions) error
	switch what {
	case "pending", "pods":
		do = a.getPending
	case "nominations":
		do = a.getNominations
	case "queue":
		do = a.getQueue
	case "nodes", "node":
		do = a.getNodes
	default:
		return usageErrorf("get: unknown resource %q: use pending, nominations, queue or nodes", what)
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	return do(ctx, c, o)
}

func (a *app) getPending(ctx context.Context, c *client, o *getOptions) error {
	all := &berthv1.ListPendingResponse{}
	token := ""
	for {
		callCtx, cancel := c.call(ctx)
		resp, err := c.admin.ListPending(callCtx, &berthv1.ListPendingRequest{PageSize: listPageSize, PageToken: token, SchedulerName: o.schedulerName})
		cancel()
		if err != nil {
			return c.err(ctx, err, "")
		}
		all.Pods = append(all.Pods, resp.GetPods()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if o.output == "json" {
		return writeJSON(a.out, all)
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
	if o.output == "json" {
		return writeJSON(a.out, all)
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
	if o.output == "json" {
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
	if o.output == "json" {
		return writeJSON(a.out, all)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAME\tSTATUS\tCPU\tCPU%\tMEMORY\tMEMORY%\tPODS\tPODS%\tNOMINATED\tTAINTS")
		for _, n := range all.GetNodes() {
			req, alloc := n.GetRequested(), n.GetAllocatable()
			status := "Ready"
			if n.GetUnschedulable() {
				status = "SchedulingDisabled"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s/%s\t%s\t%d/%d\t%s\t%d\t%d\n", n.GetName(), status,
				cpuPair(req["cpu"], alloc["cpu"]), percent(req["cpu"], alloc["cpu"]),
				bytesText(req["memory"]), bytesText(alloc["memory"]), percent(req["memory"], alloc["memory"]),
				req["pods"], alloc["pods"], percent(req["pods"], alloc["pods"]),
				n.GetNominatedPodCount(), len(n.GetTaints()))
		}
	})
}

// cpuPair is used/allocatable millicores as Kubernetes writes cpu, in the
// same unit on both sides: "1/4" cores, else "1500m/4000m".
func cpuPair(used, alloc int64) string {
	if used%1000 == 0 && alloc%1000 == 0 {
		return fmt.Sprintf("%d/%d", used/1000, alloc/1000)
	}
	return fmt.Sprintf("%dm/%dm", used, alloc)
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
