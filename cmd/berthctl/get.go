package main

import (
	"context"
	"fmt"
	"io"
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
}

func (a *app) getCommand() *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get (pending | nominations | queue | nodes) [-o text|json]",
		Short: "List what berthd holds: pending pods, nominations, queue counts",
		Long: `get lists, from berthd's AdminService:
  pending      the pods not bound yet (ListPending, every page), by namespace and name
  nominations  the nominations in force (ListNominations)
  queue        the number of pods in each state and the attempts made (QueueStats)
  nodes        nodes with their utilization: not yet possible, the berth.v1 API
               has no call listing nodes
-o json prints the API's response message (all pages merged) as JSON.`,
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
	case "nodes":
		return failedf("get nodes: berthd's API (berth.v1) has no call listing nodes and their use yet")
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
		return writeProtoJSON(a.out, all)
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
		return writeProtoJSON(a.out, all)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tNODE\tPRIORITY\tREVISION")
		for _, n := range all.GetNominations() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", n.GetPod().GetNamespace(), n.GetPod().GetName(), n.GetNode(), n.GetPriority(), n.GetRevision())
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
		return writeProtoJSON(a.out, s)
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
