package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/server/convert"
)

// settlePoll is how often admitInBerthd asks berthd whether it settled.
const settlePoll = 10 * time.Millisecond

// admitInBerthd decides the admission of c's workloads live in berthd: it
// sends every object of the manifests, plays the orchestrator (a Bind is
// confirmed by sending the pod again with its node, an Evicted pod is
// deleted) until berthd has settled (see settled), reads the workloads'
// state (AdminService.ListQueueObjects), and deletes what it sent. It
// needs a berthd that holds no node, pod or ClusterQueue: the run commits
// real decisions, and on a berthd serving an orchestrator it would bind
// that orchestrator's pods.
func (a *app) admitInBerthd(ctx context.Context, c *manifest.Cluster) ([]admission.Line, error) {
	if q := c.Queueing; q.Config.FairSharing || len(q.Config.PreemptionStrategies) > 0 {
		fmt.Fprintln(a.err, "berthctl: not sent: Kueue's Configuration (config.kueue.x-k8s.io): berthd admits with its own --kueue-config")
	}
	cl, err := a.conn.dial()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	if err := berthdEmpty(ctx, cl); err != nil {
		return nil, err
	}
	ctx, cancel := cl.call(ctx) // the whole run is one --timeout
	defer cancel()
	w, err := startWatch(ctx, cl)
	if err != nil {
		return nil, cl.err(ctx, err, "")
	}
	queued, refused := sendableQueueObjects(c)
	sent := append(clusterObjects(c, true), queued...)
	run := &liveRun{cl: cl, pods: map[string]*model.Pod{}, evicted: map[string]*berthv1.WorkloadEviction{}, deleted: map[string]bool{}, quotaEvicted: map[string]string{}}
	for _, p := range c.Pods {
		run.pods[p.Key()] = p
	}
	run.next = w.next
	if err := run.apply(ctx, sent); err != nil {
		return nil, err
	}
	statuses, err := run.settle(ctx, w)
	cleanup := run.cleanup(context.WithoutCancel(ctx), sent)
	if err != nil {
		return nil, cl.err(ctx, err, "")
	}
	if cleanup != nil {
		return nil, cleanup
	}
	lines := liveLines(c, statuses, run.workloadEvictions(c))
	lines = append(lines, refused...)
	slices.SortFunc(lines, func(a, b admission.Line) int { return cmp.Compare(a.Workload, b.Workload) })
	return lines, nil
}

// sendableQueueObjects are the Kueue objects to send, less the Workloads
// Kueue's webhooks refuse (the manifest reader keeps those, with their
// error, and the offline run prints an error line for each): berthd's API
// refuses them too, so they are not sent, and get the offline run's line.
func sendableQueueObjects(c *manifest.Cluster) (send []convert.Object, refused []admission.Line) {
	for _, o := range queueObjects(c) {
		if w, ok := o.Queueing.(*quota.Workload); ok && w.Error != "" {
			if _, err := convert.ObjectFromProto(convert.ObjectToProto(o)); err != nil {
				refused = append(refused, admission.Line{Workload: w.Key(), Result: admission.ResultError, Message: w.Error})
				continue
			}
		}
		send = append(send, o)
	}
	return send, refused
}

// berthdEmpty refuses a berthd that holds nodes, pods or ClusterQueues.
func berthdEmpty(ctx context.Context, cl *client) error {
	callCtx, cancel := cl.call(ctx)
	defer cancel()
	nodes, err := cl.admin.ListNodes(callCtx, &berthv1.ListNodesRequest{PageSize: 1})
	if err != nil {
		return cl.err(ctx, err, "")
	}
	pods, err := cl.admin.ListPods(callCtx, &berthv1.ListPodsRequest{PageSize: 1})
	if err != nil {
		return cl.err(ctx, err, "")
	}
	cqs, err := cl.admin.ListQueueObjects(callCtx, &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE})
	if err != nil {
		return cl.err(ctx, err, "")
	}
	if len(nodes.GetNodes()) > 0 || len(pods.GetPods()) > 0 || len(cqs.GetObjects()) > 0 {
		return failedf("Kueue objects with --server are admitted live, with real decisions: %s holds nodes, pods or ClusterQueues already; run it on a berthd of its own (berthd --deterministic), or without --server", cl)
	}
	return nil
}

// watchFeed is a Watch stream read on its own goroutine (which ends with
// the stream's context); next is the revision its first response said
// the next decision gets.
type watchFeed struct {
	recv <-chan watchRecv
	next uint64
}

// startWatch opens a Watch of the decisions made from now on and waits for
// its first response, so that none made after the call is missed.
func startWatch(ctx context.Context, cl *client) (*watchFeed, error) {
	stream, err := cl.decision.Watch(ctx, &berthv1.WatchRequest{})
	if err != nil {
		return nil, err
	}
	first, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	return &watchFeed{recv: receiveWatch(ctx, stream), next: first.GetNextRevision()}, nil
}

// headRevision is the revision the next decision will get: a Watch's
// first response says it.
func headRevision(ctx context.Context, cl *client) (uint64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := cl.decision.Watch(ctx, &berthv1.WatchRequest{})
	if err != nil {
		return 0, err
	}
	first, err := stream.Recv()
	if err != nil {
		return 0, err
	}
	return first.GetNextRevision(), nil
}

// liveRun is simulate --server's orchestrator for one live admission.
type liveRun struct {
	cl *client
	// pods are the manifests' pods by namespace/name, as last sent.
	pods map[string]*model.Pod
	// evicted are the workloads berthd preempted, by namespace/name;
	// deleted the pods it evicted, which the run deleted.
	evicted map[string]*berthv1.WorkloadEviction
	deleted map[string]bool
	// quotaEvicted are the reasons of the quota Evicts, by pod: a
	// workload berthd found running is evicted by its pods' Evicts alone
	// (it had no admission of berthd's to take back).
	quotaEvicted map[string]string
	// next is the revision after the last decision handled.
	next uint64
}

// apply upserts objs; a refusal is an error naming the object.
func (r *liveRun) apply(ctx context.Context, objs []convert.Object) error {
	req := &berthv1.ApplyRequest{}
	for _, o := range objs {
		req.Objects = append(req.Objects, convert.ObjectToProto(o))
	}
	resp, err := r.cl.state.Apply(ctx, req)
	if err != nil {
		return r.cl.err(ctx, err, "")
	}
	if errs := resp.GetErrors(); len(errs) > 0 {
		return failedf("berthd refused %s: %s", describeWireRef(errs[0].GetRef()), errs[0].GetMessage())
	}
	return nil
}

// handle plays the orchestrator's part for one decision: a Bind is
// confirmed, an evicted pod deleted; a workload's eviction is kept for its
// line.
func (r *liveRun) handle(ctx context.Context, d *berthv1.Decision) error {
	switch {
	case d.GetBind() != nil:
		p, ok := r.pods[podKey(d.GetPod())]
		if !ok || r.deleted[podKey(d.GetPod())] {
			return nil
		}
		bound := *p
		bound.NodeName = d.GetBind().GetNode()
		r.pods[p.Key()] = &bound
		return r.apply(ctx, []convert.Object{{Pod: &bound}})
	case d.GetEvict() != nil:
		v := d.GetEvict().GetVictim()
		if r.deleted[podKey(v)] {
			return nil
		}
		if d.GetEvict().GetCause() == berthv1.EvictCause_EVICT_CAUSE_QUOTA {
			r.quotaEvicted[podKey(v)] = d.GetEvict().GetReason()
		}
		r.deleted[podKey(v)] = true
		_, err := r.cl.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{
			Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: v.GetNamespace(), Name: v.GetName(), Uid: v.GetUid(),
		}}})
		return err
	case d.GetEvictWorkload() != nil:
		ev := d.GetEvictWorkload()
		r.evicted[ev.GetWorkloadNamespace()+"/"+ev.GetWorkloadName()] = ev
	}
	return nil
}

// settle handles decisions until berthd has settled, then returns the
// workloads' statuses. berthd has settled when
//  1. its admission controller has no round pending over the changes
//     applied so far (QueueStats.admission_round_pending), and then
//  2. no pod is active, in backoff, being scheduled or binding (the same
//     QueueStats, counted after 1): the pods left are bound, unschedulable
//     or gated, and none moves without an event; and then
//  3. every decision made so far (below the log's head revision, read
//     after 2) has been handled, and handling them changed nothing.
//
// In that order nothing is left to move: the controller ran over every
// change, the pods it released were counted in 2, and every decision
// either of them made is below the head read in 3. Only timers could move
// a pod after that (kube's flush of pods unschedulable for five minutes),
// which a simulation does not wait for.
func (r *liveRun) settle(ctx context.Context, w *watchFeed) ([]*berthv1.WorkloadStatus, error) {
	for {
		if err := r.drain(ctx, w, 0); err != nil {
			return nil, err
		}
		st, err := r.cl.admin.QueueStats(ctx, &berthv1.QueueStatsRequest{})
		if err != nil {
			return nil, err
		}
		if st.GetAdmissionRoundPending() || st.GetActive()+st.GetBackoff()+st.GetInFlight()+st.GetBinding() > 0 {
			if err := sleep(ctx, settlePoll); err != nil {
				return nil, err
			}
			continue
		}
		head, err := headRevision(ctx, r.cl)
		if err != nil {
			return nil, err
		}
		before := r.next
		if err := r.drain(ctx, w, head); err != nil {
			return nil, err
		}
		if before < head {
			continue // decisions were handled: look again
		}
		resp, err := r.cl.admin.ListQueueObjects(ctx, &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD})
		if err != nil {
			return nil, err
		}
		return resp.GetWorkloadStatuses(), nil
	}
}

// drain handles the decisions received; with until > 0 it waits for every
// decision below until.
func (r *liveRun) drain(ctx context.Context, w *watchFeed, until uint64) error {
	for {
		var got watchRecv
		if until > 0 && r.next < until {
			select {
			case got = <-w.recv:
			case <-ctx.Done():
				return ctx.Err()
			}
		} else {
			select {
			case got = <-w.recv:
			default:
				return nil
			}
		}
		if got.err != nil {
			return got.err
		}
		for _, d := range got.resp.GetDecisions() {
			if err := r.handle(ctx, d); err != nil {
				return err
			}
		}
		r.next = max(r.next, got.resp.GetNextRevision())
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cleanup deletes what the run sent, the last sent first; objects gone
// already (evicted pods) do not count as failures.
func (r *liveRun) cleanup(ctx context.Context, sent []convert.Object) error {
	req := &berthv1.DeleteRequest{}
	for _, o := range slices.Backward(sent) {
		if o.Pod != nil && r.deleted[o.Pod.Key()] {
			continue
		}
		req.Refs = append(req.Refs, convert.ObjectRefOf(convert.ObjectToProto(o)))
	}
	ctx, cancel := r.cl.call(ctx)
	defer cancel()
	resp, err := r.cl.state.Delete(ctx, req)
	if err != nil {
		return r.cl.err(ctx, err, "deleting what simulate sent")
	}
	for _, e := range resp.GetErrors() {
		if e.GetCode() != berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
			return failedf("deleting what simulate sent: %s: %s", describeWireRef(e.GetRef()), e.GetMessage())
		}
	}
	return nil
}

// workloadEvictions are the workloads berthd preempted, by namespace/name:
// those with a WorkloadEviction, and those found running whose pods had a
// quota Evict, whose reason says by whom and why (queuesvc's "Preempted
// by workload W (REASON): MESSAGE").
func (r *liveRun) workloadEvictions(c *manifest.Cluster) map[string]*berthv1.WorkloadEviction {
	out := maps.Clone(r.evicted)
	cqOf := map[string]string{}
	for _, lq := range c.Queueing.LocalQueues {
		cqOf[lq.Key()] = lq.ClusterQueue
	}
	for _, w := range c.Queueing.Workloads {
		if _, ok := out[w.Key()]; ok {
			continue
		}
		for _, p := range slices.Concat(w.Running, w.Pods) {
			reason, ok := r.quotaEvicted[p]
			if !ok {
				continue
			}
			ev := &berthv1.WorkloadEviction{WorkloadNamespace: w.Namespace, WorkloadName: w.Name, ClusterQueue: cqOf[w.Namespace+"/"+w.QueueName], Message: reason}
			if rest, ok := strings.CutPrefix(reason, "Preempted by workload "); ok {
				if by, rest, ok := strings.Cut(rest, " ("); ok {
					if why, msg, ok := strings.Cut(rest, "): "); ok {
						ev.PreemptedBy, ev.Reason, ev.Message = by, why, msg
					}
				}
			}
			out[w.Key()] = ev
			break
		}
	}
	return out
}

// liveLines are the workload lines of a live admission, in kueueoracle's
// format as offline simulate prints them, without what only a run of
// cycles has (cycle, preemptedCycle, preemptions): the state berthd
// settled in, and for a workload it preempted, whose pods the run deleted,
// its eviction. Victims are those its evictions name.
func liveLines(c *manifest.Cluster, statuses []*berthv1.WorkloadStatus, evicted map[string]*berthv1.WorkloadEviction) []admission.Line {
	wls := map[string]*quota.Workload{}
	for _, w := range c.Queueing.Workloads {
		wls[w.Key()] = w
	}
	victims := map[string][]string{}
	for k, ev := range evicted {
		victims[ev.GetPreemptedBy()] = append(victims[ev.GetPreemptedBy()], k)
	}
	lines := map[string]admission.Line{}
	for _, ws := range statuses {
		k := ws.GetNamespace() + "/" + ws.GetName()
		l := admission.Line{Workload: k, ClusterQueue: ws.GetClusterQueue(), Message: ws.GetMessage()}
		switch ws.GetState() {
		case berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED:
			l.Result = admission.ResultAdmitted
		case berthv1.WorkloadState_WORKLOAD_STATE_PENDING:
			l.Result = admission.ResultPending
		case berthv1.WorkloadState_WORKLOAD_STATE_EVICTING:
			l.Result = admission.ResultPreempted
		default:
			l.Result = admission.ResultInadmissible
		}
		for _, ps := range ws.GetPodSets() {
			for r, f := range ps.GetFlavors() {
				if l.Flavors == nil {
					l.Flavors = map[string]string{}
				}
				l.Flavors[ps.GetName()+"/"+r] = f
			}
			if w := wls[k]; w != nil {
				if i := slices.IndexFunc(w.PodSets, func(s quota.PodSet) bool { return s.Name == ps.GetName() }); i >= 0 && w.PodSets[i].Count != ps.GetCount() {
					if l.Counts == nil {
						l.Counts = map[string]int32{}
					}
					l.Counts[ps.GetName()] = ps.GetCount() // partially admitted
				}
			}
		}
		lines[k] = l
	}
	for k, ev := range evicted {
		if l, ok := lines[k]; ok && l.Result == admission.ResultAdmitted {
			continue // requeued and admitted again
		}
		// Requeued (its pods gone) but not admitted again, or gone with
		// its pods: preempted, as the offline run ends it.
		lines[k] = admission.Line{
			Workload: k, Result: admission.ResultPreempted, ClusterQueue: ev.GetClusterQueue(), Message: ev.GetMessage(),
			PreemptedBy: ev.GetPreemptedBy(), PreemptionReason: ev.GetReason(),
		}
	}
	out := make([]admission.Line, 0, len(lines))
	for _, k := range slices.Sorted(maps.Keys(lines)) {
		l := lines[k]
		if w := wls[k]; w != nil && w.HasPriority {
			p := w.Priority
			l.Priority = &p
		}
		if vs := victims[k]; len(vs) > 0 && l.Result == admission.ResultAdmitted {
			slices.Sort(vs)
			l.Victims = vs
		}
		if l.Result == admission.ResultAdmitted {
			l.Message = "" // the controller's own words while it waited
		}
		out = append(out, l)
	}
	return out
}
