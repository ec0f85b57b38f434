package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// queueKinds are get's and delete's names of the queueing (Kueue) kinds:
// plural, singular and Kueue's short names (kubectl's spelling). Kueue's
// "queue" for LocalQueues is get queue's already, so only lq is taken.
var queueKinds = map[string]berthv1.ObjectKind{
	"resourceflavors": berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, "resourceflavor": berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR,
	"rf": berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, "flavors": berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, "flavor": berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR,
	"clusterqueues": berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, "clusterqueue": berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE,
	"cq":      berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE,
	"cohorts": berthv1.ObjectKind_OBJECT_KIND_COHORT, "cohort": berthv1.ObjectKind_OBJECT_KIND_COHORT,
	"localqueues": berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, "localqueue": berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE,
	"lq":                      berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE,
	"workloadpriorityclasses": berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, "workloadpriorityclass": berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS,
	"wpc":       berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS,
	"workloads": berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, "workload": berthv1.ObjectKind_OBJECT_KIND_WORKLOAD,
	"wl": berthv1.ObjectKind_OBJECT_KIND_WORKLOAD,
}

// getQueueObjects lists the queueing objects of kind (ListQueueObjects).
func (a *app) getQueueObjects(kind berthv1.ObjectKind) func(context.Context, *client, *getOptions) error {
	return func(ctx context.Context, c *client, o *getOptions) error {
		ns := o.namespace
		if kind != berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE && kind != berthv1.ObjectKind_OBJECT_KIND_WORKLOAD {
			ns = ""
		}
		list := func(kind berthv1.ObjectKind) (*berthv1.ListQueueObjectsResponse, error) {
			callCtx, cancel := c.call(ctx)
			defer cancel()
			resp, err := c.admin.ListQueueObjects(callCtx, &berthv1.ListQueueObjectsRequest{Kind: kind, Namespace: ns})
			if err != nil {
				return nil, c.err(ctx, err, "")
			}
			return resp, nil
		}
		resp, err := list(kind)
		if err != nil {
			return err
		}
		if len(resp.GetObjects())+len(resp.GetWorkloadStatuses()) == 0 {
			a.emptyHint(ctx, c, queueKindPlural(kind))
		}
		if o.output != "text" {
			return writeStructured(a.out, o.output, resp)
		}
		// LocalQueues' counts are their workloads' (the controller's
		// status of workloads), as Kueue's LocalQueue status counts them.
		var workloads []*berthv1.WorkloadStatus
		if kind == berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE {
			wl, err := list(berthv1.ObjectKind_OBJECT_KIND_WORKLOAD)
			if err != nil {
				return err
			}
			workloads = wl.GetWorkloadStatuses()
		}
		now := a.clock()
		return writeTable(a.out, func(tw io.Writer) { queueTable(tw, kind, resp, workloads, now) })
	}
}

// queueKindPlural is how an empty listing names the kind ("cluster queues").
func queueKindPlural(kind berthv1.ObjectKind) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(kind.String(), "OBJECT_KIND_"), "_", " ")) + "s"
}

func queueTable(tw io.Writer, kind berthv1.ObjectKind, resp *berthv1.ListQueueObjectsResponse, workloads []*berthv1.WorkloadStatus, now time.Time) {
	objs := resp.GetObjects()
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:
		fmt.Fprintln(tw, "NAME\tNODE LABELS\tNODE TAINTS\tTOLERATIONS")
		for _, obj := range objs {
			f := obj.GetResourceFlavor()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", f.GetName(), dash(labelsText(f.GetNodeLabels())), dash(taintsText(f.GetNodeTaints())), len(f.GetTolerations()))
		}
	case berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:
		status := map[string]*berthv1.ClusterQueueStatus{}
		for _, s := range resp.GetClusterQueueStatuses() {
			status[s.GetName()] = s
		}
		fmt.Fprintln(tw, "NAME\tCOHORT\tSTRATEGY\tPENDING WORKLOADS\tADMITTED WORKLOADS\tUSAGE")
		for _, obj := range objs {
			cq := obj.GetClusterQueue()
			pending, admitted, usage := "-", "-", quotaText(cq.GetResourceGroups())
			if s, ok := status[cq.GetName()]; ok {
				pending, admitted = strconv.Itoa(int(s.GetPendingWorkloads())), strconv.Itoa(int(s.GetAdmittedWorkloads()))
				usage = usageText(s.GetResources())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cq.GetName(), dash(cq.GetCohort()), strategyText(cq.GetQueueingStrategy()), pending, admitted, dash(usage))
		}
	case berthv1.ObjectKind_OBJECT_KIND_COHORT:
		fmt.Fprintln(tw, "NAME\tPARENT\tQUOTA")
		for _, obj := range objs {
			c := obj.GetCohort()
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.GetName(), dash(c.GetParent()), dash(quotaText(c.GetResourceGroups())))
		}
	case berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:
		type counts struct{ pending, admitted int }
		byQueue := map[string]*counts{}
		for _, w := range workloads {
			key := w.GetNamespace() + "/" + w.GetQueueName()
			if byQueue[key] == nil {
				byQueue[key] = &counts{}
			}
			switch w.GetState() {
			case berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED, berthv1.WorkloadState_WORKLOAD_STATE_EVICTING:
				byQueue[key].admitted++
			case berthv1.WorkloadState_WORKLOAD_STATE_PENDING, berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE:
				byQueue[key].pending++
			}
		}
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tCLUSTERQUEUE\tPENDING WORKLOADS\tADMITTED WORKLOADS")
		for _, obj := range objs {
			lq := obj.GetLocalQueue()
			pending, admitted := "-", "-"
			if len(workloads) > 0 {
				n := byQueue[lq.GetNamespace()+"/"+lq.GetName()]
				if n == nil {
					n = &counts{}
				}
				pending, admitted = strconv.Itoa(n.pending), strconv.Itoa(n.admitted)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", lq.GetNamespace(), lq.GetName(), lq.GetClusterQueue(), pending, admitted)
		}
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS:
		fmt.Fprintln(tw, "NAME\tVALUE\tDESCRIPTION")
		for _, obj := range objs {
			pc := obj.GetWorkloadPriorityClass()
			fmt.Fprintf(tw, "%s\t%d\t%s\n", pc.GetName(), pc.GetValue(), dash(pc.GetDescription()))
		}
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		workloadTable(tw, objs, resp.GetWorkloadStatuses(), now)
	}
}

// workloadTable lists the workloads the controller knows, with the
// explicit ones held it does not know (yet) as they were sent.
func workloadTable(tw io.Writer, objs []*berthv1.Object, statuses []*berthv1.WorkloadStatus, now time.Time) {
	type row struct {
		ns, name, queue, admittedBy, state, origin, priority, age, message string
	}
	rows := map[string]row{}
	for _, obj := range objs {
		w := obj.GetWorkload()
		priority := "-"
		if w.Priority != nil {
			priority = strconv.Itoa(int(w.GetPriority()))
		}
		rows[w.GetNamespace()+"/"+w.GetName()] = row{ns: w.GetNamespace(), name: w.GetName(), queue: dash(w.GetQueueName()), admittedBy: "-",
			state: "-", origin: "explicit", priority: priority, age: age(now, w.GetCreationTime()), message: "-"}
	}
	for _, s := range statuses {
		r := row{ns: s.GetNamespace(), name: s.GetName(), queue: dash(s.GetQueueName()), admittedBy: "-",
			state: phaseText(s.GetState().String(), "WORKLOAD_STATE_", "-"), origin: originText(s.GetOrigin()),
			priority: strconv.Itoa(int(s.GetPriority())), age: age(now, s.GetCreationTime()), message: dash(s.GetMessage())}
		if st := s.GetState(); st == berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED || st == berthv1.WorkloadState_WORKLOAD_STATE_EVICTING {
			r.admittedBy = dash(s.GetClusterQueue())
		}
		rows[s.GetNamespace()+"/"+s.GetName()] = r
	}
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tQUEUE\tADMITTED BY\tSTATE\tPRIORITY\tORIGIN\tAGE\tMESSAGE")
	for _, key := range slices.Sorted(maps.Keys(rows)) {
		r := rows[key]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ns, r.name, r.queue, r.admittedBy, r.state, r.priority, r.origin, r.age, r.message)
	}
}

func originText(o berthv1.WorkloadOrigin) string {
	switch o {
	case berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD:
		return "pod"
	case berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD_GROUP:
		return "podgroup"
	case berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_EXPLICIT:
		return "explicit"
	case berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_OWNER:
		return "owner"
	}
	return "-"
}

func strategyText(s berthv1.QueueingStrategy) string {
	if s == berthv1.QueueingStrategy_QUEUEING_STRATEGY_STRICT_FIFO {
		return "StrictFIFO"
	}
	return "BestEffortFIFO"
}

// quotaText lists nominal quotas, flavor/resource=nominal.
func quotaText(groups []*berthv1.ResourceGroup) string {
	var out []string
	for _, g := range groups {
		for _, f := range g.GetFlavors() {
			for _, r := range f.GetResources() {
				out = append(out, f.GetName()+"/"+r.GetName()+"="+amountText(r.GetName(), r.GetNominalQuota()))
			}
		}
	}
	return strings.Join(out, ",")
}

// usageText lists usage against nominal quota, flavor/resource=usage/nominal,
// with what is borrowed.
func usageText(res []*berthv1.FlavorResourceUsage) string {
	var out []string
	for _, r := range res {
		s := fmt.Sprintf("%s/%s=%s/%s", r.GetFlavor(), r.GetResource(), amountText(r.GetResource(), r.GetUsage()), amountText(r.GetResource(), r.GetNominal()))
		if r.GetBorrowed() > 0 {
			s += " (borrowed " + amountText(r.GetResource(), r.GetBorrowed()) + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func labelsText(m map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return strings.Join(out, ",")
}
