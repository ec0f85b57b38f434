package statesvc_test

import (
	"context"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/statesvc"
)

// The scheduler's write and read sides are what berthd gives the service.
var _ statesvc.Cluster = sides{}

// sides is the scheduler's write side and its read side as one value.
type sides struct {
	*scheduler.Scheduler
	scheduler.View
}

// CheckAdmission runs the scheduler's kinds' admission, as berthd's
// object store does.
func (s sides) CheckAdmission(pod *model.Pod) error {
	_, err := s.Kinds().Admit(pod)
	return err
}

// sink records Bind decisions with made-up revisions, as the decision log
// would, and implements statesvc.BindReports.
type sink struct {
	mu     sync.Mutex
	rev    uint64
	binds  map[string]uint64 // pod uid -> revision of its last Bind
	failed map[string]podbook.BindReport
}

func (s *sink) FailureReported(uid string, r podbook.BindReport) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	last, ok := s.failed[uid]
	return ok && last == r
}

func (s *sink) RecordFailure(uid string, r podbook.BindReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed = map[string]podbook.BindReport{}
	}
	s.failed[uid] = r
}

func (s *sink) Bind(_ context.Context, pod *model.Pod, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	if s.binds == nil {
		s.binds = map[string]uint64{}
	}
	s.binds[pod.UID] = s.rev
	return nil
}

func (s *sink) BindRevision(uid string) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.binds[uid]
	return r, ok
}

func (s *sink) WaitBindRevision(_ context.Context, uid string) (uint64, bool, error) {
	r, ok := s.BindRevision(uid)
	return r, ok, nil
}

// Submit records the plan's binds.
func (s *sink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		if b, ok := item.(*framework.Bind); ok {
			if err := s.Bind(ctx, b.Pod, b.Node); err != nil {
				return framework.PlanResult{}, err
			}
		}
	}
	return framework.PlanResult{}, nil
}

type env struct {
	sched  *scheduler.Scheduler
	sink   *sink
	client berthv1.StateServiceClient
}

// newEnv serves a Service over a real scheduler on an in-memory connection.
// The scheduler runs no loop: tests drive scheduling with ScheduleOne.
func newEnv(t *testing.T, opts statesvc.Options) *env {
	t.Helper()
	return newEnvOf(t, opts, func(sched *scheduler.Scheduler) statesvc.Cluster { return sides{sched, sched.View()} })
}

// newEnvOf is newEnv with the Cluster cluster makes of the scheduler.
func newEnvOf(t *testing.T, opts statesvc.Options, cluster func(*scheduler.Scheduler) statesvc.Cluster) *env {
	t.Helper()
	sk := &sink{}
	sched := newScheduler(t, sk)
	if opts.BindReports == nil {
		opts.BindReports = sk
	}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	berthv1.RegisterStateServiceServer(srv, statesvc.New(cluster(sched), opts))
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
	return &env{sched: sched, sink: sk, client: berthv1.NewStateServiceClient(conn)}
}

// newScheduler is a scheduler with Berth's plugins, deciding into sk, that
// runs no loop: tests drive scheduling with ScheduleOne.
func newScheduler(t *testing.T, sk *sink) *scheduler.Scheduler {
	t.Helper()
	reg := registry.InTree()
	sched, err := scheduler.New(t.Context(), scheduler.Options{
		Config: withoutMissing(config.Default(), reg), Registry: reg, Decisions: sk, Deterministic: true, Replay: scheduler.Replay{BindInline: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sched
}

// Wire object builders.

func nodeObj(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: map[string]int64{"cpu": 4000, "memory": 8 << 30, "pods": 110},
	}}}
}

type podOpt func(*berthv1.Pod)

func withCPU(m int64) podOpt {
	return func(p *berthv1.Pod) { p.Containers[0].Requests = map[string]int64{"cpu": m} }
}
func withNode(n string) podOpt    { return func(p *berthv1.Pod) { p.NodeName = n } }
func withClass(c string) podOpt   { return func(p *berthv1.Pod) { p.PriorityClassName = c } }
func withPriority(v int32) podOpt { return func(p *berthv1.Pod) { p.Priority = &v } }
func withUID(uid string) podOpt   { return func(p *berthv1.Pod) { p.Uid = uid } }
func withNS(ns string) podOpt     { return func(p *berthv1.Pod) { p.Namespace = ns } }

func podObj(name string, opts ...podOpt) *berthv1.Object {
	p := &berthv1.Pod{Uid: "uid-" + name, Namespace: "default", Name: name, Containers: []*berthv1.Container{{Name: "c"}}}
	for _, o := range opts {
		o(p)
	}
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: p}}
}

func classObj(name string, value int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: name, Value: value}}}
}

func nsObj(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: &berthv1.Namespace{Name: name}}}
}

func pdbObj(ns, name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: &berthv1.PodDisruptionBudget{
		Namespace: ns, Name: name, Selector: &berthv1.LabelSelector{},
		Budget: &berthv1.PodDisruptionBudget_MinAvailable{MinAvailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Count{Count: 1}}},
	}}}
}

func upserts(objs ...*berthv1.Object) []*berthv1.Mutation {
	out := make([]*berthv1.Mutation, len(objs))
	for i, o := range objs {
		out[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
	}
	return out
}

func del(kind berthv1.ObjectKind, ns, name string) *berthv1.Mutation {
	return &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{Kind: kind, Namespace: ns, Name: name}}}
}

// podKeys lists the pods the scheduler holds.
func (e *env) podKeys() []string {
	var out []string
	for _, p := range e.sched.View().Pods() {
		out = append(out, p.Key())
	}
	return out
}

func (e *env) nodeNames(t *testing.T) []string {
	t.Helper()
	nodes, err := e.sched.View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range nodes {
		out = append(out, n.Node.Name)
	}
	return out
}

// sync opens a stream and returns a function sending one request and
// returning its acknowledgement.
func (e *env) sync(t *testing.T) (berthv1.StateService_SyncClient, func(*berthv1.SyncRequest) *berthv1.SyncResponse) {
	t.Helper()
	stream, err := e.client.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return stream, func(req *berthv1.SyncRequest) *berthv1.SyncResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatalf("Send: %v", err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		return resp
	}
}

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
