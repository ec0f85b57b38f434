package adminsvc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// simRequest is a validated SimulateRequest.
type simRequest struct {
	delta    []convert.Object
	removals []convert.Ref
	pods     []*model.Pod
}

func (s *Service) parseSimulate(req *berthv1.SimulateRequest) (*simRequest, error) {
	out := &simRequest{}
	for i, o := range req.GetClusterDelta() {
		obj, err := convert.ObjectFromProto(o)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_delta[%d]", i), err))
		}
		out.delta = append(out.delta, obj)
	}
	for i, r := range req.GetClusterRemovals() {
		ref, err := convert.RefFromProto(r)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_removals[%d]", i), err))
		}
		out.removals = append(out.removals, ref)
	}
	if name := req.GetSchedulerName(); name != "" {
		if _, ok := s.admin.Profile(name); !ok {
			return nil, errmap.Status(errmap.Field("scheduler_name", fmt.Errorf("Berth runs no profile %q: %w", name, errmap.ErrUnknownProfile)))
		}
	}
	for i, p := range req.GetPods() {
		pod, err := convert.PodFromProto(p)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("pods[%d]", i), err))
		}
		if name := req.GetSchedulerName(); name != "" {
			pod.SchedulerName = name
		}
		profile := cmp.Or(pod.SchedulerName, model.DefaultSchedulerName)
		if _, ok := s.admin.Profile(profile); !ok && pod.NodeName == "" {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("pods[%d].scheduler_name", i), fmt.Errorf("Berth runs no profile %q: %w", profile, errmap.ErrUnknownProfile)))
		}
		out.pods = append(out.pods, pod)
	}
	return out, nil
}

// Simulate schedules pods on a copy of the cluster; nothing is committed.
func (s *Service) Simulate(ctx context.Context, req *berthv1.SimulateRequest) (*berthv1.SimulateResponse, error) {
	if s.opts.Registry == nil {
		return nil, errmap.Status(fmt.Errorf("Simulate needs a plugin registry: %w", errmap.ErrNotConfigured))
	}
	sr, err := s.parseSimulate(req)
	if err != nil {
		return nil, err
	}
	sim, err := s.newSimulation(ctx)
	switch {
	case ctx.Err() != nil:
		return nil, errmap.Status(ctx.Err())
	case err != nil:
		// The live cluster failed to copy: Berth's fault, whatever the
		// error says, so not wrapped.
		return nil, errmap.Status(fmt.Errorf("copying the cluster: %v", err))
	}
	if err := sim.applyDelta(ctx, sr); err != nil {
		return nil, err
	}
	pending, err := sim.addPods(ctx, sr.pods)
	if err != nil {
		return nil, err
	}
	resp := &berthv1.SimulateResponse{}
	for _, pod := range pending {
		attempts, err := sim.schedule(ctx, pod)
		if err != nil {
			return nil, errmap.Status(fmt.Errorf("simulating %s: %w", pod.Key(), err))
		}
		resp.Attempts = append(resp.Attempts, attempts...)
	}
	return resp, nil
}

// simulation is a private deterministic scheduler holding a copy of the
// live cluster.
type simulation struct {
	s     *scheduler.Scheduler
	sink  *evictions
	nodes []string // sorted, refreshed after the delta
}

func (s *Service) newSimulation(ctx context.Context) (*simulation, error) {
	every := int32(100)
	sink := &evictions{}
	sched, err := scheduler.New(ctx, scheduler.Options{
		Config: s.opts.Config, Registry: s.opts.Registry, Decisions: sink,
		Clock: fixedClock{s.opts.Clock.Now()}, Logger: s.logger,
		Deterministic: true, Replay: scheduler.Replay{BindInline: true}, PercentageOfNodesToScore: &every,
	})
	if err != nil {
		return nil, err
	}
	sink.remove = sched.DeletePod
	sim := &simulation{s: sched, sink: sink}
	if l, ok := s.admin.(ObjectLister); ok {
		for _, ns := range l.Namespaces() {
			if err := sched.SetNamespace(ctx, ns); err != nil {
				return nil, err
			}
		}
		for _, pdb := range l.PDBs() {
			if err := sched.SetPDB(ctx, pdb); err != nil {
				return nil, err
			}
		}
	}
	for _, pc := range s.admin.PriorityClasses() {
		if !strings.HasPrefix(pc.Name, "system-") {
			if err := sched.SetPriorityClass(ctx, pc); err != nil {
				return nil, err
			}
		}
	}
	nodes, err := s.admin.Nodes()
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := sched.AddNode(ctx, n.Node); err != nil {
			return nil, err
		}
	}
	sched.RestoreNominations(s.admin.Nominations())
	// Bound pods first, then the assumed ones on their nodes, then the
	// pending ones (queued, never tried, keeping their nominations).
	pods := s.admin.Pods()
	var pending []*model.Pod
	for _, held := range pods {
		p := admitted(held)
		if p.NodeName != "" {
			if err := sched.AddPod(ctx, p); err != nil {
				return nil, fmt.Errorf("pod %s: %w", p.Key(), err)
			}
			continue
		}
		if ex, err := s.admin.ExplainUID(p.UID); err == nil && ex.Phase == scheduler.PhaseBinding {
			p.NodeName = ex.Node
			if err := sched.AddPod(ctx, p); err != nil {
				return nil, fmt.Errorf("pod %s: %w", p.Key(), err)
			}
			continue
		}
		pending = append(pending, p)
	}
	for _, p := range pending {
		if err := sched.AddPod(ctx, p); err != nil {
			return nil, fmt.Errorf("pod %s: %w", p.Key(), err)
		}
	}
	return sim, nil
}

// admitted is a copy of a pod the live scheduler holds, to add to the
// simulated one with the priority it was admitted with: by value, not by
// class name. A pod keeps its priority while its class changes or goes, as
// in Kubernetes, so the copy must not resolve the class again.
func admitted(held *model.Pod) *model.Pod {
	p := *held
	prio := held.Priority
	p.PriorityClassName, p.RequestedPriority = "", &prio
	return &p
}

// applyDelta removes then upserts objects in the copy.
func (sim *simulation) applyDelta(ctx context.Context, sr *simRequest) error {
	for _, ref := range sr.removals {
		_ = sim.remove(ctx, ref) // removing what is not held is ignored
	}
	for i, o := range sr.delta {
		var err error
		switch {
		case o.Node != nil:
			err = sim.s.AddNode(ctx, o.Node)
		case o.Pod != nil:
			err = sim.addPod(ctx, o.Pod)
		case o.PriorityClass != nil:
			err = sim.s.SetPriorityClass(ctx, o.PriorityClass)
		case o.PDB != nil:
			err = sim.s.SetPDB(ctx, o.PDB)
		case o.Namespace != nil:
			err = sim.s.SetNamespace(ctx, o.Namespace)
		case o.PodGroup != nil:
			err = sim.s.SetPodGroup(ctx, o.PodGroup)
		}
		if err != nil {
			return errmap.Status(errmap.Field(fmt.Sprintf("cluster_delta[%d].%s", i, errmap.KindField(o.Kind())), err))
		}
	}
	nodes, err := sim.s.View().Nodes()
	if err != nil {
		return errmap.Status(fmt.Errorf("listing the simulated nodes: %w", err))
	}
	sim.nodes = sim.nodes[:0]
	for _, n := range nodes {
		sim.nodes = append(sim.nodes, n.Node.Name)
	}
	slices.Sort(sim.nodes)
	return nil
}

func (sim *simulation) remove(ctx context.Context, ref convert.Ref) error {
	switch ref.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return sim.s.DeleteNode(ctx, ref.Name)
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		ex, err := sim.s.View().Explain(ref.Namespace, ref.Name)
		if err != nil || (ref.UID != "" && ref.UID != ex.Pod.UID) {
			return scheduler.ErrNotFound
		}
		return sim.s.DeletePod(ctx, ex.Pod)
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return sim.s.DeletePriorityClass(ctx, ref.Name)
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return sim.s.DeletePDB(ctx, ref.Namespace, ref.Name)
	case berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:
		return sim.s.DeleteNamespace(ctx, ref.Name)
	case berthv1.ObjectKind_OBJECT_KIND_POD_GROUP:
		return sim.s.DeletePodGroup(ctx, ref.Namespace, ref.Name)
	}
	return nil
}

// addPod upserts a pod, replacing one of the same name under another uid.
func (sim *simulation) addPod(ctx context.Context, pod *model.Pod) error {
	if ex, err := sim.s.View().Explain(pod.Namespace, pod.Name); err == nil && ex.Pod.UID != pod.UID {
		if err := sim.s.DeletePod(ctx, ex.Pod); err != nil {
			return err
		}
	}
	return sim.s.AddPod(ctx, pod)
}

// addPods adds the request's pods and returns the pending ones in queue
// order: priority, then creation time, then namespace/name.
func (sim *simulation) addPods(ctx context.Context, pods []*model.Pod) ([]*model.Pod, error) {
	var pending []*model.Pod
	for i, p := range pods {
		if err := sim.addPod(ctx, p); err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("pods[%d]", i), err))
		}
		if p.NodeName == "" {
			admitted, _ := sim.s.View().Pod(p.UID)
			pending = append(pending, admitted)
		}
	}
	slices.SortFunc(pending, func(a, b *model.Pod) int { return strings.Compare(a.Key(), b.Key()) })
	less := sim.s.View().QueueSortFunc()
	slices.SortStableFunc(pending, func(a, b *model.Pod) int {
		qa := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: a}, Timestamp: a.CreationTime}
		qb := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: b}, Timestamp: b.CreationTime}
		switch {
		case less(qa, qb):
			return -1
		case less(qb, qa):
			return 1
		}
		return 0
	})
	return pending, nil
}

// schedule makes the pod's attempts: one, and after a nomination the
// immediate retry.
func (sim *simulation) schedule(ctx context.Context, pod *model.Pod) ([]*berthv1.SimulateAttempt, error) {
	ref := convert.PodRefOf(pod)
	if ex, err := sim.s.View().ExplainUID(pod.UID); err == nil && ex.Queue.GatingPlugin != "" {
		return []*berthv1.SimulateAttempt{{Pod: ref, Result: berthv1.SimulateResult_SIMULATE_RESULT_GATED,
			Message: "pod was rejected by PreEnqueue plugin " + ex.Queue.GatingPlugin}}, nil
	}
	var out []*berthv1.SimulateAttempt
	for round := 0; round < 2; round++ {
		if cur, ok := sim.s.View().Pod(pod.UID); !ok || cur.NodeName != "" {
			break
		}
		_, _ = sim.sink.take()
		att, err := sim.s.AttemptPod(ctx, pod.UID)
		if err != nil {
			return nil, err
		}
		a, err := sim.apply(ctx, att)
		if err != nil {
			return nil, err
		}
		a.Pod = ref
		out = append(out, a)
		if a.Result != berthv1.SimulateResult_SIMULATE_RESULT_NOMINATED {
			break
		}
	}
	return out, nil
}

// apply makes an attempt happen in the copy (victims deleted, the pod run
// on its node) and reports it.
func (sim *simulation) apply(ctx context.Context, att *scheduler.Attempt) (*berthv1.SimulateAttempt, error) {
	out := &berthv1.SimulateAttempt{}
	victims, err := sim.sink.take()
	if err != nil {
		return nil, err
	}
	for _, v := range victims {
		out.Victims = append(out.Victims, convert.PodRefOf(v))
	}
	slices.SortFunc(out.Victims, func(a, b *berthv1.PodRef) int {
		return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
	})
	switch {
	case att.Result == scheduler.ResultScheduled && att.BindStatus.IsSuccess():
		out.Result, out.Node = berthv1.SimulateResult_SIMULATE_RESULT_BOUND, att.Node
		if cur, ok := sim.s.View().Pod(att.Pod.UID); ok {
			bound := *cur
			bound.NodeName, bound.NominatedNodeName, bound.Ready = att.Node, "", true
			if err := sim.s.AddPod(ctx, &bound); err != nil {
				return nil, fmt.Errorf("binding %s: %w", bound.Key(), err)
			}
		}
	case att.Result == scheduler.ResultScheduled:
		out.Result, out.Message = berthv1.SimulateResult_SIMULATE_RESULT_UNSCHEDULABLE, att.BindStatus.Message()
	case att.Result == scheduler.ResultUnschedulable && att.NominatedNode != "":
		out.Result, out.Node, out.Message = berthv1.SimulateResult_SIMULATE_RESULT_NOMINATED, att.NominatedNode, att.Message
	default:
		out.Result, out.Message = berthv1.SimulateResult_SIMULATE_RESULT_UNSCHEDULABLE, att.Message
	}
	out.Nodes = sim.verdicts(att)
	return out, nil
}

// verdicts gives every node's verdict in the attempt, sorted by name.
func (sim *simulation) verdicts(att *scheduler.Attempt) []*berthv1.NodeVerdict {
	statuses := att.Diagnosis.NodeToStatus
	if att.FitError != nil && att.FitError.Diagnosis.NodeToStatus != nil {
		statuses = att.FitError.Diagnosis.NodeToStatus
	}
	scores := map[string]framework.NodePluginScores{}
	if !att.ScoresReportOnly {
		for _, ns := range att.Scores {
			scores[ns.Name] = ns
		}
	}
	out := make([]*berthv1.NodeVerdict, 0, len(sim.nodes))
	for _, n := range sim.nodes {
		v := &berthv1.NodeVerdict{Node: n, Feasible: slices.Contains(att.Feasible, n)}
		switch {
		case v.Feasible:
			if ns, ok := scores[n]; ok {
				v.TotalScore = ns.TotalScore
				v.PluginScores = map[string]int64{}
				for _, ps := range ns.Scores {
					v.PluginScores[ps.Name] = ps.Score
				}
			}
		case statuses != nil && (statuses.Has(n) || att.Result != scheduler.ResultScheduled):
			v.Reasons = slices.Clone(statuses.Get(n).Reasons())
		}
		out = append(out, v)
	}
	return out
}

// evictions is the copy's decision sink: it deletes each victim of
// preemption at once, before the next one (as berthctl simulate and
// kubeoracle do: the order of the removals decides the order of the
// node's pods), and collects them; other decisions have no effect.
type evictions struct {
	remove func(ctx context.Context, pod *model.Pod) error

	mu      sync.Mutex
	victims []*model.Pod
	err     error
}

// take returns the victims since the last call and the first error
// deleting one.
func (e *evictions) take() ([]*model.Pod, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out, err := e.victims, e.err
	e.victims, e.err = nil, nil
	return out, err
}

func (e *evictions) Bind(context.Context, *model.Pod, string) error { return nil }
func (e *evictions) Evict(ctx context.Context, victim *model.Pod, _ string, _ *model.Pod, _ string) error {
	err := e.remove(ctx, victim)
	if errors.Is(err, scheduler.ErrNotFound) {
		err = nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.victims = append(e.victims, victim)
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("deleting victim %s: %w", victim.Key(), err)
	}
	return nil
}
func (e *evictions) Nominate(context.Context, *model.Pod, string) error        { return nil }
func (e *evictions) ClearNomination(context.Context, *model.Pod, string) error { return nil }

// fixedClock stops time in the copy, so nothing backs off or times out.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }
