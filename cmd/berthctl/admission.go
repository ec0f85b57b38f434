package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

// admitOffline runs Kueue's admission over the manifests' Kueue objects,
// as kueueoracle does; the summary goes to standard error as the
// oracle's does.
func (a *app) admitOffline(ctx context.Context, c *manifest.Cluster, o admission.Options) ([]admission.Line, error) {
	lines, sum, err := admission.RunWith(ctx, c.Queueing, c.Namespaces, o)
	if err != nil {
		return nil, failedf("queueing: %w", err)
	}
	fmt.Fprintf(a.err, "berthctl: queueing: %d admission cycle(s); stopped: %s\n", sum.Cycles, sum.Reason)
	return lines, nil
}

// writeAdmissionJSON prints one line per workload in kueueoracle's format.
func writeAdmissionJSON(w io.Writer, lines []admission.Line) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return failedf("writing the workloads: %w", err)
		}
	}
	return nil
}

// writeAdmissionText prints the workloads as a table.
func writeAdmissionText(w io.Writer, lines []admission.Line) error {
	if len(lines) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tRESULT\tCLUSTERQUEUE\tDETAIL")
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Workload, l.Result, dash(l.ClusterQueue), admissionDetail(l))
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing the workloads: %w", err)
	}
	return nil
}

func admissionDetail(l admission.Line) string {
	var parts []string
	if len(l.Flavors) > 0 {
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(l.Flavors)) {
			fs = append(fs, k+"="+l.Flavors[k])
		}
		parts = append(parts, strings.Join(fs, ","))
	}
	if len(l.Counts) > 0 {
		var cs []string
		for _, k := range slices.Sorted(maps.Keys(l.Counts)) {
			cs = append(cs, fmt.Sprintf("%s=%d pods", k, l.Counts[k]))
		}
		parts = append(parts, "partial "+strings.Join(cs, ","))
	}
	if len(l.Victims) > 0 {
		parts = append(parts, "victims "+strings.Join(l.Victims, ","))
	}
	if l.PreemptedBy != "" {
		parts = append(parts, fmt.Sprintf("preempted by %s (%s)", l.PreemptedBy, l.PreemptionReason))
	}
	if l.Message != "" && l.Result != admission.ResultPreempted {
		parts = append(parts, l.Message)
	}
	return strings.Join(parts, "; ")
}
