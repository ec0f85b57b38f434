package statesvc_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/statesvc"
)

// fakeSync is a Sync stream served in memory: Recv hands out reqs, then
// io.EOF (the caller closed its side); Send records the acks.
type fakeSync struct {
	grpc.ServerStream // nil: Sync uses only what is below
	ctx               context.Context
	reqs              []*berthv1.SyncRequest
	resps             []*berthv1.SyncResponse
}

func (f *fakeSync) Context() context.Context { return f.ctx }

func (f *fakeSync) Recv() (*berthv1.SyncRequest, error) {
	if len(f.resps) >= len(f.reqs) {
		return nil, io.EOF
	}
	return f.reqs[len(f.resps)], nil
}

func (f *fakeSync) Send(r *berthv1.SyncResponse) error {
	f.resps = append(f.resps, r)
	return nil
}

// syncProgram turns fuzz bytes into Sync requests over a small world (four
// nodes, six pod names with two uids each) so that operations collide:
// upserts, deletes, invalid objects and references, empty mutations,
// resync markers (also out of order and unknown) and resync kinds.
func syncProgram(data []byte) []*berthv1.SyncRequest {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	var reqs []*berthv1.SyncRequest
	cur := &berthv1.SyncRequest{}
	flush := func(marker byte, kinds byte) {
		cur.BatchId = uint64(len(reqs) + 1)
		cur.Resync = []berthv1.Resync{berthv1.Resync_RESYNC_UNSPECIFIED, berthv1.Resync_RESYNC_BEGIN, berthv1.Resync_RESYNC_END, 7}[marker%4]
		switch kinds % 4 {
		case 1:
			cur.ResyncKinds = []berthv1.ObjectKind{kindPod}
		case 2:
			cur.ResyncKinds = []berthv1.ObjectKind{kindNode}
		}
		reqs = append(reqs, cur)
		cur = &berthv1.SyncRequest{}
	}
	add := func(m *berthv1.Mutation) { cur.Mutations = append(cur.Mutations, m) }
	for len(data) > 0 && len(reqs) < 64 {
		op, x, y := next(), next(), next()
		node, pod := fmt.Sprintf("n%d", x%4), fmt.Sprintf("p%d", x%6)
		uid := fmt.Sprintf("uid-%s-%d", pod, y%2)
		switch op % 9 {
		case 0:
			add(upserts(nodeObj(node))[0])
		case 1:
			on := ""
			if y%4 >= 2 {
				on = fmt.Sprintf("n%d", y%4)
			}
			add(upserts(podObj(pod, withUID(uid), withNode(on), withCPU(int64(y)*10)))[0])
		case 2:
			ref := &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: pod}
			if y%3 == 0 {
				ref.Uid = uid
			}
			add(&berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: ref}})
		case 3:
			add(del(kindNode, "", node))
		case 4: // refused: a held pod's name with a negative request
			add(upserts(podObj(pod, withUID(uid), withCPU(-1-int64(y))))[0])
		case 5: // refused without a name to hold
			bad := []*berthv1.Mutation{
				{},
				upserts(podObj("Bad_Name"))[0],
				upserts(&berthv1.Object{})[0],
				{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{Kind: 99, Name: node}}},
				{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{Kind: kindPod, Name: pod}}},
			}
			add(bad[int(y)%len(bad)])
		case 6, 7:
			flush(x, y)
		case 8:
			flush(0, 0)
		}
	}
	if len(cur.Mutations) > 0 {
		flush(0, 0)
	}
	return reqs
}

// FuzzSyncBatches runs fuzzed Sync streams against the service over a
// real scheduler and checks them against a model of what the caller
// asked: each ack accounts for every mutation, in order, with codes a
// caller can act on (never INTERNAL); a bad marker ends the stream with
// INVALID_ARGUMENT or FAILED_PRECONDITION exactly where the model says;
// RESYNC_END deletes exactly the objects of the re-listed kinds not
// re-sent (refused upserts of held objects count as re-sent); and what
// the scheduler holds at the end is what the acks said.
func FuzzSyncBatches(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 1, 0, 2, 6, 0, 0})                                     // nodes, a pending and a bound pod
	f.Add([]byte{0, 0, 0, 1, 0, 3, 6, 1, 0, 0, 0, 0, 6, 2, 0})                            // re-list keeps only n0
	f.Add([]byte{1, 1, 0, 6, 1, 1, 1, 1, 1, 4, 1, 1, 6, 2, 1})                            // a refused upsert keeps its pod
	f.Add([]byte{6, 2, 0, 0, 0, 0})                                                       // RESYNC_END without BEGIN
	f.Add([]byte{6, 0, 1, 1, 0, 0, 6, 3, 0})                                              // kinds without BEGIN, unknown marker
	f.Add([]byte{5, 0, 0, 5, 0, 1, 5, 0, 2, 5, 0, 3, 5, 0, 4, 2, 0, 3, 3, 0, 0, 8, 0, 0}) // refusals
	f.Add([]byte{0, 2, 0, 1, 1, 2, 1, 1, 3, 6, 1, 0, 0, 2, 0, 6, 2, 0, 1, 1, 2})          // re-list, then the stream ends mid-resync
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs := syncProgram(data)
		if len(reqs) == 0 {
			return
		}
		sched := newScheduler(t, &sink{})
		svc := statesvc.New(sides{sched, sched.View()}, statesvc.Options{MaxMutations: 1000})
		stream := &fakeSync{ctx: t.Context(), reqs: reqs}
		err := svc.Sync(stream)

		var m syncModel
		m.init()
		for i, resp := range stream.resps {
			m.check(t, reqs[i], resp)
		}
		if len(stream.resps) < len(reqs) {
			wantCode, why := m.refusal(reqs[len(stream.resps)])
			if why == "" || status.Code(err) != wantCode {
				t.Fatalf("stream ended at batch %d of %d with %v; the model expects %v (%s)", len(stream.resps)+1, len(reqs), err, wantCode, why)
			}
		} else if err != nil {
			t.Fatalf("Sync after every batch: %v", err)
		}
		m.compare(t, sched)
		// A stream that ended mid-resync released its hold: scheduling
		// can be held again.
		release, err := sched.Hold(t.Context())
		if err != nil {
			t.Fatalf("Hold after the stream: %v", err)
		}
		release()
	})
}

type podState struct{ uid, node string }

// syncModel is what one Sync stream should leave held.
type syncModel struct {
	nodes map[string]bool
	pods  map[string]podState // by name (namespace default)
	// The resync open: kinds re-listed and the keys upserted since it began.
	open   bool
	kinds  []berthv1.ObjectKind
	resent map[string]bool
}

func (m *syncModel) init() {
	m.nodes, m.pods, m.resent = map[string]bool{}, map[string]podState{}, map[string]bool{}
}

// refusal is the code the service ends the stream with at req, and why;
// "" when it accepts req.
func (m *syncModel) refusal(req *berthv1.SyncRequest) (codes.Code, string) {
	switch r := req.GetResync(); {
	case r > berthv1.Resync_RESYNC_END:
		return codes.InvalidArgument, "unknown marker"
	case r == berthv1.Resync_RESYNC_END && !m.open:
		return codes.FailedPrecondition, "RESYNC_END without an open resync"
	case len(req.GetResyncKinds()) > 0 && r != berthv1.Resync_RESYNC_BEGIN:
		return codes.FailedPrecondition, "resync_kinds without RESYNC_BEGIN"
	}
	return codes.OK, ""
}

func (m *syncModel) held(key string) bool {
	kind, name, _ := cutKey(key)
	if kind == "node" {
		return m.nodes[name]
	}
	_, ok := m.pods[name]
	return ok
}

func cutKey(key string) (kind, name string, ok bool) {
	for i := range key {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return key, "", false
}

// check applies an acknowledged request to the model, checking the ack.
func (m *syncModel) check(t *testing.T, req *berthv1.SyncRequest, resp *berthv1.SyncResponse) {
	t.Helper()
	if code, why := m.refusal(req); why != "" {
		t.Fatalf("batch %d acknowledged; the model expects the stream to end with %v (%s)", req.GetBatchId(), code, why)
	}
	if resp.GetBatchId() != req.GetBatchId() || int(resp.GetApplied())+len(resp.GetErrors()) != len(req.GetMutations()) {
		t.Fatalf("batch %d: ack %v for %d mutations", req.GetBatchId(), resp, len(req.GetMutations()))
	}
	failed := map[int]*berthv1.ObjectError{}
	for i, e := range resp.GetErrors() {
		if int(e.GetIndex()) >= len(req.GetMutations()) || (i > 0 && e.GetIndex() <= resp.GetErrors()[i-1].GetIndex()) {
			t.Fatalf("batch %d: error indexes out of order or range: %v", req.GetBatchId(), resp.GetErrors())
		}
		switch e.GetCode() {
		case berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION:
		default:
			t.Fatalf("batch %d: mutation %d refused with %v: %s", req.GetBatchId(), e.GetIndex(), e.GetCode(), e.GetMessage())
		}
		failed[int(e.GetIndex())] = e
	}
	if req.GetResync() == berthv1.Resync_RESYNC_BEGIN {
		m.open, m.kinds, m.resent = true, req.GetResyncKinds(), map[string]bool{}
		if len(m.kinds) == 0 {
			m.kinds = []berthv1.ObjectKind{kindPod, kindNode}
		}
	}
	for i, mu := range req.GetMutations() {
		m.apply(t, req.GetBatchId(), i, mu, failed[i])
	}
	if req.GetResync() == berthv1.Resync_RESYNC_END {
		deleted := 0
		if slices.Contains(m.kinds, kindPod) {
			for name := range m.pods {
				if !m.resent["pod/"+name] {
					delete(m.pods, name)
					deleted++
				}
			}
		}
		if slices.Contains(m.kinds, kindNode) {
			for name := range m.nodes {
				if !m.resent["node/"+name] {
					delete(m.nodes, name)
					deleted++
				}
			}
		}
		if int(resp.GetResyncDeleted()) != deleted {
			t.Fatalf("batch %d: RESYNC_END deleted %d objects, the model %d", req.GetBatchId(), resp.GetResyncDeleted(), deleted)
		}
		m.open = false
	}
}

// apply applies one mutation, refused when e is set.
func (m *syncModel) apply(t *testing.T, batch uint64, i int, mu *berthv1.Mutation, e *berthv1.ObjectError) {
	t.Helper()
	switch op := mu.GetOp().(type) {
	case *berthv1.Mutation_Upsert:
		var key string
		switch o := op.Upsert.GetKind().(type) {
		case *berthv1.Object_Node:
			key = "node/" + o.Node.GetName()
			if e == nil {
				m.nodes[o.Node.GetName()] = true
			}
		case *berthv1.Object_Pod:
			key = "pod/" + o.Pod.GetName()
			if o.Pod.GetContainers()[0].GetRequests()["cpu"] < 0 || o.Pod.GetName() == "Bad_Name" {
				if e == nil || e.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT || e.GetFieldPath() == "" {
					t.Fatalf("batch %d: invalid pod %d: %v, want INVALID_ARGUMENT at a field", batch, i, e)
				}
			}
			if e == nil {
				m.pods[o.Pod.GetName()] = podState{uid: o.Pod.GetUid(), node: o.Pod.GetNodeName()}
			}
		default:
			if e == nil {
				t.Fatalf("batch %d: an object of no kind was applied", batch)
			}
			return
		}
		if e == nil || m.held(key) {
			m.resent[key] = true
		}
	case *berthv1.Mutation_Delete:
		ref := op.Delete
		if e != nil {
			if ref.GetKind() == kindPod && ref.GetNamespace() == "" || ref.GetKind() == 42 {
				if e.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT {
					t.Fatalf("batch %d: invalid reference %d: %v", batch, i, e)
				}
			}
			return
		}
		switch ref.GetKind() {
		case kindNode:
			if !m.nodes[ref.GetName()] {
				t.Fatalf("batch %d: deleted node %s, which the model does not hold", batch, ref.GetName())
			}
			delete(m.nodes, ref.GetName())
			delete(m.resent, "node/"+ref.GetName())
		case kindPod:
			p, ok := m.pods[ref.GetName()]
			if !ok || (ref.GetUid() != "" && ref.GetUid() != p.uid) {
				t.Fatalf("batch %d: deleted pod %v, the model holds %v", batch, ref, m.pods)
			}
			delete(m.pods, ref.GetName())
			delete(m.resent, "pod/"+ref.GetName())
		}
	default:
		if e == nil || e.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT {
			t.Fatalf("batch %d: empty mutation %d: %v", batch, i, e)
		}
	}
}

// compare checks what the scheduler holds against the model.
func (m *syncModel) compare(t *testing.T, sched *scheduler.Scheduler) {
	t.Helper()
	nodes, err := sched.View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	gotNodes := map[string]bool{}
	for _, n := range nodes {
		gotNodes[n.Node.Name] = true
	}
	gotPods := map[string]podState{}
	for _, p := range sched.View().Pods() {
		gotPods[p.Name] = podState{uid: p.UID, node: p.NodeName}
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(m.nodes)), slices.Sorted(maps.Keys(gotNodes))); diff != "" {
		t.Errorf("nodes held (-model +scheduler):\n%s", diff)
	}
	if diff := cmp.Diff(m.pods, gotPods, cmp.AllowUnexported(podState{})); diff != "" {
		t.Errorf("pods held (-model +scheduler):\n%s", diff)
	}
}
