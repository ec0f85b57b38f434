package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/placement"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/convert"
)

type simulateOptions struct {
	files      []string
	configFile string
	output     string
	progress   bool
	noThrottle bool
}

func (a *app) simulateCommand() *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate -f FILE... [--config FILE | --server ADDR] [-o json|text]",
		Short: "Schedule the pending pods of Kubernetes manifests deterministically, in-process or in berthd",
		Long: `simulate reads Kubernetes manifests (Nodes, Pods, PriorityClasses,
PodDisruptionBudgets, Namespaces, Lists, Services, the pods of Deployments,
ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers and Jobs, and
optionally one KubeSchedulerConfiguration) and schedules the pending pods
with Berth's scheduler, in-process unless --server is given (see below): in
queue order, one at a time, ties between equal-score nodes going to the
smallest node name. Documents that do not affect scheduling are listed on
standard error ("ignored: ...").

It answers where each pod would go once preemption has done its work, not
what berthd does next: the victims of a preemption are taken as gone at once
and the preemptor is retried immediately. Live, berthd only decides the
evictions; the preemptor waits, nominated, until the orchestrator has deleted
its victims.

With -o json (the default) it prints one JSON object per attempt, in the
trace format kube-scheduler's oracle prints (see core/simulate's package
documentation), so the two compare line by line:
  {"pod":"ns/name","result":"bound","node":"n2","feasible":[...],"scores":{...},...}
  {"pod":"ns/name","result":"nominated","node":"n3","victims":["ns/low1"],...}
  {"pod":"ns/name","result":"unschedulable","message":"0/4 nodes are available: ...",...}
  {"pod":"ns/name","result":"gated",...}
With Kueue objects (kueue.x-k8s.io ResourceFlavor, ClusterQueue, Cohort,
LocalQueue, WorkloadPriorityClass, Workload; pods and Jobs labelled
kueue.x-k8s.io/queue-name), the workloads are admitted first as Kueue 0.17
does, and one line per workload follows the pod lines, in kueueoracle's
format (see docs/queueing.md); a queued pod is placed only once admitted.
--queueing-progress turns on Berth's no-livelock rule (a preemptor whose
victims are gone is tried first), which Kueue does not have.
--queueing-no-throttle admits in one pass what Kueue's cycles (one head per
ClusterQueue each) admit once quiet, cohort tree by cohort tree; the
workload lines' cycles are then counted per tree. A ClusterQueue annotated
berth.dev/admission-placement: "true" admits a workload only when all its
pods also fit on the nodes now (the scheduler's filters, no preemption); its
line then carries the placement.

With pod groups (scheduling.k8s.io PodGroup, and GenericWorkload on, as by
default), one attempt per pod cannot show a gang: simulate then runs the
scheduling loop until nothing more can be placed, as kubeoracle's throughput
mode runs kube-scheduler's (binds confirmed and victims deleted at once, as an
orchestrator would), and prints where each pod ended, then one line per group
(see docs/gang-scheduling.md):
  {"pod":"ns/name","result":"bound","node":"n1","group":"ns/g"}
  {"pod":"ns/name","result":"unschedulable|gated|evicted","group":"ns/g","message":"..."}
  {"group":"ns/g","result":"bound|waiting","minCount":3,"members":4,"bound":0,"message":"..."}
Pod groups are simulated offline only (refused with --server).

-o text prints a table for people, with the assumption above written under it
when a pod preempted.

--config takes precedence over a KubeSchedulerConfiguration in the manifests.

With --server ADDR (given on the command line; $BERTH_SERVER alone does not
switch simulate to a server) the same simulation runs in berthd
(AdminService.Simulate) and prints the same trace: the manifests' objects
are sent as the simulation's cluster delta and their pending pods as the
pods to schedule. The simulation starts from a copy of what berthd holds:
on an empty berthd the trace is the offline one; otherwise the manifests'
objects are upserted on top (an object of the same kind and name replaces
berthd's), berthd's running pods take room, its pending pods are not
scheduled but their nominations keep room. Nothing is committed: berthd's
cluster, queue and decisions are untouched. berthd simulates with its own
configuration (its --scheduler-config): --config is refused with --server,
and a KubeSchedulerConfiguration in the manifests is not sent (a note says
so on standard error).

With Kueue objects, --server decides the admission live, in berthd's own
admission controller, which commits real decisions: it therefore needs a
berthd holding no node, pod or ClusterQueue (a berthd of its own, for
example berthd --deterministic). simulate sends every object of the
manifests, plays the orchestrator (a Bind is confirmed by sending the pod
again with its node, an evicted pod is deleted, so berthd admits a
preemptor once its victims are gone), waits until berthd has settled (no
admission round pending, then no pod active, in backoff, being scheduled or
binding, then every decision made so far handled), reads the workloads'
state (AdminService.ListQueueObjects), deletes what it sent and simulates
the pods as above with those admissions. The workload lines are offline's
with --queueing-no-throttle --queueing-progress (berthd's rounds), without
the cycle counts (cycle, preemptedCycle, preemptions); see docs/queueing.md
for what else differs. berthd admits with its own --kueue-config (Kueue's
Configuration in the manifests is not sent); placement-aware admission is
offline only.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.simulate(cmd, &o)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.files, "filename", "f", nil, "manifest file, directory (its *.yaml, *.yml, *.json) or - for standard input; repeatable")
	fs.StringVar(&o.configFile, "config", "", "KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)")
	outputFlag(fs, &o.output, "json", "output format: json (one trace object per line) or text")
	fs.BoolVar(&o.progress, "queueing-progress", false, "Berth's no-livelock rule for Kueue admission: a preemptor whose victims are gone is tried first (Kueue's behaviour without it)")
	fs.BoolVar(&o.noThrottle, "queueing-no-throttle", false, "Berth's no-throttle admission: one pass admits what Kueue's cycles admit once quiet, cohort tree by cohort tree (Kueue's cycle-by-cycle trace without it)")
	return cmd
}

func (a *app) simulate(cmd *cobra.Command, o *simulateOptions) error {
	if err := oneOf("output", o.output, "json", "text"); err != nil {
		return err
	}
	remote := cmd.Flags().Changed("server")
	if remote && o.configFile != "" {
		return usageErrorf("--config cannot be used with --server: berthd simulates with its own --scheduler-config")
	}
	paths, err := manifestPaths(o.files)
	if err != nil {
		return err
	}
	srcs, err := readSources(paths, a.in)
	if err != nil {
		return err
	}
	c, err := loadCluster(srcs)
	if err != nil {
		return err
	}
	reportIgnored(a.err, c)
	reportWarnings(a.err, c)
	if remote && len(c.PodGroups) > 0 {
		return failedf("pod groups (scheduling.k8s.io PodGroup) are simulated offline only: berthd's Simulate gives each pod one attempt, and a gang needs the scheduling loop; run without --server")
	}
	// Admission comes first: a queued pod is placed only once its
	// workload is admitted, with its flavor's labels and tolerations.
	var workloads []admission.Line
	switch {
	case c.Queueing != nil && remote:
		if wantsPlacement(c) {
			return failedf("placement-aware admission (berth.dev/admission-placement) is simulated offline only; run without --server")
		}
		if o.progress || o.noThrottle {
			fmt.Fprintln(a.err, "berthctl: note: berthd always admits with the no-livelock rule and no throttle (--queueing-progress, --queueing-no-throttle)")
		}
		if workloads, err = a.admitInBerthd(cmd.Context(), c); err != nil {
			return err
		}
		c.Pods = admission.ApplyToPods(c.Queueing, workloads, c.Pods)
	case c.Queueing != nil:
		opts := admission.Options{Progress: o.progress, NoThrottle: o.noThrottle}
		if wantsPlacement(c) {
			if opts.Placement, err = a.placementChecker(cmd.Context(), o, c); err != nil {
				return err
			}
		}
		if workloads, err = a.admitOffline(cmd.Context(), c, opts); err != nil {
			return err
		}
		c.Pods = admission.ApplyToPods(c.Queueing, workloads, c.Pods)
	}
	if len(c.PodGroups) > 0 && !remote {
		in, opts, what, err := a.offlineInput(o, c)
		if err != nil {
			return err
		}
		if gangs(c, in) {
			res, err := a.simulateGroups(cmd.Context(), c, in, what, opts)
			if err != nil {
				return err
			}
			if o.output == "text" {
				if err := writeGroupsText(a.out, res); err != nil {
					return err
				}
				return writeAdmissionText(a.out, workloads)
			}
			if err := writeGroupsJSON(a.out, res); err != nil {
				return err
			}
			return writeAdmissionJSON(a.out, workloads)
		}
	}
	var lines []simulate.Line
	if remote {
		lines, err = a.simulateInBerthd(cmd.Context(), c)
	} else {
		lines, err = a.simulateOffline(cmd.Context(), o, c)
	}
	if err != nil {
		return err
	}
	if o.output == "text" {
		if err := writeTraceText(a.out, lines); err != nil {
			return err
		}
		return writeAdmissionText(a.out, workloads)
	}
	if err := writeTraceJSON(a.out, lines); err != nil {
		return err
	}
	return writeAdmissionJSON(a.out, workloads)
}

// offlineInput is the simulation's input and options for c; what names
// where its scheduler configuration came from.
func (a *app) offlineInput(o *simulateOptions, c *manifest.Cluster) (simulate.Input, simulate.Options, string, error) {
	reg := registry.InTree()
	cfg, what, err := a.loadConfig(o.configFile, c, reg)
	if err != nil {
		return simulate.Input{}, simulate.Options{}, "", err
	}
	in := simulate.Input{
		Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses,
		PDBs: c.PDBs, Namespaces: c.Namespaces, Devices: c.Devices, Volumes: c.Volumes, Config: cfg,
	}
	return in, simulate.Options{Registry: reg}, what, nil
}

// simulateOffline runs the simulation in-process.
func (a *app) simulateOffline(ctx context.Context, o *simulateOptions, c *manifest.Cluster) ([]simulate.Line, error) {
	in, opts, what, err := a.offlineInput(o, c)
	if err != nil {
		return nil, err
	}
	lines, err := simulate.Run(ctx, in, opts)
	return lines, simulateError(err, what)
}

// simulateError words an error of core/simulate for the user.
func simulateError(err error, what string) error {
	if ce := (*simulate.ConfigError)(nil); errors.As(err, &ce) && what != "" {
		return failedf("%s: %w", what, ce.Err)
	}
	if err != nil {
		return failedf("%w", err)
	}
	return nil
}

// wantsPlacement says whether a ClusterQueue of c asks for Berth's
// placement-aware admission.
func wantsPlacement(c *manifest.Cluster) bool {
	return slices.ContainsFunc(c.Queueing.ClusterQueues, func(q *quota.ClusterQueue) bool { return q.AdmissionPlacement })
}

// placementChecker is the scheduler's word on whether an admitted
// workload's pods fit the manifests' nodes now.
func (a *app) placementChecker(ctx context.Context, o *simulateOptions, c *manifest.Cluster) (admission.PlacementChecker, error) {
	in, opts, what, err := a.offlineInput(o, c)
	if err != nil {
		return nil, err
	}
	// The manifests' cluster without its pending pods: admission asks
	// whether a workload fits beside what runs.
	in.Pods = nil
	for _, p := range c.Pods {
		if p.NodeName != "" {
			in.Pods = append(in.Pods, p)
		}
	}
	p, err := placement.New(ctx, in, opts)
	if err != nil {
		return nil, simulateError(err, what)
	}
	return p, nil
}

// simulateInBerthd runs the simulation in berthd (AdminService.Simulate):
// the manifests' objects are the cluster delta, their pending pods the
// pods to schedule, in the order the offline simulation loads them.
func (a *app) simulateInBerthd(ctx context.Context, c *manifest.Cluster) ([]simulate.Line, error) {
	if c.SchedulerConfig != nil {
		fmt.Fprintf(a.err, "berthctl: not sent: %s (KubeSchedulerConfiguration): berthd simulates with its own --scheduler-config\n", c.SchedulerConfigAt)
	}
	req := &berthv1.SimulateRequest{}
	for _, o := range clusterObjects(c, true) {
		if o.Pod != nil && o.Pod.NodeName == "" {
			req.Pods = append(req.Pods, convert.PodToProto(o.Pod))
			continue
		}
		req.ClusterDelta = append(req.ClusterDelta, convert.ObjectToProto(o))
	}
	cl, err := a.conn.dial()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	callCtx, cancel := cl.call(ctx)
	defer cancel()
	resp, err := cl.admin.Simulate(callCtx, req)
	if err != nil {
		return nil, cl.err(ctx, err, "")
	}
	lines := make([]simulate.Line, len(resp.GetAttempts()))
	for i, at := range resp.GetAttempts() {
		lines[i] = convert.SimulateLineFromProto(at)
	}
	return lines, nil
}

// loadConfig is the scheduler configuration: --config, else the one in the
// manifests, else the default; what names where it came from for messages
// ("" for the default). Plugins the configuration enables but this build
// lacks are left out with a warning.
func (a *app) loadConfig(file string, c *manifest.Cluster, reg runtime.Registry) (cfg *config.Config, what string, err error) {
	raw := c.SchedulerConfig
	if raw != nil {
		what = c.SchedulerConfigAt.String() + " (KubeSchedulerConfiguration)"
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, "", failedf("reading --config: %w", err)
		}
		if raw != nil {
			fmt.Fprintf(a.err, "berthctl: ignored: %s: --config %s takes precedence\n", what, file)
		}
		raw, what = data, "--config "+file
	}
	cfg = config.Default()
	if raw != nil {
		if cfg, err = config.Load(raw); err != nil {
			return nil, "", failedf("%s: %w", what, err)
		}
	}
	if missing := dropUnregistered(cfg, reg); len(missing) > 0 {
		fmt.Fprintf(a.err, "berthctl: warning: this build has no %s plugin; simulating without it\n", strings.Join(missing, ", "))
	}
	return cfg, what, nil
}

// dropUnregistered removes from cfg's profiles the plugins reg lacks and
// returns their names, sorted.
func dropUnregistered(cfg *config.Config, reg runtime.Registry) []string {
	var missing []string
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i].Plugins
		for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
			set := p.Set(point)
			set.Enabled = slices.DeleteFunc(set.Enabled, func(pl config.Plugin) bool {
				_, ok := reg[pl.Name]
				if !ok && !slices.Contains(missing, pl.Name) {
					missing = append(missing, pl.Name)
				}
				return !ok
			})
		}
	}
	slices.Sort(missing)
	return missing
}

// writeTraceJSON prints one line per attempt, encoded as kubeoracle does.
func writeTraceJSON(w io.Writer, lines []simulate.Line) error {
	enc := json.NewEncoder(w)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return failedf("writing the trace: %w", err)
		}
	}
	return nil
}

// writeTraceText prints the attempts as a table.
func writeTraceText(w io.Writer, lines []simulate.Line) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POD\tRESULT\tNODE\tDETAIL")
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Pod, l.Result, dash(l.Node), traceDetail(l))
	}
	if err := tw.Flush(); err != nil {
		return failedf("writing the trace: %w", err)
	}
	if slices.ContainsFunc(lines, func(l simulate.Line) bool { return l.Result == simulate.ResultNominated }) {
		fmt.Fprintln(w, "\n"+preemptionAssumption)
	}
	return nil
}

// preemptionAssumption is what a nominated line's retry takes for granted.
const preemptionAssumption = "Assumed: preemption victims are gone at once and the preemptor is retried immediately. " +
	"Live, berthd decides the evictions and the preemptor waits, nominated, until the orchestrator deletes its victims."

func traceDetail(l simulate.Line) string {
	switch l.Result {
	case simulate.ResultBound:
		var parts []string
		if !l.ScoresReportOnly && l.Scores != nil {
			parts = append(parts, fmt.Sprintf("score %d", l.Scores[l.Node]))
		}
		parts = append(parts, fmt.Sprintf("%d feasible", len(l.Feasible)))
		if len(l.TopNodes) > 1 {
			parts = append(parts, "tie with "+strings.Join(slices.DeleteFunc(slices.Clone(l.TopNodes), func(n string) bool { return n == l.Node }), ","))
		}
		if l.ViaNominatedNode {
			parts = append(parts, "via nominated node")
		}
		for _, entry := range slices.Sorted(maps.Keys(l.Claims)) {
			c := l.Claims[entry]
			parts = append(parts, fmt.Sprintf("claim %s=%s: %s", entry, c.Claim, strings.Join(c.Devices, ",")))
		}
		return strings.Join(parts, "; ")
	case simulate.ResultNominated:
		return "victims " + strings.Join(l.Victims, ",")
	case simulate.ResultDeallocated:
		return "deallocated " + strings.Join(l.Deallocated, ",") + "; " + l.Message
	}
	return l.Message
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
