package main

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fakeBerthd implements berth.v1 with canned answers and records what it
// was sent.
type fakeBerthd struct {
	berthv1.UnimplementedStateServiceServer
	berthv1.UnimplementedDecisionServiceServer
	berthv1.UnimplementedAdminServiceServer
	berthv1.UnimplementedEvictionServiceServer

	// token, when set, is the bearer token every call must carry.
	token string
	// refuse says why an upserted object is refused; nil accepts it.
	refuse func(*berthv1.Object) *berthv1.ObjectError
	// watch is what Watch sends before waiting for the client to leave.
	watch []*berthv1.WatchResponse
	// watchErr, when set, ends Watch after it sent watch.
	watchErr error
	// compactedBelow makes Watch from an older revision fail OUT_OF_RANGE.
	compactedBelow uint64
	// nextRevision makes Watch beyond it fail OUT_OF_RANGE (not written).
	nextRevision uint64
	// held are the objects Delete finds, as "KIND key".
	held map[string]bool
	// explain answers Explain for these pod names, before the canned "web".
	explain map[string]*berthv1.ExplainResponse
	// info answers ServerInfo; nil: UNIMPLEMENTED, as an older berthd.
	info *berthv1.ServerInfoResponse
	// empty makes ListPods, ListPending, ListNodes and QueueStats answer nothing.
	empty bool
	// follower makes StateService calls fail with NOT_LEADER naming leader
	// (empty: no leader known), as a berthd replica that does not lead.
	follower bool
	leader   string
	// leadAfter > 0: the follower becomes the leader after refusing that
	// many calls (an election that ends).
	leadAfter int
	// nodePods is what ListNodePods answers for every node, with
	// nodePodsLater once a pod was evicted (drain_test.go).
	nodePods, nodePodsLater []*berthv1.NodePod
	// queues answers ListQueueObjects by kind (queues_test.go).
	queues map[berthv1.ObjectKind]*berthv1.ListQueueObjectsResponse

	mu        sync.Mutex
	syncReqs  []*berthv1.SyncRequest
	deletes   []*berthv1.DeleteRequest
	watchReq  *berthv1.WatchRequest
	nodeReqs  []*berthv1.ListNodesRequest
	pendReqs  []*berthv1.ListPendingRequest
	reports   []*berthv1.ReportBindResultRequest
	auth      []string
	refused   []string // StateService methods refused as a follower
	evicts    []*berthv1.EvictPodRequest
	queueReqs []*berthv1.ListQueueObjectsRequest
}

// start serves f on a loopback port and returns its address; opts are
// added to the server's (TLS).
func (f *fakeBerthd) start(t *testing.T, opts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(append([]grpc.ServerOption{
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := f.authorize(ctx); err != nil {
				return nil, err
			}
			if err := f.refuseWrite(info.FullMethod); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := f.authorize(ss.Context()); err != nil {
				return err
			}
			if err := f.refuseWrite(info.FullMethod); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}, opts...)...)
	berthv1.RegisterStateServiceServer(s, f)
	berthv1.RegisterDecisionServiceServer(s, f)
	berthv1.RegisterAdminServiceServer(s, f)
	berthv1.RegisterEvictionServiceServer(s, f)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

// refuseWrite is a follower's NOT_LEADER answer to a StateService call.
func (f *fakeBerthd) refuseWrite(method string) error {
	f.mu.Lock()
	follower := f.follower
	f.mu.Unlock()
	if !follower || !strings.HasPrefix(method, "/berth.v1.StateService/") {
		return nil
	}
	f.mu.Lock()
	f.refused = append(f.refused, method)
	f.follower = len(f.refused) != f.leadAfter
	f.mu.Unlock()
	st, err := status.New(codes.Unavailable, "not the leader").WithDetails(&errdetails.ErrorInfo{
		Reason: "NOT_LEADER", Domain: "berth.v1", Metadata: map[string]string{"leader": f.leader},
	})
	if err != nil {
		return err
	}
	return st.Err()
}

func (f *fakeBerthd) authorize(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.auth = append(f.auth, md.Get("authorization")...)
	f.mu.Unlock()
	if f.token != "" && (len(md.Get("authorization")) != 1 || md.Get("authorization")[0] != "Bearer "+f.token) {
		return status.Error(codes.Unauthenticated, "missing or invalid bearer token")
	}
	return nil
}

func (f *fakeBerthd) Sync(stream berthv1.StateService_SyncServer) error {
	for {
		req, err := stream.Recv()
		if err != nil {
			return nil
		}
		f.mu.Lock()
		f.syncReqs = append(f.syncReqs, req)
		f.mu.Unlock()
		resp := &berthv1.SyncResponse{BatchId: req.GetBatchId()}
		for i, m := range req.GetMutations() {
			if e := f.refuseObject(m.GetUpsert()); e != nil {
				e.Index = uint32(i)
				resp.Errors = append(resp.Errors, e)
				continue
			}
			resp.Applied++
		}
		if req.GetResync() == berthv1.Resync_RESYNC_END {
			resp.ResyncDeleted = 2
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func (f *fakeBerthd) refuseObject(o *berthv1.Object) *berthv1.ObjectError {
	if f.refuse == nil || o == nil {
		return nil
	}
	return f.refuse(o)
}

func (f *fakeBerthd) Delete(_ context.Context, req *berthv1.DeleteRequest) (*berthv1.DeleteResponse, error) {
	f.mu.Lock()
	f.deletes = append(f.deletes, req)
	f.mu.Unlock()
	resp := &berthv1.DeleteResponse{}
	for i, r := range req.GetRefs() {
		key := r.GetName()
		if r.GetNamespace() != "" {
			key = r.GetNamespace() + "/" + key
		}
		if key == "shop/locked" {
			resp.Errors = append(resp.Errors, &berthv1.ObjectError{Index: uint32(i), Ref: r, Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION, FieldPath: "uid", Message: "the held pod has another uid"})
			continue
		}
		if !f.held[kindName(r.GetKind())+" "+key] {
			resp.Errors = append(resp.Errors, &berthv1.ObjectError{Index: uint32(i), Ref: r, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "not held"})
			continue
		}
		resp.Deleted++
	}
	return resp, nil
}

func (f *fakeBerthd) Watch(req *berthv1.WatchRequest, stream berthv1.DecisionService_WatchServer) error {
	f.mu.Lock()
	f.watchReq = req
	f.mu.Unlock()
	if f.nextRevision > 0 && req.GetFromRevision() > f.nextRevision {
		st, err := status.New(codes.OutOfRange, "revision beyond the end").WithDetails(&errdetails.ErrorInfo{
			Reason: "REVISION_NOT_WRITTEN", Domain: "berth.v1",
			Metadata: map[string]string{"next_revision": fmt.Sprint(f.nextRevision), "log_id": "log-1"},
		})
		if err != nil {
			return err
		}
		return st.Err()
	}
	if req.GetFromRevision() > 0 && req.GetFromRevision() < f.compactedBelow {
		st, err := status.New(codes.OutOfRange, "revision compacted").WithDetails(&errdetails.ErrorInfo{
			Reason: "REVISION_COMPACTED", Domain: "berth.v1",
			Metadata: map[string]string{"oldest_revision": fmt.Sprint(f.compactedBelow)},
		})
		if err != nil {
			return err
		}
		return st.Err()
	}
	for _, r := range f.watch {
		if err := stream.Send(r); err != nil {
			return err
		}
	}
	if f.watchErr != nil {
		return f.watchErr
	}
	<-stream.Context().Done()
	return nil
}

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func (f *fakeBerthd) Explain(_ context.Context, req *berthv1.ExplainRequest) (*berthv1.ExplainResponse, error) {
	if r, ok := f.explain[req.GetPod().GetName()]; ok {
		return r, nil
	}
	if req.GetPod().GetName() != "web" {
		return nil, status.Errorf(codes.NotFound, "no pod %s/%s", req.GetPod().GetNamespace(), req.GetPod().GetName())
	}
	return &berthv1.ExplainResponse{
		Pod:              &berthv1.PodRef{Namespace: req.GetPod().GetNamespace(), Name: "web", Uid: "u-web"},
		SchedulerName:    "default-scheduler",
		Priority:         100,
		State:            berthv1.QueueState_QUEUE_STATE_BACKOFF,
		Attempts:         3,
		BackoffUntil:     timestamppb.New(t0.Add(4 * time.Second)),
		NominatedNode:    "n2",
		RejectingPlugins: []string{"NodeResourcesFit", "TaintToleration"},
		LastAttemptTime:  timestamppb.New(t0),
		EnqueuedTime:     timestamppb.New(t0.Add(-time.Minute)),
		LastDiagnosis: &berthv1.Unschedulable{
			Message: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {gpu: true}.",
			NodeReasons: []*berthv1.NodeReasons{
				{Node: "n1", Reasons: []string{"node(s) had untolerated taint {gpu: true}"}, Unresolvable: true},
				{Node: "n2", Reasons: []string{"Insufficient cpu"}},
			},
		},
		Requests: map[string]int64{"cpu": 2500, "memory": 3 << 29, "pods": 1},
		Shortfalls: []*berthv1.NodeShortfall{{Node: "n2", Resources: []*berthv1.ResourceShortfall{
			{Resource: "cpu", Requested: 2500, Free: 500, Allocatable: 4000},
		}}},
	}, nil
}

func (f *fakeBerthd) ServerInfo(context.Context, *berthv1.ServerInfoRequest) (*berthv1.ServerInfoResponse, error) {
	if f.info == nil {
		return nil, status.Error(codes.Unimplemented, "unknown method ServerInfo")
	}
	return f.info, nil
}

func (f *fakeBerthd) ReportBindResult(_ context.Context, req *berthv1.ReportBindResultRequest) (*berthv1.ReportBindResultResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, req)
	return &berthv1.ReportBindResultResponse{}, nil
}

// ListPending answers two pages, keeping the pods in req.states.
func (f *fakeBerthd) ListPending(_ context.Context, req *berthv1.ListPendingRequest) (*berthv1.ListPendingResponse, error) {
	f.mu.Lock()
	f.pendReqs = append(f.pendReqs, req)
	f.mu.Unlock()
	if f.empty {
		return &berthv1.ListPendingResponse{}, nil
	}
	keep := func(pods ...*berthv1.PendingPod) []*berthv1.PendingPod {
		if len(req.GetStates()) == 0 {
			return pods
		}
		var out []*berthv1.PendingPod
		for _, p := range pods {
			if slices.Contains(req.GetStates(), p.GetState()) {
				out = append(out, p)
			}
		}
		return out
	}
	pod := func(name string, state berthv1.QueueState, prio int32) *berthv1.PendingPod {
		return &berthv1.PendingPod{
			Pod: &berthv1.PodRef{Namespace: "default", Name: name}, SchedulerName: "default-scheduler",
			State: state, Priority: prio, Attempts: 1, EnqueuedTime: timestamppb.New(t0.Add(-90 * time.Second)),
		}
	}
	if req.GetPageToken() == "" {
		return &berthv1.ListPendingResponse{Pods: keep(pod("a", berthv1.QueueState_QUEUE_STATE_ACTIVE, 0)), NextPageToken: "p2"}, nil
	}
	p := pod("b", berthv1.QueueState_QUEUE_STATE_BINDING, 10)
	p.Node, p.BindRevision = "n1", 7
	return &berthv1.ListPendingResponse{Pods: keep(p)}, nil
}

// ListPods answers two pages, the second with a bound pod, keeping the
// pods in req.states and req.namespace.
func (f *fakeBerthd) ListPods(_ context.Context, req *berthv1.ListPodsRequest) (*berthv1.ListPodsResponse, error) {
	if f.empty {
		return &berthv1.ListPodsResponse{}, nil
	}
	keep := func(pods ...*berthv1.PendingPod) []*berthv1.PendingPod {
		var out []*berthv1.PendingPod
		for _, p := range pods {
			if (len(req.GetStates()) == 0 || slices.Contains(req.GetStates(), p.GetState())) &&
				(req.GetNamespace() == "" || req.GetNamespace() == p.GetPod().GetNamespace()) {
				out = append(out, p)
			}
		}
		return out
	}
	pod := func(ns, name string, state berthv1.QueueState, node string) *berthv1.PendingPod {
		return &berthv1.PendingPod{Pod: &berthv1.PodRef{Namespace: ns, Name: name}, SchedulerName: "default-scheduler", State: state, Node: node}
	}
	if req.GetPageToken() == "" {
		a, b := pod("default", "a", berthv1.QueueState_QUEUE_STATE_ACTIVE, ""), pod("default", "b", berthv1.QueueState_QUEUE_STATE_BINDING, "n1")
		a.Attempts, a.EnqueuedTime = 1, timestamppb.New(t0.Add(-90*time.Second))
		return &berthv1.ListPodsResponse{Pods: keep(a, b), NextPageToken: "p2"}, nil
	}
	return &berthv1.ListPodsResponse{Pods: keep(pod("shop", "web", berthv1.QueueState_QUEUE_STATE_BOUND, "n2"))}, nil
}

func (f *fakeBerthd) ListNominations(context.Context, *berthv1.ListNominationsRequest) (*berthv1.ListNominationsResponse, error) {
	return &berthv1.ListNominationsResponse{Nominations: []*berthv1.Nomination{
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "high"}, Node: "n2", Priority: 1000, Revision: 12},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "old"}, Node: "n1", Restored: true},
	}}, nil
}

// ListNodes answers two pages; the second only for the first's token.
func (f *fakeBerthd) ListNodes(_ context.Context, req *berthv1.ListNodesRequest) (*berthv1.ListNodesResponse, error) {
	f.mu.Lock()
	f.nodeReqs = append(f.nodeReqs, req)
	f.mu.Unlock()
	if f.empty {
		return &berthv1.ListNodesResponse{}, nil
	}
	const gi = 1 << 30
	if req.GetPageToken() == "" {
		return &berthv1.ListNodesResponse{Nodes: []*berthv1.NodeUsage{{
			Name: "n1", Labels: map[string]string{"zone": "a"},
			Allocatable:      map[string]int64{"cpu": 4000, "memory": 8 * gi, "pods": 110},
			Requested:        map[string]int64{"cpu": 1500, "memory": 3 * gi / 2, "pods": 3},
			NonZeroRequested: map[string]int64{"cpu": 1600, "memory": 3*gi/2 + 200<<20},
			PodCount:         3, NominatedPodCount: 1,
		}}, NextPageToken: "n1"}, nil
	}
	return &berthv1.ListNodesResponse{Nodes: []*berthv1.NodeUsage{{
		Name: "n2", Unschedulable: true,
		Taints: []*berthv1.Taint{
			{Key: "gpu", Value: "true", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE},
			{Key: "maintenance", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE},
			{Key: "spot", Value: "yes", Effect: berthv1.TaintEffect_TAINT_EFFECT_PREFER_NO_SCHEDULE},
		},
		Allocatable: map[string]int64{"cpu": 500, "memory": 512 << 20},
	}}}, nil
}

func (f *fakeBerthd) QueueStats(context.Context, *berthv1.QueueStatsRequest) (*berthv1.QueueStatsResponse, error) {
	if f.empty {
		return &berthv1.QueueStatsResponse{}, nil
	}
	return &berthv1.QueueStatsResponse{Active: 1, Backoff: 2, Unschedulable: 3, Bound: 40, AttemptsScheduled: 40, AttemptsUnschedulable: 9}, nil
}
