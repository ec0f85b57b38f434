package adminsvc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/nodename"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/convert"
)

// limitOf is the flag an ErrorInfo of a refusal names ("" if none).
func limitOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "SIMULATION_LIMIT" {
			return info.GetMetadata()["limit"]
		}
	}
	return ""
}

func withLimits(l adminsvc.SimulationLimits) func(*adminsvc.Options) {
	return func(o *adminsvc.Options) { o.Simulation = &l }
}

func wirePods(n int, cpu int64) []*berthv1.Pod {
	out := make([]*berthv1.Pod, n)
	for i := range out {
		out[i] = wirePod(fmt.Sprintf("p%d", i), cpu)
	}
	return out
}

// TestSimulateLimits: a request or a run beyond a limit is refused
// RESOURCE_EXHAUSTED naming the flag that raises it; summary mode keeps
// within a response size the detailed answer goes beyond.
func TestSimulateLimits(t *testing.T) {
	nodes := make([]*model.Node, 10)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), 1000)
	}
	delta := func(n int) []*berthv1.Object {
		out := make([]*berthv1.Object, n)
		for i := range out {
			out[i] = convert.ObjectToProto(convert.Object{Node: node(fmt.Sprintf("extra%d", i), 1000)})
		}
		return out
	}
	tests := []struct {
		name      string
		limits    adminsvc.SimulationLimits
		req       *berthv1.SimulateRequest
		wantLimit string // "": accepted
	}{
		{name: "within every limit", limits: adminsvc.DefaultSimulationLimits(),
			req: &berthv1.SimulateRequest{ClusterDelta: delta(2), Pods: wirePods(5, 2000)}},
		{name: "objects", limits: adminsvc.SimulationLimits{MaxObjects: 2},
			req:       &berthv1.SimulateRequest{ClusterDelta: delta(2), ClusterRemovals: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: "n1"}}},
			wantLimit: "simulate-max-objects"},
		{name: "pods", limits: adminsvc.SimulationLimits{MaxPods: 4},
			req: &berthv1.SimulateRequest{Pods: wirePods(5, 100)}, wantLimit: "simulate-max-pods"},
		{name: "attempts", limits: adminsvc.SimulationLimits{MaxAttempts: 4},
			req: &berthv1.SimulateRequest{Pods: wirePods(5, 100)}, wantLimit: "simulate-max-attempts"},
		{name: "response bytes", limits: adminsvc.SimulationLimits{MaxResponseBytes: 2000},
			req: &berthv1.SimulateRequest{Pods: wirePods(5, 2000)}, wantLimit: "simulate-max-response-bytes"},
		{name: "response bytes, summary", limits: adminsvc.SimulationLimits{MaxResponseBytes: 2000},
			req: &berthv1.SimulateRequest{Pods: wirePods(5, 2000), Summary: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withLimits(tc.limits))
			e.load(t, nodes)
			resp, err := e.client.Simulate(t.Context(), tc.req)
			if tc.wantLimit != "" {
				if status.Code(err) != codes.ResourceExhausted || limitOf(err) != tc.wantLimit {
					t.Fatalf("Simulate = %v (limit %q), want RESOURCE_EXHAUSTED naming %s", err, limitOf(err), tc.wantLimit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(resp.GetAttempts()); got != len(tc.req.GetPods()) {
				t.Errorf("%d attempts, want %d", got, len(tc.req.GetPods()))
			}
			if max := tc.limits.MaxResponseBytes; max > 0 && proto.Size(resp) > max {
				t.Errorf("response of %d bytes, beyond the limit of %d", proto.Size(resp), max)
			}
			for _, a := range resp.GetAttempts() {
				if tc.req.GetSummary() != (len(a.GetNodes()) == 0 && len(a.GetTopNodes()) == 0) {
					t.Errorf("summary %v: attempt of %s has %d node verdicts", tc.req.GetSummary(), a.GetPod().GetName(), len(a.GetNodes()))
				}
			}
		})
	}
}

// blockingFilter stands in for NodeName in the simulation's registry: it
// tells entered when it filters, then waits for the simulation's context
// to end, and tells left. running counts the filters running at once,
// most the most ever.
type blockingFilter struct {
	entered, left chan<- struct{}
	running, most *atomic.Int32
}

func (*blockingFilter) Name() string { return nodename.Name }

func (f *blockingFilter) Filter(ctx context.Context, _ *framework.CycleState, _ *model.Pod, _ *framework.NodeInfo) *framework.Status {
	n := f.running.Add(1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	f.entered <- struct{}{}
	<-ctx.Done()
	f.running.Add(-1)
	f.left <- struct{}{}
	return framework.AsStatus(ctx.Err())
}

// blockingEnv is an env whose simulations block in their first filter
// until their context ends.
func blockingEnv(t *testing.T, limits adminsvc.SimulationLimits, stopping context.Context) (e *env, entered, left <-chan struct{}, most *atomic.Int32) {
	in, out := make(chan struct{}, 16), make(chan struct{}, 16)
	running, most := &atomic.Int32{}, &atomic.Int32{}
	reg := runtime.Registry{}
	for name, f := range registry.InTree() {
		reg[name] = f
	}
	reg[nodename.Name] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
		return &blockingFilter{entered: in, left: out, running: running, most: most}, nil
	}
	e = newEnv(t, withLimits(limits), func(o *adminsvc.Options) { o.Registry, o.Stopping = reg, stopping })
	e.load(t, []*model.Node{node("n1", 1000)})
	return e, in, out, most
}

// TestSimulateStops: a simulation stops, and its filter pass with it,
// when its time is up (RESOURCE_EXHAUSTED naming --simulate-timeout), when
// berthd stops (UNAVAILABLE) and when the caller goes (CANCELLED); while
// one runs, another beyond the concurrency waits for it.
func TestSimulateStops(t *testing.T) {
	req := &berthv1.SimulateRequest{Pods: wirePods(1, 100)}
	t.Run("timeout", func(t *testing.T) {
		// The filter waits for the run's end: only the timeout ends it.
		e, _, _, _ := blockingEnv(t, adminsvc.SimulationLimits{Timeout: 1}, nil)
		_, err := e.client.Simulate(t.Context(), req)
		if status.Code(err) != codes.ResourceExhausted || limitOf(err) != "simulate-timeout" {
			t.Errorf("Simulate = %v, want RESOURCE_EXHAUSTED naming simulate-timeout", err)
		}
	})
	t.Run("berthd stops", func(t *testing.T) {
		stopping, stop := context.WithCancel(t.Context())
		e, entered, left, _ := blockingEnv(t, adminsvc.SimulationLimits{}, stopping)
		go func() {
			<-entered
			stop()
		}()
		_, err := e.client.Simulate(t.Context(), req)
		if status.Code(err) != codes.Unavailable {
			t.Errorf("Simulate = %v, want UNAVAILABLE", err)
		}
		<-left
	})
	t.Run("caller goes, and concurrency", func(t *testing.T) {
		e, entered, left, most := blockingEnv(t, adminsvc.SimulationLimits{Concurrency: 1}, nil)
		simulate := func(ctx context.Context) <-chan error {
			done := make(chan error, 1)
			go func() {
				_, err := e.client.Simulate(ctx, req)
				done <- err
			}()
			return done
		}
		ctx1, cancel1 := context.WithCancel(t.Context())
		first := simulate(ctx1)
		<-entered
		ctx2, cancel2 := context.WithCancel(t.Context())
		second := simulate(ctx2)
		cancel1()
		if err := <-first; status.Code(err) != codes.Canceled {
			t.Errorf("first Simulate = %v, want CANCELLED", err)
		}
		<-left    // the server's run ended with its caller
		<-entered // and the second, waiting for the slot, runs
		cancel2()
		if err := <-second; status.Code(err) != codes.Canceled {
			t.Errorf("second Simulate = %v, want CANCELLED", err)
		}
		<-left
		if n := most.Load(); n != 1 {
			t.Errorf("%d simulations ran at once, want 1", n)
		}
	})
}
