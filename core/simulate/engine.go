package simulate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/scheduler"
)

// Engine is one simulation: a private deterministic scheduler holding a
// cluster, to which objects can be upserted and removed, and which
// schedules the pods it is given. Nothing leaves it. An Engine is for one
// goroutine at a time.
type Engine struct {
	s       *scheduler.Scheduler
	sink    *sink
	clock   *stoppedClock
	retries int
	now     time.Time // the simulated time of the last bind
}

// Object is one object upserted into or removed from an Engine: exactly
// one field is set. A removal reads only the object's identity: the name,
// the namespace of pods, budgets, claims and templates, and a pod's uid
// if set. Its fields are those of server/convert.Object.
type Object struct {
	Node          *model.Node
	Pod           *model.Pod
	PriorityClass *model.PriorityClass
	PDB           *model.PodDisruptionBudget
	Namespace     *model.Namespace
	// Device is a DRA object: a *resourceapi.DeviceClass, ResourceSlice,
	// ResourceClaim or ResourceClaimTemplate (k8s.io/api/resource/v1).
	Device any
	// Volume is a storage object: a *corev1.PersistentVolume,
	// PersistentVolumeClaim or a *storagev1.StorageClass, CSINode,
	// CSIDriver, CSIStorageCapacity.
	Volume any
}

// Attempt is one Line of the trace with the pods it names.
type Attempt struct {
	Line
	// Pod is the pod tried (or refused, skipped or gated).
	Pod *model.Pod
	// Victims are the pods a preemption removed, in Line.Victims' order.
	Victims []*model.Pod
	// Volumes are a bound pod's Bind's volume bindings (its unbound
	// claims' volumes, or nodes to provision on); not in the trace, which
	// is kubeoracle's format.
	Volumes []framework.VolumeBinding
}

// New returns an Engine holding in: its pods, running or pending, are held
// and none is scheduled. An error building the scheduler from the
// configuration is a *ConfigError.
func New(ctx context.Context, in Input, opts Options) (*Engine, error) {
	if opts.Registry == nil {
		return nil, errors.New("simulate: Options.Registry is required")
	}
	cfg := in.Config
	if cfg == nil {
		cfg = config.Default()
	}
	percentage := opts.PercentageOfNodesToScore
	if percentage == nil && cfg.PercentageOfNodesToScore == nil {
		percentage = ptr(int32(100))
	}
	e := &Engine{sink: &sink{}, clock: &stoppedClock{t: baseTime}, retries: opts.MaxPreemptionRetries}
	if e.retries == 0 {
		e.retries = 1
	}
	s, err := scheduler.New(ctx, scheduler.Options{
		Config:                   cfg,
		Registry:                 opts.Registry,
		Decisions:                e.sink,
		Clock:                    e.clock,
		Logger:                   opts.Logger,
		Deterministic:            true,
		PercentageOfNodesToScore: percentage,
		Replay: scheduler.Replay{BindInline: true, ScoreSingleNode: true, NoResultMemo: opts.NoResultMemo,
			NoIncrementalIndexes: opts.NoIncrementalIndexes, NoPreemptionMemo: opts.NoPreemptionMemo, NoScoreCarry: opts.NoScoreCarry,
			NoDevicePrecheck:    opts.NoDevicePrecheck,
			NoDeviceSliceFilter: opts.NoDeviceSliceFilter, NoDeviceNodeMemo: opts.NoDeviceNodeMemo},
	})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	e.s = s
	e.sink.remove = s.DeletePod
	if err := e.load(ctx, in); err != nil {
		return nil, err
	}
	return e, nil
}

// load feeds the cluster to the scheduler: running pods before pending
// ones, so pending pods (and their nominations) meet a populated cluster.
func (e *Engine) load(ctx context.Context, in Input) error {
	for _, ns := range in.Namespaces {
		if err := e.s.Upsert(ctx, ns); err != nil {
			return fmt.Errorf("simulate: namespace %s: %w", ns.Name, err)
		}
	}
	for _, pc := range in.PriorityClasses {
		if err := e.s.Upsert(ctx, pc); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	for _, pdb := range in.PDBs {
		if err := e.s.Upsert(ctx, pdb); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	for _, n := range in.Nodes {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if err := e.s.Upsert(ctx, n); err != nil {
			return fmt.Errorf("simulate: node %s: %w", n.Name, err)
		}
	}
	if err := e.loadDevices(ctx, in.Devices); err != nil {
		return err
	}
	if err := e.loadVolumes(ctx, in.Volumes); err != nil {
		return err
	}
	e.s.Restore(scheduler.Restored{Nominations: in.Nominations})
	for _, running := range []bool{true, false} {
		for _, p := range in.Pods {
			if (p.NodeName != "") != running {
				continue
			}
			if err := context.Cause(ctx); err != nil {
				return err
			}
			if err := e.s.AddPod(ctx, p); err != nil {
				return fmt.Errorf("simulate: pod %s: %w", p.Key(), err)
			}
		}
	}
	return nil
}

// Upsert adds an object to the simulated cluster or replaces the one of
// the same name (a pod of the same namespace and name under another uid
// is replaced too). The error is the scheduler's, unwrapped, for callers
// that map its type.
func (e *Engine) Upsert(ctx context.Context, o Object) error {
	switch {
	case o.Node != nil:
		return e.s.Upsert(ctx, o.Node)
	case o.Pod != nil:
		return e.upsertPod(ctx, o.Pod)
	case o.PriorityClass != nil:
		return e.s.Upsert(ctx, o.PriorityClass)
	case o.PDB != nil:
		return e.s.Upsert(ctx, o.PDB)
	case o.Namespace != nil:
		return e.s.Upsert(ctx, o.Namespace)
	case o.Device != nil:
		return e.s.Upsert(ctx, o.Device)
	case o.Volume != nil:
		return e.s.Upsert(ctx, o.Volume)
	}
	return errors.New("simulate: upsert of an empty Object")
}

func (e *Engine) upsertPod(ctx context.Context, pod *model.Pod) error {
	if ex, err := e.s.View().Explain(pod.Namespace, pod.Name); err == nil && ex.Pod.UID != pod.UID {
		if err := e.s.DeletePod(ctx, ex.Pod); err != nil {
			return err
		}
	}
	return e.s.AddPod(ctx, pod)
}

// Remove deletes an object from the simulated cluster; removing one it
// does not hold (or a pod under another uid) does nothing.
func (e *Engine) Remove(ctx context.Context, o Object) error {
	var err error
	switch {
	case o.Node != nil:
		err = e.s.Delete(ctx, objstore.Ref{Kind: objstore.KindNode, Name: o.Node.Name})
	case o.Pod != nil:
		ex, xerr := e.s.View().Explain(o.Pod.Namespace, o.Pod.Name)
		if xerr != nil || (o.Pod.UID != "" && o.Pod.UID != ex.Pod.UID) {
			return nil
		}
		err = e.s.DeletePod(ctx, ex.Pod)
	case o.PriorityClass != nil:
		err = e.s.Delete(ctx, objstore.Ref{Kind: objstore.KindPriorityClass, Name: o.PriorityClass.Name})
	case o.PDB != nil:
		err = e.s.Delete(ctx, objstore.Ref{Kind: objstore.KindPodDisruptionBudget, Namespace: o.PDB.Namespace, Name: o.PDB.Name})
	case o.Namespace != nil:
		err = e.s.Delete(ctx, objstore.Ref{Kind: objstore.KindNamespace, Name: o.Namespace.Name})
	case o.Device != nil:
		kind, ref, ok := deviceKind(o.Device)
		if !ok {
			return fmt.Errorf("simulate: remove: %T is not a DRA object", o.Device)
		}
		ref.Kind = objstore.Kind(kind)
		err = e.s.Delete(ctx, ref)
	case o.Volume != nil:
		kind, meta, ok := volumeKind(o.Volume)
		if !ok {
			return fmt.Errorf("simulate: remove: %T is not a storage object", o.Volume)
		}
		err = e.s.Delete(ctx, objstore.Ref{Kind: objstore.Kind(kind), Namespace: meta.GetNamespace(), Name: meta.GetName()})
	}
	if errors.Is(err, scheduler.ErrNotFound) {
		return nil
	}
	return err
}

// Nodes lists the names of the nodes held, sorted.
func (e *Engine) Nodes() ([]string, error) {
	usage, err := e.s.View().Nodes()
	if err != nil {
		return nil, fmt.Errorf("simulate: listing nodes: %w", err)
	}
	out := make([]string, len(usage))
	for i, u := range usage {
		out[i] = u.Node.Name
	}
	slices.Sort(out)
	return out, nil
}

// Schedule adds pods to the simulated cluster and schedules the pending
// ones, as kubeoracle's place mode does (see the package doc): running
// pods first (one refused at admission is left out), then the pending ones
// (one refused gives an "error" Attempt), each tried in queue order. The
// simulated clock starts an hour after the latest creation time of the
// pods held and given.
func (e *Engine) Schedule(ctx context.Context, pods []*model.Pod) ([]Attempt, error) {
	var out []Attempt
	err := e.ScheduleEach(ctx, pods, func(a Attempt) error {
		out = append(out, a)
		return nil
	})
	return out, err
}

// ScheduleEach is Schedule handing each Attempt to yield as it is made,
// so a caller can bound what it keeps; an error from yield stops the run
// and is returned as it is. The run stops too when ctx ends, between
// attempts and within an attempt's filter pass, returning the context's
// cause: a simulation can be large, its caller may have given up.
func (e *Engine) ScheduleEach(ctx context.Context, pods []*model.Pod, yield func(Attempt) error) error {
	e.now = e.startTime(pods)
	e.clock.set(e.now)
	for _, p := range pods {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if p.NodeName != "" {
			_ = e.upsertPod(ctx, p)
		}
	}
	var pending []*model.Pod
	for _, p := range pods {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if p.NodeName != "" {
			continue
		}
		if err := e.upsertPod(ctx, p); err != nil {
			msg := err.Error()
			if unk := (*priority.UnknownClassError)(nil); errors.As(err, &unk) {
				msg = unk.Error()
			}
			if err := yield(Attempt{Line: Line{Pod: p.Key(), Result: ResultError, Message: msg}, Pod: p}); err != nil {
				return err
			}
			continue
		}
		admitted, _ := e.s.View().Pod(p.UID)
		pending = append(pending, admitted)
	}
	nodes, err := e.Nodes()
	if err != nil {
		return err
	}
	for _, pod := range e.order(pending) {
		if err := e.schedule(ctx, pod.UID, nodes, yield); err != nil {
			return err
		}
	}
	return nil
}

// startTime is an hour after the latest creation time of the pods held
// and pods (baseTime if none is later).
func (e *Engine) startTime(pods []*model.Pod) time.Time {
	now := baseTime
	for _, p := range slices.Concat(e.s.View().Pods(), pods) {
		if p.CreationTime.After(now) {
			now = p.CreationTime
		}
	}
	return now.Add(time.Hour)
}

// order sorts the pending pods as the queue would pop them: the first
// profile's QueueSort with the creation time as queue timestamp, stable.
func (e *Engine) order(pending []*model.Pod) []*model.Pod {
	less := e.s.View().QueueSortFunc()
	infos := make([]*framework.QueuedPodInfo, len(pending))
	for i, p := range pending {
		infos[i] = &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p}, Timestamp: p.CreationTime}
	}
	slices.SortStableFunc(infos, func(a, b *framework.QueuedPodInfo) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	out := make([]*model.Pod, len(infos))
	for i, qpi := range infos {
		out[i] = qpi.Pod
	}
	return out
}

// schedule tries one pending pod and, after a nomination, retries it; it
// hands its attempts to yield. nodes are all the cluster's nodes.
func (e *Engine) schedule(ctx context.Context, uid string, nodes []string, yield func(Attempt) error) error {
	pod, ok := e.s.View().Pod(uid)
	if !ok || pod.NodeName != "" {
		return nil // gone (a preemption victim) or bound meanwhile
	}
	if _, ok := e.s.View().Profile(pod.SchedulerName); !ok {
		return yield(Attempt{Line: Line{Pod: pod.Key(), Result: ResultSkipped, Message: fmt.Sprintf("no profile for schedulerName %q", pod.SchedulerName)}, Pod: pod})
	}
	if pod.Terminating {
		return yield(Attempt{Line: Line{Pod: pod.Key(), Result: ResultSkipped, Message: "pod is being deleted"}, Pod: pod})
	}
	if ex, err := e.s.View().ExplainUID(uid); err == nil && ex.Queue.GatingPlugin != "" {
		plugin := ex.Queue.GatingPlugin
		return yield(Attempt{Line: Line{Pod: pod.Key(), Result: ResultGated, Plugin: plugin, Message: "pod was rejected by PreEnqueue plugin " + plugin}, Pod: pod})
	}
	deallocations := 0
	for round := 0; ; round++ {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		e.sink.reset()
		att, err := e.s.AttemptPod(ctx, uid)
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		if err := context.Cause(ctx); err != nil {
			// The attempt was cut short: its outcome means nothing.
			return err
		}
		victims, err := e.apply(ctx, att)
		if err != nil {
			return err
		}
		keys := make([]string, len(victims))
		for i, v := range victims {
			keys[i] = v.Key()
		}
		a := Attempt{Line: lineFor(att, keys, nodes), Pod: pod}
		claims, deallocated := e.sink.takeDevices()
		switch {
		case a.Result == ResultNominated:
			a.Victims = victims
		case a.Result == ResultBound:
			a.Claims = claims
			a.Volumes = e.sink.takeVolumes()
		case a.Result == ResultUnschedulable && len(deallocated) > 0:
			a.Result, a.Deallocated = ResultDeallocated, deallocated
		}
		if err := yield(a); err != nil {
			return err
		}
		if a.Result == ResultDeallocated && deallocations < 1 {
			// Retried at once (kube requeues the pod on the claim's update).
			deallocations++
			round--
			continue
		}
		if a.Result != ResultNominated || round >= e.retries {
			return nil
		}
	}
}

// apply makes an attempt's outcome happen: a bind runs the pod on its node
// (started one simulated second after the previous bind), preemption
// victims disappear. It returns the victims, sorted by key.
func (e *Engine) apply(ctx context.Context, att *scheduler.Attempt) ([]*model.Pod, error) {
	victims, err := e.sink.takeEvicted()
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(victims, func(a, b *model.Pod) int { return cmp.Compare(a.Key(), b.Key()) })
	if att.Result == scheduler.ResultScheduled && att.BindStatus.IsSuccess() {
		cur, ok := e.s.View().Pod(att.Pod.UID)
		if !ok {
			return victims, nil
		}
		bound := *cur
		e.now = e.now.Add(time.Second)
		bound.NodeName, bound.NominatedNodeName = att.Node, ""
		bound.StartTime, bound.Ready = e.now, true
		if err := e.s.AddPod(ctx, &bound); err != nil {
			return nil, fmt.Errorf("simulate: binding %s: %w", bound.Key(), err)
		}
	}
	return victims, nil
}

// sink records the decisions of one attempt. Binds are applied by the
// Engine. A victim is deleted as soon as it is evicted, before the next
// one, as kubeoracle removes each victim at once when the executor deletes
// it (its removal reorders the node's pods, which matters to later
// preemptions there).
type sink struct {
	remove func(ctx context.Context, pod *model.Pod) error

	mu      sync.Mutex
	evicted []*model.Pod
	err     error
	// boundClaims and deallocated are what the attempt did to claims
	// (devices.go).
	boundClaims map[string]ClaimLine
	deallocated []string
	// volumes are the last Bind's volume bindings (volumes.go).
	volumes []framework.VolumeBinding
}

func (s *sink) reset() {
	_, _ = s.takeEvicted()
	_, _ = s.takeDevices()
	_ = s.takeVolumes()
}

// takeEvicted returns the pods evicted since the last call and the first
// error deleting one.
func (s *sink) takeEvicted() ([]*model.Pod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, err := s.evicted, s.err
	s.evicted, s.err = nil, nil
	return out, err
}

// Submit applies a plan at once: victims are deleted, the claims of a
// bound pod and those deallocated are recorded (devices.go); binds,
// nominations and reports leave nothing to do.
func (s *sink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Eviction:
			s.evict(ctx, it.Victim)
		case *framework.Bind:
			if len(it.Claims) > 0 {
				s.bindClaims(it.Pod, it.Claims)
			}
			if len(it.Volumes) > 0 {
				s.mu.Lock()
				s.volumes = it.Volumes
				s.mu.Unlock()
			}
		case *framework.Deallocation:
			s.deallocate(it.Claim)
		}
	}
	return framework.PlanResult{}, nil
}

// evict deletes a victim, keeping it for the attempt's line.
func (s *sink) evict(ctx context.Context, victim *model.Pod) {
	err := s.remove(ctx, victim)
	if errors.Is(err, scheduler.ErrNotFound) {
		err = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evicted = append(s.evicted, victim)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("simulate: deleting victim %s: %w", victim.Key(), err)
	}
}

// stoppedClock is the scheduler's clock during a simulation: time stands
// still, so nothing backs off or times out. Schedule sets it.
type stoppedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stoppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stoppedClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func ptr[T any](v T) *T { return &v }
