package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/core/simulate/fullloop"
)

// gangs says whether simulate runs c through the full scheduling loop:
// it has pod groups and the configuration schedules them as gangs
// (GenericWorkload, on by default).
func gangs(c *manifest.Cluster, in simulate.Input) bool {
	return len(c.PodGroups) > 0 && (in.Config == nil || in.Config.FeatureGates.Enabled(features.GenericWorkload))
}

// simulateGroups runs in, with c's pod groups, through the scheduling loop
// until nothing more can be placed (core/simulate/fullloop), as
// kubeoracle's throughput mode runs kube-scheduler's; what names the
// configuration's origin for errors.
func (a *app) simulateGroups(ctx context.Context, c *manifest.Cluster, in simulate.Input, what string, opts simulate.Options) (*fullloop.Result, error) {
	res, err := fullloop.Run(ctx, fullloop.Input{
		Nodes: in.Nodes, Pods: in.Pods, PriorityClasses: in.PriorityClasses, PodGroups: c.PodGroups,
		Namespaces: in.Namespaces, PDBs: in.PDBs, Config: in.Config,
	}, fullloop.Options{Registry: opts.Registry})
	if ce := (*fullloop.ConfigError)(nil); errors.As(err, &ce) && what != "" {
		return nil, failedf("%s: %w", what, ce.Err)
	}
	if err != nil {
		return nil, failedf("%w", err)
	}
	if res.Stalled {
		fmt.Fprintf(a.err, "berthctl: warning: the scheduling loop stopped after %d cycles with pods still to try\n", res.Cycles)
	}
	return res, nil
}

// writeGroupsJSON prints one line per pod, then one per pod group.
func writeGroupsJSON(w io.Writer, res *fullloop.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range res.Pods {
		if err := enc.Encode(l); err != nil {
			return failedf("writing the trace: %w", err)
		}
	}
	for _, g := range res.Groups {
		if err := enc.Encode(g); err != nil {
			return failedf("writing the groups: %w", err)
		}
	}
	return nil
}

// writeGroupsText prints the pods, then the groups, as tables.
func writeGroupsText(w io.Writer, res *fullloop.Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POD\tRESULT\tNODE\tGROUP\tDETAIL")
	for _, l := range res.Pods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Pod, l.Result, dash(l.Node), dash(l.Group), l.Message)
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing the trace: %w", err)
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tRESULT\tBOUND/MIN\tMEMBERS\tDETAIL")
	for _, g := range res.Groups {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%s\n", g.Group, g.Result, g.Bound, g.MinCount, g.Members, g.Message)
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing the groups: %w", err)
	}
	return nil
}
