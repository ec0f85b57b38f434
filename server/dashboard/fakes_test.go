package dashboard

import (
	"context"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// testTime is the fakes' clock.
var testTime = time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)

// fakeAdmin answers the admin reads from canned values: a cluster of two
// nodes where web-1 is bound and big-1 fits nowhere (n1 rejected by
// NodeResourcesFit, n2 by TaintToleration).
type fakeAdmin struct{}

func (fakeAdmin) QueueStats(context.Context, *berthv1.QueueStatsRequest) (*berthv1.QueueStatsResponse, error) {
	return &berthv1.QueueStatsResponse{Active: 3, Backoff: 1, Unschedulable: 1, Gated: 2, Bound: 1, AttemptsScheduled: 7}, nil
}

// ListPods holds big-1 (unschedulable) and web-1 (bound on n1), keeping
// those of req.states whose namespace/name contains req.contains.
func (fakeAdmin) ListPods(_ context.Context, req *berthv1.ListPodsRequest) (*berthv1.ListPodsResponse, error) {
	all := []*berthv1.PendingPod{{
		Pod: &berthv1.PodRef{Namespace: "default", Name: "big-1", Uid: "u-big"}, SchedulerName: "default-scheduler",
		State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, Attempts: 2, EnqueuedTime: timestamppb.New(testTime),
	}, {
		Pod: &berthv1.PodRef{Namespace: "default", Name: "web-1", Uid: "u-web"}, SchedulerName: "default-scheduler",
		State: berthv1.QueueState_QUEUE_STATE_BOUND, Node: "n1",
	}}
	resp := &berthv1.ListPodsResponse{}
	for _, p := range all {
		if (len(req.GetStates()) == 0 || slices.Contains(req.GetStates(), p.GetState())) &&
			(req.GetNode() == "" || p.GetNode() == req.GetNode()) &&
			strings.Contains(p.GetPod().GetNamespace()+"/"+p.GetPod().GetName(), req.GetContains()) {
			resp.Pods = append(resp.Pods, p)
		}
	}
	return resp, nil
}

func (a fakeAdmin) AllNodes(ctx context.Context) ([]*berthv1.NodeUsage, error) {
	resp, err := a.ListNodes(ctx, &berthv1.ListNodesRequest{})
	return resp.GetNodes(), err
}

// ListNominations holds big-1 nominated on n1.
func (fakeAdmin) ListNominations(_ context.Context, req *berthv1.ListNominationsRequest) (*berthv1.ListNominationsResponse, error) {
	resp := &berthv1.ListNominationsResponse{}
	if req.GetNode() == "" || req.GetNode() == "n1" {
		resp.Nominations = []*berthv1.Nomination{{Pod: &berthv1.PodRef{Namespace: "default", Name: "big-1", Uid: "u-big"}, Node: "n1", Priority: 10, Revision: 3}}
	}
	return resp, nil
}

func (fakeAdmin) ListNodes(context.Context, *berthv1.ListNodesRequest) (*berthv1.ListNodesResponse, error) {
	return &berthv1.ListNodesResponse{Nodes: []*berthv1.NodeUsage{
		{Name: "n1", Allocatable: map[string]int64{"cpu": 4000, "memory": 8 << 30, "pods": 110},
			Requested: map[string]int64{"cpu": 3000, "memory": 1 << 30, "pods": 1}, PodCount: 1,
			Conditions: []*berthv1.NodeCondition{
				{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_TRUE},
				{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_MEMORY_PRESSURE, Status: berthv1.ConditionStatus_CONDITION_STATUS_TRUE},
			},
			DerivedTaints: []*berthv1.Taint{{Key: "node.kubernetes.io/memory-pressure", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}}},
		{Name: "n2", Allocatable: map[string]int64{"cpu": 2000, "memory": 4 << 30, "pods": 110}, Unschedulable: true,
			Taints: []*berthv1.Taint{{Key: "gpu", Value: "true", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}},
			Conditions: []*berthv1.NodeCondition{
				{Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE},
			},
			DerivedTaints: []*berthv1.Taint{
				{Key: "node.kubernetes.io/not-ready", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE},
				{Key: "node.kubernetes.io/not-ready", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE},
			}},
	}}, nil
}

func (fakeAdmin) Explain(_ context.Context, req *berthv1.ExplainRequest) (*berthv1.ExplainResponse, error) {
	switch req.GetPod().GetName() {
	case "train-1":
		return trainExplain, nil
	case "db-1":
		return dbExplain, nil
	}
	if req.GetPod().GetName() != "big-1" {
		return nil, status.Error(codes.NotFound, "Berth holds no pod "+req.GetPod().GetNamespace()+"/"+req.GetPod().GetName())
	}
	return &berthv1.ExplainResponse{
		Pod: &berthv1.PodRef{Namespace: "default", Name: "big-1", Uid: "u-big"}, SchedulerName: "default-scheduler",
		State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, Attempts: 2,
		LastDiagnosis: &berthv1.Unschedulable{
			Message: testMessage,
			NodeReasons: []*berthv1.NodeReasons{
				{Node: "n1", Reasons: []string{"Insufficient cpu"}},
				{Node: "n2", Reasons: []string{"node(s) had untolerated taint {gpu: true}"}, Unresolvable: true},
			},
		},
		RejectingPlugins: []string{"NodeResourcesFit", "TaintToleration"},
		LastAttemptTime:  timestamppb.New(testTime),
		Requests:         map[string]int64{"cpu": 2000, "memory": 1 << 30, "pods": 1},
		Shortfalls: []*berthv1.NodeShortfall{{Node: "n1", Resources: []*berthv1.ResourceShortfall{
			{Resource: "cpu", Requested: 2000, Free: 1000, Allocatable: 4000},
		}}},
	}, nil
}

// dbExplain is db-1, whose claims fit on no node (fakeExplainer has the
// scheduler's side).
var dbExplain = &berthv1.ExplainResponse{
	Pod: &berthv1.PodRef{Namespace: "default", Name: "db-1", Uid: "u-db"}, SchedulerName: "default-scheduler",
	State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, Attempts: 1,
	LastDiagnosis: &berthv1.Unschedulable{Message: dbMessage, NodeReasons: []*berthv1.NodeReasons{
		{Node: "n1", Reasons: []string{"node(s) didn't match PersistentVolume's node affinity"}, Unresolvable: true},
		{Node: "n2", Reasons: []string{"node(s) exceed max volume count"}},
	}},
	RejectingPlugins: []string{"NodeVolumeLimits", "VolumeBinding"},
}

const dbMessage = "0/2 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) exceed max volume count."

// trainExplain is train-1, whose GPU claim fits on neither node: n1's
// GPUs are taken, n2 has none.
var trainExplain = &berthv1.ExplainResponse{
	Pod: &berthv1.PodRef{Namespace: "default", Name: "train-1", Uid: "u-train"}, SchedulerName: "default-scheduler",
	State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE, Attempts: 1,
	LastDiagnosis: &berthv1.Unschedulable{
		Message: "0/2 nodes are available: 2 cannot allocate all claims.",
		NodeReasons: []*berthv1.NodeReasons{
			{Node: "n1", Reasons: []string{"cannot allocate all claims"}, Unresolvable: true},
			{Node: "n2", Reasons: []string{"cannot allocate all claims"}, Unresolvable: true},
		},
	},
	RejectingPlugins: []string{"DynamicResources"},
	DeviceReasons: []*berthv1.NodeDeviceReasons{
		{Node: "n1", Reasons: []string{"claim default/train-1-gpu-abcde, request g: the devices matching it are in use",
			"claim default/nic, request n: the devices matching it are in use"}},
		{Node: "n2", Reasons: []string{"claim default/train-1-gpu-abcde, request g: not enough devices on the node match it"}},
	},
}

const testMessage = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {gpu: true}."

func (fakeAdmin) Simulate(_ context.Context, req *berthv1.SimulateRequest) (*berthv1.SimulateResponse, error) {
	return &berthv1.SimulateResponse{Attempts: []*berthv1.SimulateAttempt{{
		Pod:    &berthv1.PodRef{Namespace: req.GetPods()[0].GetNamespace(), Name: req.GetPods()[0].GetName()},
		Result: berthv1.SimulateResult_SIMULATE_RESULT_UNSCHEDULABLE, Message: testMessage,
		Nodes: []*berthv1.NodeVerdict{
			{Node: "n1", Reasons: []string{"Insufficient cpu"}},
			{Node: "n2", Reasons: []string{"node(s) had untolerated taint {gpu: true}"}},
		},
	}}}, nil
}

// fakeExplainer is the scheduler's side of big-1's last attempt.
type fakeExplainer struct{}

func (fakeExplainer) Explain(namespace, name string) (scheduler.Explanation, error) {
	if name == "db-1" {
		return scheduler.Explanation{
			Pod: &model.Pod{UID: "u-db", Namespace: namespace, Name: name},
			Diagnosis: &scheduler.Diagnosis{Message: dbMessage, Nodes: []scheduler.NodeDiagnosis{
				{Node: "n1", Reasons: []string{"node(s) didn't match PersistentVolume's node affinity"}, Plugin: "VolumeBinding", Unresolvable: true},
				{Node: "n2", Reasons: []string{"node(s) exceed max volume count"}, Plugin: "NodeVolumeLimits"},
			}},
			Volumes: []scheduler.ClaimVolume{
				{Name: "data", Claim: "default/db-data", Found: true, Class: "local", RequestBytes: 10 << 30, BoundTo: "pv-local-n3"},
				{Name: "scratch", Claim: "default/db-1-scratch", Ephemeral: true, Found: true, Class: "fast", RequestBytes: 1 << 30},
				{Name: "logs", Claim: "default/db-logs"},
			},
		}, nil
	}
	if name != "big-1" {
		return scheduler.Explanation{}, scheduler.ErrPodNotFound
	}
	return scheduler.Explanation{
		Pod: &model.Pod{UID: "u-big", Namespace: namespace, Name: name},
		Diagnosis: &scheduler.Diagnosis{Message: testMessage, Nodes: []scheduler.NodeDiagnosis{
			{Node: "n1", Reasons: []string{"Insufficient cpu"}, Plugin: "NodeResourcesFit"},
			{Node: "n2", Reasons: []string{"node(s) had untolerated taint {gpu: true}"}, Plugin: "TaintToleration", Unresolvable: true},
		}},
	}, nil
}

// fakeLog holds decisions from revision first on; Watch sends them and
// waits for its context. Each Watch's from goes to froms.
type fakeLog struct {
	first     uint64
	decisions []*berthv1.Decision
	froms     chan uint64
	filter    watch.Filter // the last Watch's, set before its from is sent
}

func (f *fakeLog) Revisions() (uint64, uint64) {
	return f.first, f.first + uint64(len(f.decisions)) - 1
}

func (f *fakeLog) Watch(ctx context.Context, from uint64, _ string, filter watch.Filter, send watch.Send) error {
	f.filter = filter
	f.froms <- from
	if from < f.first {
		return &store.CompactedError{Requested: from, Oldest: f.first}
	}
	if err := send(&berthv1.WatchResponse{NextRevision: from}); err != nil {
		return err
	}
	var batch []*berthv1.Decision
	for _, d := range f.decisions {
		if d.GetRevision() >= from && (len(filter.Types) == 0 || slices.Contains(filter.Types, decisionlog.TypeOf(d))) &&
			(filter.SchedulerName == "" || d.GetSchedulerName() == filter.SchedulerName) {
			batch = append(batch, d)
		}
	}
	if len(batch) > 0 {
		if err := send(&berthv1.WatchResponse{Decisions: batch, NextRevision: batch[len(batch)-1].GetRevision() + 1}); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

func bindDecision(rev uint64, name, node string) *berthv1.Decision {
	return &berthv1.Decision{Revision: rev, Time: timestamppb.New(testTime), SchedulerName: "default-scheduler",
		Pod:    &berthv1.PodRef{Namespace: "default", Name: name, Uid: "u-" + name},
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: node}}}
}
