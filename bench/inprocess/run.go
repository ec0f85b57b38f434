package inprocess

import (
	"context"
	"errors"
	"fmt"
	"maps"
	goruntime "runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
)

// Options tune a Run.
type Options struct {
	// Registry defaults to registry.InTree().
	Registry runtime.Registry
	// Config defaults to config.Default() without the plugins Registry
	// lacks.
	Config *config.Config
	// Deterministic runs the scheduler as core/simulate does (parallelism
	// 1, ties to the smallest node name), so the binds can be compared.
	Deterministic bool
	// Timeout bounds the run; 0 means 10 minutes.
	Timeout time.Duration
	// Rate offers the pending pods at this many per second; 0 sends them
	// all at once.
	Rate float64
	// Measure fills Result's costs: the live heap once the cluster is
	// loaded (two collections before the clock starts), and the process's
	// CPU time and allocations inside the clock.
	Measure bool
}

// Result is what a Run measured.
type Result struct {
	Workload string
	Nodes    int
	Pods     int
	// Seconds from the first change sent to the last pending pod decided.
	Seconds       float64
	PodsPerSecond float64
	// Latency percentiles of the pending pods, from AddPod to decision.
	P50LatencyMs float64
	P99LatencyMs float64
	Bound        int
	// Unschedulable counts the pending pods that ended unschedulable.
	Unschedulable int
	Evicted       int
	// Binds maps each bound pending pod's UID to its node.
	Binds map[string]string

	// With Options.Measure: the live heap with the cluster loaded and no
	// pod pending, and the process's CPU time (user and system, every
	// goroutine: the driver's too) and bytes allocated inside the clock.
	LoadedHeapBytes int64
	CPUSeconds      float64
	AllocBytes      int64
}

// ErrTimeout is returned when the pending pods were not all decided in
// time.
var ErrTimeout = errors.New("pending pods not decided in time")

// Run schedules the workload in process and measures it.
func Run(ctx context.Context, w *workload.Workload, opts Options) (*Result, error) {
	if opts.Registry == nil {
		opts.Registry = registry.InTree()
	}
	if opts.Config == nil {
		opts.Config = DefaultConfig(opts.Registry)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	d := newDriver(w)
	s, err := scheduler.New(ctx, scheduler.Options{
		Config:        opts.Config,
		Registry:      opts.Registry,
		Decisions:     d,
		Deterministic: opts.Deterministic,
	})
	if err != nil {
		return nil, fmt.Errorf("inprocess: %w", err)
	}
	if err := Load(ctx, s, w); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var loops sync.WaitGroup
	loops.Go(func() { s.Run(runCtx) })
	loops.Go(func() { d.apply(runCtx, s) })
	defer loops.Wait()
	defer cancel()

	var before cost
	var loaded int64
	if opts.Measure {
		loaded = liveHeap()
		before = costNow()
	}
	start := time.Now()
	sent := 0
	for _, ev := range w.Stream {
		if ev.Op == workload.AddPod {
			if opts.Rate > 0 {
				pace(start, sent, opts.Rate)
			}
			sent++
			d.sent(ev.Pod.UID, time.Now())
		}
		if err := Apply(ctx, s, ev); err != nil {
			return nil, err
		}
	}
	select {
	case <-d.done:
	case <-runCtx.Done():
		return nil, fmt.Errorf("inprocess %s: %d of %d decided: %w", w.Name, d.decidedCount(), len(w.Pending), ErrTimeout)
	}
	elapsed := time.Since(start)
	after := costNow()
	if err := d.failure(); err != nil {
		return nil, err
	}
	r := d.result(elapsed)
	if opts.Measure {
		r.LoadedHeapBytes = loaded
		r.CPUSeconds = after.cpu - before.cpu
		r.AllocBytes = int64(after.alloc - before.alloc)
	}
	return r, nil
}

// cost is what the process has spent so far.
type cost struct {
	cpu   float64 // seconds, user and system
	alloc uint64  // bytes allocated
}

func costNow() cost {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return cost{
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(),
		alloc: m.TotalAlloc,
	}
}

// liveHeap is the heap in use after two collections.
func liveHeap() int64 {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// pace waits until the n-th pod of a stream offered at rate pods/s is due.
func pace(start time.Time, n int, rate float64) {
	if d := time.Until(start.Add(time.Duration(float64(n) / rate * float64(time.Second)))); d > 0 {
		time.Sleep(d)
	}
}

// DefaultConfig is config.Default() without the plugins reg lacks (while
// some, such as DefaultPreemption, are still being written).
func DefaultConfig(reg runtime.Registry) *config.Config {
	cfg := config.Default()
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i].Plugins
		for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
			set := p.Set(point)
			set.Enabled = slices.DeleteFunc(set.Enabled, func(pl config.Plugin) bool {
				_, ok := reg[pl.Name]
				return !ok
			})
		}
	}
	return cfg
}

// Load sends the workload's initial cluster: priority classes, nodes, DRA
// objects, pod groups and running pods.
func Load(ctx context.Context, s *scheduler.Scheduler, w *workload.Workload) error {
	for _, pc := range w.PriorityClasses {
		if err := s.Upsert(ctx, pc); err != nil {
			return fmt.Errorf("priority class %s: %w", pc.Name, err)
		}
	}
	for _, n := range w.Nodes {
		if err := s.Upsert(ctx, n); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	if d := w.Devices; d != nil {
		var objs []any
		for _, c := range d.Classes {
			objs = append(objs, c)
		}
		for _, sl := range d.Slices {
			objs = append(objs, sl)
		}
		for _, t := range d.Templates {
			objs = append(objs, t)
		}
		for _, o := range objs {
			if err := s.Upsert(ctx, o); err != nil {
				return fmt.Errorf("DRA object: %w", err)
			}
		}
	}
	if st := w.Storage; st != nil {
		for _, o := range st.Objects() {
			if err := s.Upsert(ctx, o); err != nil {
				return fmt.Errorf("storage object: %w", err)
			}
		}
	}
	for _, g := range w.PodGroups {
		if err := s.Upsert(ctx, g); err != nil {
			return fmt.Errorf("pod group %s: %w", g.Key(), err)
		}
	}
	for _, p := range w.Existing {
		if err := s.AddPod(ctx, p); err != nil {
			return fmt.Errorf("pod %s: %w", p.Key(), err)
		}
	}
	return nil
}

// Apply sends one change.
func Apply(ctx context.Context, s *scheduler.Scheduler, ev workload.Event) error {
	var err error
	switch ev.Op {
	case workload.AddNode:
		err = s.Upsert(ctx, ev.Node)
	case workload.DeleteNode:
		err = s.Delete(ctx, objstore.Ref{Kind: objstore.KindNode, Name: ev.Node.Name})
	case workload.AddPod:
		err = s.AddPod(ctx, ev.Pod)
	case workload.DeletePod:
		err = s.DeletePod(ctx, ev.Pod)
	}
	if err != nil {
		return fmt.Errorf("%v: %w", ev.Op, err)
	}
	return nil
}

// driver is the orchestrator's side: it receives the decisions and, on
// its own goroutine, confirms binds and deletes victims.
type driver struct {
	w       *workload.Workload
	pending map[string]*model.Pod

	mu        sync.Mutex
	sentAt    map[string]time.Time
	latencies []time.Duration
	binds     map[string]string
	unsched   map[string]bool
	evicted   int
	todo      []func(context.Context, *scheduler.Scheduler) error
	err       error
	wake      chan struct{}
	done      chan struct{}
}

var _ framework.Planner = (*driver)(nil)

// Submit plays the orchestrator's part for each decision.
func (d *driver) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Bind:
			d.bind(it.Pod, it.Node)
		case *framework.Eviction:
			d.evict(it.Victim)
		case *framework.UnschedulableReport:
			d.unschedulable(it.Pod)
		}
	}
	return framework.PlanResult{}, nil
}

func newDriver(w *workload.Workload) *driver {
	d := &driver{
		w:       w,
		pending: make(map[string]*model.Pod, len(w.Pending)),
		sentAt:  make(map[string]time.Time, len(w.Pending)),
		binds:   make(map[string]string, len(w.Pending)),
		unsched: make(map[string]bool),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	for _, p := range w.Pending {
		d.pending[p.UID] = p
	}
	if len(w.Pending) == 0 {
		close(d.done)
	}
	return d
}

func (d *driver) sent(uid string, t time.Time) {
	d.mu.Lock()
	d.sentAt[uid] = t
	d.mu.Unlock()
}

// later queues work for the apply loop.
func (d *driver) later(f func(context.Context, *scheduler.Scheduler) error) {
	d.mu.Lock()
	d.todo = append(d.todo, f)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// decidedLocked records the decision of a pending pod; it closes done
// with the last one.
func (d *driver) decidedLocked(uid string) {
	if t, ok := d.sentAt[uid]; ok {
		d.latencies = append(d.latencies, time.Since(t))
	}
	if len(d.binds)+len(d.unsched) == len(d.pending) {
		close(d.done)
	}
}

func (d *driver) bind(pod *model.Pod, node string) {
	d.mu.Lock()
	_, target := d.pending[pod.UID]
	if _, dup := d.binds[pod.UID]; target && !dup {
		delete(d.unsched, pod.UID) // a preemptor reported before it got a node
		d.binds[pod.UID] = node
		d.decidedLocked(pod.UID)
	}
	d.mu.Unlock()
	bound := workload.Bound(pod, node)
	d.later(func(ctx context.Context, s *scheduler.Scheduler) error { return s.AddPod(ctx, bound) })
}

func (d *driver) evict(victim *model.Pod) {
	d.mu.Lock()
	d.evicted++
	d.mu.Unlock()
	d.later(func(ctx context.Context, s *scheduler.Scheduler) error {
		if err := s.DeletePod(ctx, victim); err != nil && !errors.Is(err, scheduler.ErrNotFound) {
			return err
		}
		return nil
	})
}

// unschedulable decides the pods no node can ever take; the others
// (preemptors waiting for their victims to go) are not decided yet.
func (d *driver) unschedulable(pod *model.Pod) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, target := d.pending[pod.UID]
	_, bound := d.binds[pod.UID]
	if target && !bound && !d.unsched[pod.UID] && !workload.Fits(pod) {
		d.unsched[pod.UID] = true
		d.decidedLocked(pod.UID)
	}
}

// apply runs the queued work until ctx ends.
func (d *driver) apply(ctx context.Context, s *scheduler.Scheduler) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		d.mu.Lock()
		todo := d.todo
		d.todo = nil
		d.mu.Unlock()
		for _, f := range todo {
			if err := f(ctx, s); err != nil && ctx.Err() == nil {
				d.mu.Lock()
				d.err = errors.Join(d.err, err)
				d.mu.Unlock()
			}
		}
	}
}

func (d *driver) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *driver) decidedCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.binds) + len(d.unsched)
}

func (d *driver) result(elapsed time.Duration) *Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := &Result{
		Workload:      d.w.Name,
		Nodes:         d.w.Spec.Nodes,
		Pods:          len(d.w.Pending),
		Seconds:       elapsed.Seconds(),
		Bound:         len(d.binds),
		Unschedulable: len(d.unsched),
		Evicted:       d.evicted,
		Binds:         maps.Clone(d.binds),
	}
	r.PodsPerSecond = float64(r.Pods) / r.Seconds
	r.P50LatencyMs, r.P99LatencyMs = Percentile(d.latencies, 50), Percentile(d.latencies, 99)
	return r
}

// Percentile returns the p-th percentile (nearest rank) of ds in
// milliseconds; 0 when ds is empty. It sorts ds.
func Percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(p/100*float64(len(ds))+0.5) - 1
	rank = min(max(rank, 0), len(ds)-1)
	return float64(ds[rank]) / float64(time.Millisecond)
}
