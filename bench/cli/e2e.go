package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/bench/inprocess"
	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/model"
)

// Result is one run's JSON line. The first eight fields are issue 8's.
type Result struct {
	Workload      string  `json:"workload"`
	Nodes         int     `json:"nodes"`
	Pods          int     `json:"pods"`
	Seconds       float64 `json:"seconds"`
	PodsPerSecond float64 `json:"podsPerSecond"`
	P50LatencyMs  float64 `json:"p50LatencyMs"`
	P99LatencyMs  float64 `json:"p99LatencyMs"`
	PeakRSSMiB    float64 `json:"peakRSSMiB"`

	Bound         int `json:"bound"`
	Unschedulable int `json:"unschedulable,omitempty"`
	Evicted       int `json:"evicted,omitempty"`
	// RatePodsPerSecond is the offered rate, when pods were paced.
	RatePodsPerSecond float64 `json:"ratePodsPerSecond,omitempty"`
	// Verified is set by --verify: whether every bind is simulate's;
	// Mismatches counts the pods placed differently.
	Verified   *bool `json:"verified,omitempty"`
	Mismatches int   `json:"mismatches,omitempty"`

	binds map[string]string
}

// runOptions tune one end-to-end run.
type runOptions struct {
	batch int           // mutations per Sync request
	rate  float64       // pending pods per second offered; 0: as fast as acked
	wait  time.Duration // how long to wait for every decision
}

// ErrIncomplete is returned when some pending pods were not decided in
// time.
var ErrIncomplete = errors.New("not every pending pod was decided")

// run streams w to the berthd at conn and measures it.
func run(ctx context.Context, conn grpc.ClientConnInterface, w *workload.Workload, o runOptions) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	state := berthv1.NewStateServiceClient(conn)
	watch, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: 1})
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	load, err := newSyncer(ctx, state)
	if err != nil {
		return nil, err
	}
	var initial []*berthv1.Mutation
	for _, pc := range w.PriorityClasses {
		initial = append(initial, upsert(classObject(pc)))
	}
	for _, n := range w.Nodes {
		initial = append(initial, upsert(nodeObject(n)))
	}
	for _, p := range w.Existing {
		initial = append(initial, upsert(podObject(p)))
	}
	for b := range chunks(initial, o.batch) {
		load.send(b)
	}
	if err := load.flush(); err != nil {
		return nil, fmt.Errorf("loading the cluster: %w", err)
	}

	confirm, err := newSyncer(ctx, state)
	if err != nil {
		return nil, err
	}
	t := newTracker(w)
	watchErr := make(chan error, 1)
	go func() { watchErr <- t.follow(ctx, watch, confirm) }()

	start := time.Now()
	var batch []*berthv1.Mutation
	var uids []string
	sent := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		t.sent(uids, time.Now())
		load.send(batch)
		batch, uids = nil, nil
	}
	for _, ev := range w.Stream {
		switch ev.Op {
		case workload.AddPod:
			if o.rate > 0 {
				flush()
				if d := time.Until(start.Add(time.Duration(float64(sent) / o.rate * float64(time.Second)))); d > 0 {
					time.Sleep(d)
				}
			}
			batch = append(batch, upsert(podObject(ev.Pod)))
			uids = append(uids, ev.Pod.UID)
			sent++
		case workload.AddNode:
			batch = append(batch, upsert(nodeObject(ev.Node)))
		case workload.DeleteNode:
			batch = append(batch, remove(nodeRef(ev.Node)))
		case workload.DeletePod:
			batch = append(batch, remove(podRef(ev.Pod)))
		}
		if len(batch) >= o.batch {
			flush()
		}
	}
	flush()
	timeout := time.NewTimer(o.wait)
	defer timeout.Stop()
	select {
	case <-t.done:
	case err := <-watchErr:
		return nil, fmt.Errorf("watch ended: %w", err)
	case <-timeout.C:
		return nil, fmt.Errorf("%s: %d of %d decided after %v: %w", w.Name, t.decidedCount(), len(w.Pending), o.wait, ErrIncomplete)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	elapsed := time.Since(start)
	if err := errors.Join(load.flush(), confirm.flush()); err != nil {
		return nil, err
	}
	return t.result(elapsed, o.rate), nil
}

func upsert(o *berthv1.Object) *berthv1.Mutation {
	return &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
}

func remove(r *berthv1.ObjectRef) *berthv1.Mutation {
	return &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: r}}
}

func chunks(ms []*berthv1.Mutation, n int) func(func([]*berthv1.Mutation) bool) {
	return func(yield func([]*berthv1.Mutation) bool) {
		for len(ms) > 0 {
			k := min(n, len(ms))
			if !yield(ms[:k]) {
				return
			}
			ms = ms[k:]
		}
	}
}

// syncer is one Sync stream: send never waits for the acknowledgement;
// flush waits for every one and reports the per-object errors.
type syncer struct {
	stream  berthv1.StateService_SyncClient
	mu      sync.Mutex
	next    uint64
	acked   uint64
	errs    []error
	sendErr error
	cond    *sync.Cond
}

func newSyncer(ctx context.Context, c berthv1.StateServiceClient) (*syncer, error) {
	stream, err := c.Sync(ctx)
	if err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	s := &syncer{stream: stream}
	s.cond = sync.NewCond(&s.mu)
	go s.receive()
	return s, nil
}

// send sends one batch (the caller serializes sends).
func (s *syncer) send(ms []*berthv1.Mutation) {
	s.mu.Lock()
	s.next++
	id := s.next
	s.mu.Unlock()
	if err := s.stream.Send(&berthv1.SyncRequest{BatchId: id, Mutations: ms}); err != nil {
		s.mu.Lock()
		s.sendErr = errors.Join(s.sendErr, err)
		s.acked = s.next // nothing more will come back for it
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

func (s *syncer) receive() {
	for {
		resp, err := s.stream.Recv()
		s.mu.Lock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.sendErr = errors.Join(s.sendErr, fmt.Errorf("sync: %w", err))
			}
			s.acked = ^uint64(0)
			s.cond.Broadcast()
			s.mu.Unlock()
			return
		}
		for _, e := range resp.GetErrors() {
			if e.GetCode() != berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
				s.errs = append(s.errs, fmt.Errorf("batch %d mutation %d (%v %s/%s): %v %s: %s", resp.GetBatchId(), e.GetIndex(),
					e.GetRef().GetKind(), e.GetRef().GetNamespace(), e.GetRef().GetName(), e.GetCode(), e.GetFieldPath(), e.GetMessage()))
			}
		}
		s.acked = max(s.acked, resp.GetBatchId())
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// flush waits until every batch sent is acknowledged.
func (s *syncer) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.acked < s.next {
		s.cond.Wait()
	}
	err := errors.Join(append(s.errs, s.sendErr)...)
	s.errs = nil
	return err
}

// tracker follows the decisions of the pending pods.
type tracker struct {
	w       *workload.Workload
	pending map[string]*model.Pod
	pods    map[string]*model.Pod // every pod sent, for confirmations

	mu        sync.Mutex
	sentAt    map[string]time.Time
	latencies []time.Duration
	binds     map[string]string
	unsched   map[string]bool
	evicted   int
	done      chan struct{}
}

func newTracker(w *workload.Workload) *tracker {
	t := &tracker{
		w:       w,
		pending: make(map[string]*model.Pod, len(w.Pending)),
		pods:    make(map[string]*model.Pod, len(w.Pending)+len(w.Existing)),
		sentAt:  make(map[string]time.Time, len(w.Pending)),
		binds:   make(map[string]string, len(w.Pending)),
		unsched: make(map[string]bool),
		done:    make(chan struct{}),
	}
	for _, p := range w.Pending {
		t.pending[p.UID] = p
		t.pods[p.UID] = p
	}
	for _, p := range w.Existing {
		t.pods[p.UID] = p
	}
	if len(w.Pending) == 0 {
		close(t.done)
	}
	return t
}

func (t *tracker) sent(uids []string, at time.Time) {
	t.mu.Lock()
	for _, u := range uids {
		t.sentAt[u] = at
	}
	t.mu.Unlock()
}

// follow reads the Watch stream: it records the decisions and, through
// confirm, confirms each bind (the pod comes back with its node) and
// deletes each victim, batching what arrived together.
func (t *tracker) follow(ctx context.Context, watch berthv1.DecisionService_WatchClient, confirm *syncer) error {
	for {
		resp, err := watch.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		now := time.Now()
		var ms []*berthv1.Mutation
		t.mu.Lock()
		for _, d := range resp.GetDecisions() {
			uid := d.GetPod().GetUid()
			switch {
			case d.GetBind() != nil:
				p, known := t.pods[uid]
				if !known {
					continue
				}
				if _, target := t.pending[uid]; target {
					if _, dup := t.binds[uid]; !dup {
						delete(t.unsched, uid)
						t.binds[uid] = d.GetBind().GetNode()
						t.decidedLocked(uid, now)
					}
				}
				ms = append(ms, upsert(podObject(workload.Bound(p, d.GetBind().GetNode()))))
			case d.GetEvict() != nil:
				v := d.GetEvict().GetVictim()
				if v == nil {
					v = d.GetPod()
				}
				t.evicted++
				ms = append(ms, remove(&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: v.GetNamespace(), Name: v.GetName(), Uid: v.GetUid()}))
			case d.GetUnschedulable() != nil:
				p, target := t.pending[uid]
				if _, bound := t.binds[uid]; target && !bound && !t.unsched[uid] && !workload.Fits(p) {
					t.unsched[uid] = true
					t.decidedLocked(uid, now)
				}
			}
		}
		t.mu.Unlock()
		if len(ms) > 0 {
			confirm.send(ms)
		}
	}
}

func (t *tracker) decidedLocked(uid string, at time.Time) {
	if s, ok := t.sentAt[uid]; ok {
		t.latencies = append(t.latencies, at.Sub(s))
	}
	if len(t.binds)+len(t.unsched) == len(t.pending) {
		close(t.done)
	}
}

func (t *tracker) decidedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.binds) + len(t.unsched)
}

func (t *tracker) result(elapsed time.Duration, rate float64) *Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &Result{
		Workload:          t.w.Name,
		Nodes:             t.w.Spec.Nodes,
		Pods:              len(t.pending),
		Seconds:           round3(elapsed.Seconds()),
		Bound:             len(t.binds),
		Unschedulable:     len(t.unsched),
		Evicted:           t.evicted,
		RatePodsPerSecond: rate,
		binds:             maps.Clone(t.binds),
	}
	r.PodsPerSecond = round3(float64(r.Pods) / elapsed.Seconds())
	r.P50LatencyMs = round3(inprocess.Percentile(t.latencies, 50))
	r.P99LatencyMs = round3(inprocess.Percentile(t.latencies, 99))
	return r
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
