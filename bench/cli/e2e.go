package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/bench/inprocess"
	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
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
	// P90LatencyMs and P999LatencyMs complete the distribution.
	P90LatencyMs  float64 `json:"p90LatencyMs"`
	P999LatencyMs float64 `json:"p999LatencyMs"`
	// Server is what the kernel counted for the berthd process over the
	// window, per pod; set when bench started berthd.
	Server *ProcessCost `json:"server,omitempty"`
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
	probe *probe        // if set, measures the berthd process over the window
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
	for _, o := range deviceObjects(w.Devices) {
		initial = append(initial, upsert(o))
	}
	if w.Storage != nil {
		for _, o := range w.Storage.Objects() {
			initial = append(initial, upsert(convert.VolumeObjectToProto(o)))
		}
	}
	if w.Queues != nil {
		for _, ns := range w.Queues.Namespaces {
			initial = append(initial, upsert(&berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: convert.NamespaceToProto(ns)}}))
		}
		for _, o := range w.Queues.Objects {
			initial = append(initial, upsert(convert.QueueObjectToProto(o)))
		}
	}
	for _, g := range w.PodGroups {
		initial = append(initial, upsert(groupObject(g)))
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
	// Everything an orchestrator holds before its pods are created is
	// built here, outside the clock: the tracker's per-pod entries (with
	// each pending pod's proto, reused as its bind confirmation) and the
	// stream's Sync requests, already marshalled.
	t := newTracker(w)
	plan := planStream(w, o, t)
	msgs, err := load.prepare(plan.batches)
	if err != nil {
		return nil, fmt.Errorf("preparing the stream: %w", err)
	}
	plan.batches = nil
	t.base = time.Now()
	if o.probe != nil {
		if err := o.probe.begin(ctx); err != nil {
			return nil, fmt.Errorf("measuring berthd: %w", err)
		}
	}
	watchErr := make(chan error, 1)
	var start time.Time
	// The label marks the client's work inside the clock in a CPU profile
	// (go tool pprof -tagfocus bench=window); follow inherits it.
	pprof.Do(ctx, pprof.Labels("bench", "window"), func(context.Context) {
		go func() { watchErr <- t.follow(ctx, watch, confirm) }()
		start = time.Now()
		for i, m := range msgs {
			if k := plan.paceAt[i]; k >= 0 {
				if d := time.Until(start.Add(time.Duration(float64(k) / o.rate * float64(time.Second)))); d > 0 {
					time.Sleep(d)
				}
			}
			t.sent(i)
			load.sendPrepared(m)
			msgs[i] = nil // sent: let the collector have it
		}
	})
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
	// Once the last confirmation is acknowledged: its cost is the pod's.
	if err := errors.Join(load.flush(), confirm.flush()); err != nil {
		return nil, err
	}
	r := t.result(elapsed, o.rate)
	if o.probe != nil {
		var err error
		if r.Server, err = o.probe.end(r.Pods); err != nil {
			return nil, fmt.Errorf("measuring berthd: %w", err)
		}
	}
	return r, nil
}

// streamPlan is w.Stream cut into Sync batches as they will be sent.
type streamPlan struct {
	batches [][]*berthv1.Mutation
	// paceAt[i] is, under --rate, the number of pending pods sent before
	// batch i when it opens with a pending pod (it waits for its slot);
	// -1 when batch i is sent at once.
	paceAt []int
}

// planStream cuts w.Stream into batches of at most o.batch mutations;
// under --rate a pending pod always opens a new batch, so that it can wait
// for its slot. It records in t which batch carries each pending pod and
// makes room for the batches' send times.
func planStream(w *workload.Workload, o runOptions, t *tracker) streamPlan {
	var p streamPlan
	var batch []*berthv1.Mutation
	pace, sent := -1, 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		p.batches = append(p.batches, batch)
		p.paceAt = append(p.paceAt, pace)
		batch, pace = nil, -1
	}
	for _, ev := range w.Stream {
		switch ev.Op {
		case workload.AddPod:
			if o.rate > 0 {
				flush()
				pace = sent
			}
			e := t.pods[ev.Pod.UID]
			e.batch = len(p.batches)
			if ev.Pod.NodeName == "" {
				batch = append(batch, e.confirm) // the same proto, node_name unset
			} else {
				batch = append(batch, upsert(podObject(ev.Pod)))
			}
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
	t.sentAt = make([]atomic.Int64, len(p.batches))
	return p
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
	s.sendMsg(&berthv1.SyncRequest{BatchId: id, Mutations: ms})
}

// sendMsg sends a *berthv1.SyncRequest or a *grpc.PreparedMsg.
func (s *syncer) sendMsg(m any) {
	if err := s.stream.SendMsg(m); err != nil {
		s.mu.Lock()
		s.sendErr = errors.Join(s.sendErr, err)
		s.acked = s.next // nothing more will come back for it
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// prepare marshals batches ahead of time, as the Sync requests that
// follow the ones already sent: they must be sent in order, with
// sendPrepared and nothing else on s in between.
func (s *syncer) prepare(batches [][]*berthv1.Mutation) ([]*grpc.PreparedMsg, error) {
	s.mu.Lock()
	id := s.next
	s.mu.Unlock()
	out := make([]*grpc.PreparedMsg, len(batches))
	for i, ms := range batches {
		id++
		out[i] = new(grpc.PreparedMsg)
		if err := out[i].Encode(s.stream, &berthv1.SyncRequest{BatchId: id, Mutations: ms}); err != nil {
			return nil, fmt.Errorf("batch %d: %w", id, err)
		}
	}
	return out, nil
}

// sendPrepared sends the next batch prepare made.
func (s *syncer) sendPrepared(m *grpc.PreparedMsg) {
	s.mu.Lock()
	s.next++
	s.mu.Unlock()
	s.sendMsg(m)
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
	w *workload.Workload
	// pods holds every pod that may be bound (pending and existing); the
	// map is filled before the clock starts and only read afterwards.
	pods     map[string]*podEntry
	nPending int
	// sentAt[i] is when stream batch i was sent, in nanoseconds since
	// base plus one (0: not sent yet); atomic because the decision that
	// reads it reaches follow through the server, which the race
	// detector cannot see.
	sentAt []atomic.Int64
	base   time.Time

	mu        sync.Mutex // guards the entries' decision fields and below
	latencies []time.Duration
	decided   int
	evicted   int
	resp      uint64 // Watch responses seen, for podEntry.usedIn
	done      chan struct{}
}

// podEntry is the tracker's view of one pod.
type podEntry struct {
	pod     *model.Pod
	pending bool
	fits    bool // workload.Fits(pod), for pending pods
	batch   int  // stream batch carrying it (pending pods)
	// confirm upserts the pod: for a pending pod, built before the clock
	// and sent with node_name unset in the stream; on each bind node_name
	// is set and it is sent back (Send marshals it before returning, so
	// reusing it is safe). Existing pods get theirs at their first bind.
	confirm *berthv1.Mutation
	usedIn  uint64 // the Watch response whose confirmations hold confirm

	bound   bool
	node    string // bound to
	unsched bool
}

func newTracker(w *workload.Workload) *tracker {
	t := &tracker{
		w:    w,
		pods: make(map[string]*podEntry, len(w.Pending)+len(w.Existing)),
		// Pods quota keeps waiting are never decided (gated).
		nPending:  len(w.Pending) - w.HeldByQuota,
		latencies: make([]time.Duration, 0, len(w.Pending)),
		done:      make(chan struct{}),
	}
	entries := make([]podEntry, len(w.Pending)+len(w.Existing))
	for i, p := range w.Pending {
		e := &entries[i]
		*e = podEntry{pod: p, pending: true, fits: workload.Fits(p), batch: -1, confirm: upsert(podObject(workload.Bound(p, "")))}
		t.pods[p.UID] = e
	}
	for i, p := range w.Existing {
		e := &entries[len(w.Pending)+i]
		*e = podEntry{pod: p, batch: -1}
		t.pods[p.UID] = e
	}
	if t.nPending <= 0 {
		close(t.done)
	}
	return t
}

// sent records that stream batch i is being sent.
func (t *tracker) sent(i int) { t.sentAt[i].Store(int64(time.Since(t.base)) + 1) }

// follow reads the Watch stream: it records the decisions and, through
// confirm, confirms each bind (the pod comes back with its node) and
// deletes each victim, batching what arrived together.
func (t *tracker) follow(ctx context.Context, watch berthv1.DecisionService_WatchClient, confirm *syncer) error {
	var ms []*berthv1.Mutation
	for {
		resp, err := watch.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		now := time.Since(t.base)
		ms = ms[:0]
		t.mu.Lock()
		t.resp++
		for _, d := range resp.GetDecisions() {
			uid := d.GetPod().GetUid()
			switch {
			case d.GetBind() != nil:
				e, known := t.pods[uid]
				if !known {
					continue
				}
				node := d.GetBind().GetNode()
				if e.pending && !e.bound {
					if e.unsched {
						e.unsched = false
						t.decided--
					}
					e.bound, e.node = true, node
					t.decidedLocked(e, now)
				}
				ms = append(ms, t.confirmation(e, node))
			case d.GetEvict() != nil:
				v := d.GetEvict().GetVictim()
				if v == nil {
					v = d.GetPod()
				}
				t.evicted++
				ms = append(ms, remove(&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: v.GetNamespace(), Name: v.GetName(), Uid: v.GetUid()}))
			case d.GetUnschedulable() != nil:
				if e := t.pods[uid]; e != nil && e.pending && !e.bound && !e.unsched && !e.fits {
					e.unsched = true
					t.decidedLocked(e, now)
				}
			}
		}
		t.mu.Unlock()
		if len(ms) > 0 {
			confirm.send(ms)
			clear(ms) // drop the references until the next response
		}
	}
}

// confirmation is e's pod bound to node, as an upsert.
func (t *tracker) confirmation(e *podEntry, node string) *berthv1.Mutation {
	if e.confirm == nil {
		e.confirm = upsert(podObject(workload.Bound(e.pod, "")))
	}
	m := e.confirm
	if e.usedIn == t.resp {
		// Bound twice in one response: each bind keeps its own node.
		m = proto.CloneOf(m)
	}
	e.usedIn = t.resp
	m.GetUpsert().GetPod().NodeName = node
	return m
}

func (t *tracker) decidedLocked(e *podEntry, now time.Duration) {
	if e.batch >= 0 {
		if s := t.sentAt[e.batch].Load(); s != 0 {
			t.latencies = append(t.latencies, now-time.Duration(s-1))
		}
	}
	t.decided++
	if t.decided == t.nPending {
		select {
		case <-t.done: // an unschedulable pod bound later
		default:
			close(t.done)
		}
	}
}

func (t *tracker) decidedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.decided
}

func (t *tracker) result(elapsed time.Duration, rate float64) *Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &Result{
		Workload:          t.w.Name,
		Nodes:             t.w.Spec.Nodes,
		Pods:              t.nPending,
		Seconds:           round3(elapsed.Seconds()),
		Evicted:           t.evicted,
		RatePodsPerSecond: rate,
		binds:             make(map[string]string, t.nPending),
	}
	for uid, e := range t.pods {
		switch {
		case !e.pending:
		case e.bound:
			r.binds[uid] = e.node
		case e.unsched:
			r.Unschedulable++
		}
	}
	r.Bound = len(r.binds)
	r.PodsPerSecond = round3(float64(r.Pods) / elapsed.Seconds())
	r.P50LatencyMs = round3(inprocess.Percentile(t.latencies, 50))
	r.P90LatencyMs = round3(inprocess.Percentile(t.latencies, 90))
	r.P99LatencyMs = round3(inprocess.Percentile(t.latencies, 99))
	r.P999LatencyMs = round3(inprocess.Percentile(t.latencies, 99.9))
	return r
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
