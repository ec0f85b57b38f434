package adminsvc_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/adminsvc"
)

var _ adminsvc.Admin = scheduler.View{}

type nopSink struct{}

func (nopSink) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// revisions answers every pod with fixed revisions.
type revisions struct{}

func (revisions) BindRevision(string) (uint64, bool)       { return 41, true }
func (revisions) NominationRevision(string) (uint64, bool) { return 42, true }
func (revisions) Eviction(string) (*berthv1.Evict, bool)   { return nil, false }
func (revisions) BindAwaiting(string) bool                 { return false }

type env struct {
	sched   *scheduler.Scheduler
	counter *adminsvc.Counter
	client  berthv1.AdminServiceClient
}

var now = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

type clock struct{}

func (clock) Now() time.Time { return now }

func newEnv(t *testing.T, edits ...func(*adminsvc.Options)) *env {
	t.Helper()
	ctx := t.Context()
	reg := registry.InTree()
	cfg := withoutMissing(config.Default(), reg)
	counter := adminsvc.NewCounter()
	sched, err := scheduler.New(ctx, scheduler.Options{
		Config: cfg, Registry: reg, Decisions: nopSink{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true}, Clock: clock{},
		Metrics: metrics{counter},
	})
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	opts := adminsvc.Options{Config: cfg, Registry: reg, Revisions: revisions{}, Attempts: counter}
	for _, edit := range edits {
		edit(&opts)
	}
	berthv1.RegisterAdminServiceServer(srv, adminsvc.New(sched.View(), opts))
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
	})
	return &env{sched: sched, counter: counter, client: berthv1.NewAdminServiceClient(conn)}
}

// metrics feeds the Counter, as berthd's metrics would.
type metrics struct{ c *adminsvc.Counter }

func (m metrics) ObserveAttempt(profile, result string, d time.Duration) {
	m.c.ObserveAttempt(profile, result, d)
}
func (metrics) ObservePostFilter(string, bool, int)                                 {}
func (metrics) ObservePodScheduled(string, int, time.Duration)                      {}
func (metrics) ObserveExtensionPoint(string, string, framework.Code, time.Duration) {}
func (metrics) ObservePlugin(string, string, string, framework.Code, time.Duration) {}
func (metrics) ObservePermitWait(string, framework.Code, time.Duration)             {}

// withoutMissing drops from cfg the plugins the registry lacks (while some,
// such as DefaultPreemption, are still being written).
func withoutMissing(cfg *config.Config, reg runtime.Registry) *config.Config {
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i].Plugins
		for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
			set := p.Set(point)
			kept := set.Enabled[:0]
			for _, pl := range set.Enabled {
				if _, ok := reg[pl.Name]; ok {
					kept = append(kept, pl)
				}
			}
			set.Enabled = kept
		}
	}
	return cfg
}

func node(name string, cpu int64) *model.Node {
	return mt.MakeNode(name).Capacity(mt.Res(cpu, 8*mt.Gi)).Obj()
}

func pod(name string, cpu int64) *mt.PodBuilder {
	return mt.MakePod(name).Req(mt.Res(cpu, mt.Gi))
}

// load adds nodes and pods to the live scheduler.
func (e *env) load(t *testing.T, nodes []*model.Node, pods ...*model.Pod) {
	t.Helper()
	for _, n := range nodes {
		if err := e.sched.Upsert(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pods {
		if err := e.sched.AddPod(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExplainUnschedulable(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, []*model.Node{node("n1", 1000), mt.MakeNode("n2").Capacity(mt.Res(4000, 8*mt.Gi)).Taint("dedicated", "gpu", model.TaintEffectNoSchedule).Obj()},
		pod("big", 2000).Obj())
	att, err := e.sched.ScheduleOne(ctx)
	if err != nil || att.Result != scheduler.ResultUnschedulable {
		t.Fatalf("ScheduleOne = %+v, %v", att, err)
	}
	resp, err := e.client.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "big"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &berthv1.ExplainResponse{
		Pod:              &berthv1.PodRef{Namespace: "default", Name: "big", Uid: "uid-big"},
		SchedulerName:    "default-scheduler",
		State:            berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE,
		Attempts:         1,
		RejectingPlugins: []string{"NodeResourcesFit", "TaintToleration"},
		EnqueuedTime:     timestamppb.New(now),
		// "Insufficient cpu" on n1, with the numbers: 2 cores asked, 1 free.
		Requests: map[string]int64{"cpu": 2000, "memory": mt.Gi, "pods": 1},
		Shortfalls: []*berthv1.NodeShortfall{{Node: "n1", Resources: []*berthv1.ResourceShortfall{
			{Resource: "cpu", Requested: 2000, Free: 1000, Allocatable: 1000},
		}}},
	}
	ignore := protocmp.IgnoreFields(&berthv1.ExplainResponse{}, "last_attempt_time", "last_diagnosis")
	if diff := cmp.Diff(want, resp, protocmp.Transform(), ignore); diff != "" {
		t.Errorf("Explain (-want +got):\n%s", diff)
	}
	// The diagnosis is core/scheduler's; the preemption part of the message
	// and whether a node is resolvable depend on DefaultPreemption.
	d := resp.GetLastDiagnosis()
	if msg := "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."; !strings.HasPrefix(d.GetMessage(), msg) {
		t.Errorf("message = %q, want it to start with %q", d.GetMessage(), msg)
	}
	wantReasons := []*berthv1.NodeReasons{
		{Node: "n1", Reasons: []string{"Insufficient cpu"}},
		{Node: "n2", Reasons: []string{"node(s) had untolerated taint(s)"}, Unresolvable: true},
	}
	if diff := cmp.Diff(wantReasons, d.GetNodeReasons(), protocmp.Transform(), protocmp.IgnoreFields(&berthv1.NodeReasons{}, "unresolvable")); diff != "" {
		t.Errorf("node reasons (-want +got):\n%s", diff)
	}
	if !d.GetNodeReasons()[1].GetUnresolvable() {
		t.Error("n2 (untolerated taint) is not unresolvable")
	}
	if !resp.GetLastAttemptTime().AsTime().Equal(now) {
		t.Errorf("last_attempt_time = %v, want %v", resp.GetLastAttemptTime().AsTime(), now)
	}
}

func TestExplainErrors(t *testing.T) {
	e := newEnv(t)
	e.load(t, nil, pod("p", 1).Obj())
	tests := []struct {
		name      string
		ref       *berthv1.PodRef
		want      codes.Code
		wantField string
	}{
		{name: "no ref", ref: nil, want: codes.InvalidArgument, wantField: "pod"},
		{name: "no namespace", ref: &berthv1.PodRef{Name: "p"}, want: codes.InvalidArgument, wantField: "pod.namespace"},
		{name: "no name", ref: &berthv1.PodRef{Namespace: "default"}, want: codes.InvalidArgument, wantField: "pod.name"},
		{name: "unknown", ref: &berthv1.PodRef{Namespace: "default", Name: "q"}, want: codes.NotFound},
		{name: "other uid", ref: &berthv1.PodRef{Namespace: "default", Name: "p", Uid: "x"}, want: codes.NotFound},
		{name: "found", ref: &berthv1.PodRef{Namespace: "default", Name: "p", Uid: "uid-p"}, want: codes.OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.Explain(t.Context(), &berthv1.ExplainRequest{Pod: tc.ref})
			if status.Code(err) != tc.want {
				t.Fatalf("Explain = %v, want %v", err, tc.want)
			}
			if tc.wantField != "" {
				if got := badRequestField(t, err); got != tc.wantField {
					t.Errorf("BadRequest field = %q, want %q", got, tc.wantField)
				}
			}
		})
	}
}

func badRequestField(t *testing.T, err error) string {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0].GetField()
		}
	}
	t.Fatalf("no BadRequest detail in %v", err)
	return ""
}

func TestListPendingAndStats(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, []*model.Node{node("n1", 1000)},
		pod("a", 100).Obj(), pod("b", 5000).Obj(), pod("c", 100).Gate("example.com/wait").Obj(),
		pod("d", 100).SchedulerName("other").Obj(), pod("e", 100).Node("n1").Obj())
	// Schedules the first pod in queue order (a: bound), then b fails.
	for range 2 {
		if _, err := e.sched.ScheduleOne(ctx); err != nil {
			t.Fatal(err)
		}
	}
	list := func(req *berthv1.ListPendingRequest) ([]string, string) {
		t.Helper()
		resp, err := e.client.ListPending(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range resp.GetPods() {
			out = append(out, p.GetPod().GetName()+":"+p.GetState().String())
		}
		return out, resp.GetNextPageToken()
	}
	all, next := list(&berthv1.ListPendingRequest{})
	want := []string{"a:QUEUE_STATE_BINDING", "b:QUEUE_STATE_UNSCHEDULABLE", "c:QUEUE_STATE_GATED", "d:QUEUE_STATE_IGNORED"}
	if diff := cmp.Diff(want, all); diff != "" || next != "" {
		t.Errorf("ListPending (-want +got):\n%s next %q", diff, next)
	}
	// Attempts and enqueued time survive binding; ignored pods were never
	// queued.
	full, err := e.client.ListPending(ctx, &berthv1.ListPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	wantFull := []*berthv1.PendingPod{
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "a", Uid: "uid-a"}, SchedulerName: "default-scheduler", State: berthv1.QueueState_QUEUE_STATE_BINDING,
			Attempts: 1, EnqueuedTime: timestamppb.New(now), Node: "n1", BindRevision: 41},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "b", Uid: "uid-b"}, SchedulerName: "default-scheduler", State: berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE,
			Attempts: 1, EnqueuedTime: timestamppb.New(now)},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "c", Uid: "uid-c"}, SchedulerName: "default-scheduler", State: berthv1.QueueState_QUEUE_STATE_GATED,
			EnqueuedTime: timestamppb.New(now)},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "d", Uid: "uid-d"}, SchedulerName: "other", State: berthv1.QueueState_QUEUE_STATE_IGNORED},
	}
	if diff := cmp.Diff(wantFull, full.GetPods(), protocmp.Transform()); diff != "" {
		t.Errorf("ListPending entries (-want +got):\n%s", diff)
	}
	var paged []string
	token := ""
	for {
		page, next := list(&berthv1.ListPendingRequest{PageSize: 1, PageToken: token})
		paged = append(paged, page...)
		if next == "" {
			break
		}
		token = next
	}
	if diff := cmp.Diff(want, paged); diff != "" {
		t.Errorf("pages of 1 (-want +got):\n%s", diff)
	}
	gated, _ := list(&berthv1.ListPendingRequest{States: []berthv1.QueueState{berthv1.QueueState_QUEUE_STATE_GATED, berthv1.QueueState_QUEUE_STATE_BINDING}})
	if diff := cmp.Diff([]string{"a:QUEUE_STATE_BINDING", "c:QUEUE_STATE_GATED"}, gated); diff != "" {
		t.Errorf("by state (-want +got):\n%s", diff)
	}
	other, _ := list(&berthv1.ListPendingRequest{SchedulerName: "other"})
	if diff := cmp.Diff([]string{"d:QUEUE_STATE_IGNORED"}, other); diff != "" {
		t.Errorf("by profile (-want +got):\n%s", diff)
	}
	resp, err := e.client.ListPending(ctx, &berthv1.ListPendingRequest{States: []berthv1.QueueState{berthv1.QueueState_QUEUE_STATE_ACTIVE}})
	if err != nil || len(resp.GetPods()) != 0 {
		t.Errorf("active = %v, %v", resp, err)
	}
	for name, req := range map[string]*berthv1.ListPendingRequest{
		"bound state":     {States: []berthv1.QueueState{berthv1.QueueState_QUEUE_STATE_BOUND}},
		"negative size":   {PageSize: -1},
		"malformed token": {PageToken: "!!"},
	} {
		if _, err := e.client.ListPending(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}

	stats, err := e.client.QueueStats(ctx, &berthv1.QueueStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	wantStats := &berthv1.QueueStatsResponse{Unschedulable: 1, Gated: 1, Binding: 1, Bound: 1, Ignored: 1, AttemptsScheduled: 1, AttemptsUnschedulable: 1}
	if diff := cmp.Diff(wantStats, stats, protocmp.Transform()); diff != "" {
		t.Errorf("QueueStats (-want +got):\n%s", diff)
	}
	stats, err = e.client.QueueStats(ctx, &berthv1.QueueStatsRequest{SchedulerName: "other"})
	if err != nil || stats.GetIgnored() != 1 || stats.GetBinding() != 0 || stats.GetAttemptsScheduled() != 0 {
		t.Errorf("QueueStats(other) = %v, %v", stats, err)
	}
	_, err = e.client.QueueStats(ctx, &berthv1.QueueStatsRequest{SchedulerName: "nobody"})
	if status.Code(err) != codes.NotFound || !strings.Contains(status.Convert(err).Message(), `scheduler_name: Berth runs no profile "nobody"`) {
		t.Errorf("QueueStats(nobody) = %v, want NotFound naming scheduler_name", err)
	}
}

func TestListNominations(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, []*model.Node{node("n1", 1000), node("n2", 1000)},
		pod("x", 5000).Nominated("n2").Obj(), pod("y", 5000).Nominated("n1").Obj(), pod("z", 5000).Obj())
	resp, err := e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := &berthv1.ListNominationsResponse{Nominations: []*berthv1.Nomination{
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "x", Uid: "uid-x"}, Node: "n2", Revision: 42},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "y", Uid: "uid-y"}, Node: "n1", Revision: 42},
	}}
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("ListNominations (-want +got):\n%s", diff)
	}
	// A nomination restored from the store shows before its pod is re-sent.
	e.sched.Restore(scheduler.Restored{Nominations: []queue.Nomination{{PodUID: "uid-w", PodKey: "default/w", NodeName: "n1"}}})
	resp, err = e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want.Nominations = append([]*berthv1.Nomination{{Pod: &berthv1.PodRef{Namespace: "default", Name: "w", Uid: "uid-w"}, Node: "n1", Revision: 42, Restored: true}}, want.Nominations...)
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("ListNominations with a restored one (-want +got):\n%s", diff)
	}
	e.load(t, nil, pod("w", 5000).Obj())
	resp, err = e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	wantN1 := []*berthv1.Nomination{
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "w", Uid: "uid-w"}, Node: "n1", Revision: 42},
		{Pod: &berthv1.PodRef{Namespace: "default", Name: "y", Uid: "uid-y"}, Node: "n1", Revision: 42},
	}
	if diff := cmp.Diff(wantN1, resp.GetNominations(), protocmp.Transform()); diff != "" {
		t.Errorf("on n1, once w is re-sent (-want +got):\n%s", diff)
	}
	resp, err = e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{Node: "n1"})
	if err != nil || len(resp.GetNominations()) != 2 || resp.GetNominations()[1].GetPod().GetName() != "y" {
		t.Errorf("on n1: %v, %v", resp, err)
	}
	resp, err = e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{PageSize: 1})
	if err != nil || len(resp.GetNominations()) != 1 || resp.GetNextPageToken() == "" {
		t.Fatalf("page 1: %v, %v", resp, err)
	}
	resp, err = e.client.ListNominations(ctx, &berthv1.ListNominationsRequest{PageSize: 1, PageToken: resp.GetNextPageToken()})
	if err != nil || len(resp.GetNominations()) != 1 || resp.GetNominations()[0].GetPod().GetName() != "x" || resp.GetNextPageToken() == "" {
		t.Errorf("page 2: %v, %v", resp, err)
	}
}

// A member of a group Berth does not hold is gated, and Explain says what
// it waits for; once the group exists its state shows.
func TestExplainPodGroup(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, nil, pod("w0", 100).Group("train").Obj())
	explain := func() *berthv1.ExplainResponse {
		resp, err := e.client.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "w0"}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := explain()
	if resp.GetState() != berthv1.QueueState_QUEUE_STATE_GATED || resp.GetGatingMessage() != "waiting for pod group default/train: it does not exist" {
		t.Errorf("state %v, gating message %q", resp.GetState(), resp.GetGatingMessage())
	}
	want := &berthv1.PodGroupStatus{Name: "train", Members: 1}
	if diff := cmp.Diff(want, resp.GetPodGroup(), protocmp.Transform()); diff != "" {
		t.Errorf("pod group (-want +got):\n%s", diff)
	}
	if err := e.sched.Upsert(ctx, &model.PodGroup{Namespace: "default", Name: "train", MinCount: 2}); err != nil {
		t.Fatal(err)
	}
	resp = explain()
	if resp.GetGatingMessage() != "waiting for pod group default/train: 1 of its min_count 2 pods exist" {
		t.Errorf("gating message %q", resp.GetGatingMessage())
	}
	want = &berthv1.PodGroupStatus{Name: "train", Exists: true, MinCount: 2, Members: 1}
	if diff := cmp.Diff(want, resp.GetPodGroup(), protocmp.Transform()); diff != "" {
		t.Errorf("pod group (-want +got):\n%s", diff)
	}
}

// progress is an admission controller with a round pending, or not.
type progress struct {
	pending bool
	err     error
}

func (p progress) RoundPending(context.Context) (bool, error) { return p.pending, p.err }

// TestQueueStatsAdmissionRoundPending: QueueStats says whether the
// admission controller has a round pending; false without one; a
// failure to wait for the controllers is the call's error.
func TestQueueStatsAdmissionRoundPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		adm  adminsvc.AdmissionProgress
		want bool
		code codes.Code
	}{
		{name: "no controller"},
		{name: "idle", adm: progress{}},
		{name: "pending", adm: progress{pending: true}, want: true},
		{name: "stopping", adm: progress{err: context.Canceled}, code: codes.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(o *adminsvc.Options) { o.Admission = tc.adm })
			stats, err := e.client.QueueStats(t.Context(), &berthv1.QueueStatsRequest{})
			if status.Code(err) != tc.code || stats.GetAdmissionRoundPending() != tc.want {
				t.Errorf("QueueStats = %v, %v; want admission_round_pending %v, code %v", stats, err, tc.want, tc.code)
			}
		})
	}
}
