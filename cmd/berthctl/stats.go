package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func (a *app) statsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Report node usage (kubelet Summaries) for node-pressure eviction",
	}
	cmd.AddCommand(a.statsPushCommand())
	return cmd
}

func (a *app) statsPushCommand() *cobra.Command {
	var files []string
	var output string
	cmd := &cobra.Command{
		Use:   "push -f SUMMARY.json...",
		Short: "Send kubelet Summaries to berthd (StatsService.ReportNodeStats)",
		Long: `stats push sends each file, a kubelet Summary (the stats/v1alpha1 JSON the
kubelet serves at /stats/summary) of the node named in its node.nodeName, to
berthd, in the order given, one report per file. berthd runs the kubelet's
node-pressure eviction manager on each: it prints the node's pressure
conditions and the pod it evicted, if any (at most one per report), with the
grace period and the kubelet's message. "-" reads one Summary from stdin.

Exit codes: 0 every file was reported; 1 a file is unreadable or berthd refused
it (a malformed Summary, a pod that is not on that node); 4 berthd holds no
node of that name; 3 berthd is unreachable. Files after a failed one are not
sent.

-o json prints one ReportNodeStatsResponse per file. ` + jsonShape,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return usageErrorf("stats push needs -f SUMMARY.json (one or more)")
			}
			if err := oneOf("output", output, "text", "json"); err != nil {
				return err
			}
			return a.statsPush(cmd.Context(), files, output)
		},
	}
	cmd.Flags().StringSliceVarP(&files, "filename", "f", nil, "kubelet Summary JSON files, one per node and observation (\"-\": stdin)")
	outputFlag(cmd.Flags(), &output, "text", "output format: text or json (the ReportNodeStatsResponse)")
	return cmd
}

func (a *app) statsPush(ctx context.Context, files []string, output string) error {
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	for _, f := range files {
		data, err := a.readSummary(f)
		if err != nil {
			return err
		}
		callCtx, cancel := c.call(ctx)
		resp, err := c.ReportNodeStats(callCtx, data)
		cancel()
		if err != nil {
			return c.err(ctx, err, "")
		}
		if output == "json" {
			err = writeJSON(a.out, resp)
		} else {
			err = writeStatsReport(a.out, f, resp)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *app) readSummary(f string) ([]byte, error) {
	if f == "-" {
		return io.ReadAll(a.in)
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, failedf("reading -f: %w", err)
	}
	return data, nil
}

// writeStatsReport prints one report for people:
//
//	n1.json: node n1: MemoryPressure (memory.available<100Mi)
//	  evicted default/web-a (grace 1s): The node was low on resource: memory. ...
func writeStatsReport(w io.Writer, file string, r *berthv1.ReportNodeStatsResponse) error {
	p := r.GetPressure()
	conds := "no pressure"
	if len(p.GetConditions()) > 0 {
		conds = strings.Join(p.GetConditions(), ",")
	}
	if len(p.GetThresholdsMet()) > 0 {
		conds += " (" + strings.Join(p.GetThresholdsMet(), ", ") + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: node %s: %s\n", file, p.GetNode(), conds)
	if r.GetStale() {
		b.WriteString("  stale: the Summary's measurements are too old; nothing changed\n")
	}
	if e := r.GetEvict(); e != nil {
		fmt.Fprintf(&b, "  evicted %s/%s (grace %ds): %s\n", e.GetVictim().GetNamespace(), e.GetVictim().GetName(),
			e.GetGracePeriodSeconds(), strings.TrimSpace(e.GetReason()))
	}
	if r.GetAmbiguous() {
		b.WriteString("  note: several thresholds were met at once; the kubelet's choice among them is unspecified\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
