package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/bench/inprocess"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
)

// fakeBerthd is a stand-in for berthd in tests: the real scheduling loop
// behind a minimal StateService.Sync and DecisionService.Watch, with the
// decision log in memory (not durable).
type fakeBerthd struct {
	berthv1.UnimplementedStateServiceServer
	berthv1.UnimplementedDecisionServiceServer
	s *scheduler.Scheduler

	mu   sync.Mutex
	log  []*berthv1.Decision
	grew chan struct{} // closed and replaced when the log grows
}

func startFake(t *testing.T, deterministic bool) string { return startFakeTB(t, deterministic) }

func startFakeB(b *testing.B) string { return startFakeTB(b, false) }

func startFakeTB(t testing.TB, deterministic bool) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeBerthd{grew: make(chan struct{})}
	reg := registry.InTree()
	s, err := scheduler.New(ctx, scheduler.Options{
		Config: inprocess.DefaultConfig(reg), Registry: reg, Decisions: f, Deterministic: deterministic,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.s = s
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	berthv1.RegisterStateServiceServer(srv, f)
	berthv1.RegisterDecisionServiceServer(srv, f)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	wg.Go(func() { _ = srv.Serve(lis) })
	t.Cleanup(func() {
		cancel()
		srv.Stop()
		wg.Wait()
	})
	return lis.Addr().String()
}

func (f *fakeBerthd) append(d *berthv1.Decision) error {
	f.mu.Lock()
	d.Revision = uint64(len(f.log) + 1)
	f.log = append(f.log, d)
	close(f.grew)
	f.grew = make(chan struct{})
	f.mu.Unlock()
	return nil
}

func ref(p *model.Pod) *berthv1.PodRef {
	return &berthv1.PodRef{Namespace: p.Namespace, Name: p.Name, Uid: p.UID}
}

func (f *fakeBerthd) Bind(_ context.Context, p *model.Pod, node string) error {
	return f.append(&berthv1.Decision{Pod: ref(p), Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: node}}})
}

func (f *fakeBerthd) Evict(_ context.Context, v *model.Pod, node string, by *model.Pod, reason string) error {
	return f.append(&berthv1.Decision{Pod: ref(v), Action: &berthv1.Decision_Evict{Evict: &berthv1.Evict{
		Victim: ref(v), Node: node, Preemptor: ref(by), Reason: reason}}})
}

func (f *fakeBerthd) Nominate(_ context.Context, p *model.Pod, node string) error {
	return f.append(&berthv1.Decision{Pod: ref(p), Action: &berthv1.Decision_Nominate{Nominate: &berthv1.Nominate{Node: node}}})
}

func (f *fakeBerthd) ClearNomination(context.Context, *model.Pod, string) error { return nil }

func (f *fakeBerthd) Unschedulable(_ context.Context, p *model.Pod, msg string, _ *framework.FitError) error {
	return f.append(&berthv1.Decision{Pod: ref(p), Action: &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{Message: msg}}})
}

func (f *fakeBerthd) Sync(stream berthv1.StateService_SyncServer) error {
	ctx := stream.Context()
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		resp := &berthv1.SyncResponse{BatchId: req.GetBatchId()}
		for i, m := range req.GetMutations() {
			if err := f.mutate(ctx, m); err != nil {
				resp.Errors = append(resp.Errors, &berthv1.ObjectError{Index: uint32(i), Code: berthv1.ErrorCode_ERROR_CODE_INTERNAL, Message: err.Error()})
				continue
			}
			resp.Applied++
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func (f *fakeBerthd) mutate(ctx context.Context, m *berthv1.Mutation) error {
	if up := m.GetUpsert(); up != nil {
		o, err := convert.ObjectFromProto(up)
		if err != nil {
			return err
		}
		switch {
		case o.Node != nil:
			if err := f.s.Upsert(ctx, o.Node); errors.Is(err, scheduler.ErrInvalid) {
				return f.s.Upsert(ctx, o.Node)
			} else {
				return err
			}
		case o.Pod != nil:
			return f.s.AddPod(ctx, o.Pod)
		case o.PriorityClass != nil:
			return f.s.Upsert(ctx, o.PriorityClass)
		}
		return errors.New("unsupported kind")
	}
	r := m.GetDelete()
	switch r.GetKind() {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return f.s.Delete(ctx, objstore.Ref{Kind: objstore.KindNode, Name: r.GetName()})
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		err := f.s.DeletePod(ctx, &model.Pod{Namespace: r.GetNamespace(), Name: r.GetName(), UID: r.GetUid()})
		if errors.Is(err, scheduler.ErrNotFound) {
			return nil
		}
		return err
	}
	return errors.New("unsupported kind")
}

func (f *fakeBerthd) Watch(req *berthv1.WatchRequest, stream berthv1.DecisionService_WatchServer) error {
	next := max(req.GetFromRevision(), 1)
	for {
		f.mu.Lock()
		batch := f.log[next-1:]
		grew := f.grew
		f.mu.Unlock()
		if len(batch) > 0 {
			next += uint64(len(batch))
			if err := stream.Send(&berthv1.WatchResponse{Decisions: batch, NextRevision: next}); err != nil {
				return err
			}
			continue
		}
		select {
		case <-stream.Context().Done():
			return nil
		case <-grew:
		}
	}
}

// Submit hands each decision of the plan to the fake's method for it.
func (f *fakeBerthd) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Bind:
			err = f.Bind(ctx, it.Pod, it.Node)
		case *framework.Eviction:
			err = f.Evict(ctx, it.Victim, it.Node, it.Preemptor, it.Message)
		case *framework.Nomination:
			err = f.Nominate(ctx, it.Pod, it.Node)
		case *framework.ClearNomination:
			err = f.ClearNomination(ctx, it.Pod, it.Reason)
		case *framework.UnschedulableReport:
			err = f.Unschedulable(ctx, it.Pod, it.Message, it.FitErr)
		}
		if err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}
