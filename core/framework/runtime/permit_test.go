package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
)

type permitResult struct {
	status  *framework.Status
	timeout time.Duration
}

// permitFramework builds a framework whose Permit plugins W0, W1, ...
// answer as given, on a fake clock.
func permitFramework(t *testing.T, answers []permitResult, opts ...runtime.Option) (*runtime.Framework, *testPlugins, *fakeClock) {
	t.Helper()
	tp := newTestPlugins()
	tp.basics()
	var names []string
	for i, a := range answers {
		name := fmt.Sprintf("W%d", i)
		tp.add(name, reservePermitKind).permit = func() (*framework.Status, time.Duration) { return a.status, a.timeout }
		names = append(names, name)
	}
	clock := newFakeClock()
	opts = append([]runtime.Option{runtime.WithClock(clock)}, opts...)
	f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.Permit: plugins(names...)}), opts...)
	return f, tp, clock
}

func wait(d time.Duration) permitResult {
	return permitResult{status: framework.NewStatus(framework.Wait), timeout: d}
}

func TestRunPermitPlugins(t *testing.T) {
	tests := []struct {
		name        string
		answers     []permitResult
		want        *framework.Status
		wantWaiting []string // pending plugins of the waiting pod; nil: not waiting
		wantCalls   []string
	}{
		{
			name:      "all allow",
			answers:   []permitResult{{}, {}},
			wantCalls: []string{"Permit/W0", "Permit/W1"},
		},
		{
			name:      "a rejection stops and names the plugin",
			answers:   []permitResult{wait(time.Second), {status: framework.NewStatus(framework.Unschedulable, "quota")}, {}},
			want:      status(framework.Unschedulable, "W1", "quota"),
			wantCalls: []string{"Permit/W0", "Permit/W1"},
		},
		{
			name:      "an error is wrapped and names the plugin",
			answers:   []permitResult{{status: framework.AsStatus(errors.New("boom"))}},
			want:      status(framework.Error, "W0", `running Permit plugin "W0": boom`),
			wantCalls: []string{"Permit/W0"},
		},
		{
			name:        "waits make the pod a waiting pod",
			answers:     []permitResult{wait(time.Second), {}, wait(time.Minute)},
			want:        framework.NewStatus(framework.Wait, "one or more plugins asked to wait and no plugin rejected pod"),
			wantWaiting: []string{"W0", "W2"},
			wantCalls:   []string{"Permit/W0", "Permit/W1", "Permit/W2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, tp, _ := permitFramework(t, tc.answers)
			pod := podNamed("p")
			if d := statusDiff(tc.want, f.RunPermitPlugins(context.Background(), framework.NewCycleState(), pod, "n1")); d != "" {
				t.Error(d)
			}
			var pending []string
			if wp := f.GetWaitingPod(pod.UID); wp != nil {
				pending = wp.PendingPlugins()
				if wp.Pod() != pod {
					t.Error("waiting pod is not the pod")
				}
			}
			if diff := cmp.Diff(tc.wantWaiting, pending); diff != "" {
				t.Errorf("pending plugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWaitOnPermit(t *testing.T) {
	tests := []struct {
		name    string
		answers []permitResult
		// act acts on the waiting pod (through the handle) and the clock.
		act  func(f *runtime.Framework, clock *fakeClock, uid string)
		want *framework.Status
	}{
		{
			name:    "allowed by every waiting plugin",
			answers: []permitResult{wait(time.Second), wait(time.Second)},
			act: func(f *runtime.Framework, _ *fakeClock, uid string) {
				f.GetWaitingPod(uid).Allow("W1")
				f.GetWaitingPod(uid).Allow("W0")
			},
		},
		{
			name:    "rejected by another plugin",
			answers: []permitResult{wait(time.Second)},
			act: func(f *runtime.Framework, _ *fakeClock, uid string) {
				f.IterateOverWaitingPods(func(wp framework.WaitingPod) { wp.Reject("Gang", "group incomplete") })
			},
			want: status(framework.Unschedulable, "Gang", "group incomplete"),
		},
		{
			name:    "timeout",
			answers: []permitResult{wait(time.Minute), wait(10 * time.Second)},
			act: func(f *runtime.Framework, clock *fakeClock, uid string) {
				f.GetWaitingPod(uid).Allow("W1")
				clock.Advance(59 * time.Second)
				clock.Advance(time.Second)
			},
			want: status(framework.Unschedulable, "W0", "rejected due to timeout after waiting 1m0s at plugin W0"),
		},
		{
			name:    "timeouts are capped at 15 minutes",
			answers: []permitResult{wait(time.Hour)},
			act: func(_ *runtime.Framework, clock *fakeClock, _ string) {
				clock.Advance(15 * time.Minute)
			},
			want: status(framework.Unschedulable, "W0", "rejected due to timeout after waiting 15m0s at plugin W0"),
		},
		{
			name:    "partial allow then timeout of the other",
			answers: []permitResult{wait(time.Second), wait(2 * time.Second)},
			act: func(f *runtime.Framework, clock *fakeClock, uid string) {
				f.GetWaitingPod(uid).Allow("W0")
				clock.Advance(2 * time.Second)
			},
			want: status(framework.Unschedulable, "W1", "rejected due to timeout after waiting 2s at plugin W1"),
		},
		{
			name:    "removed through RejectWaitingPod",
			answers: []permitResult{wait(time.Second)},
			act: func(f *runtime.Framework, _ *fakeClock, uid string) {
				if !f.RejectWaitingPod(uid) {
					panic("RejectWaitingPod found nothing")
				}
				if f.RejectWaitingPod(uid) {
					panic("a second RejectWaitingPod decided again")
				}
				f.GetWaitingPod(uid).Allow("W0") // too late: no effect
			},
			want: status(framework.Unschedulable, "", "removed"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, clock := permitFramework(t, tc.answers)
			pod := podNamed("p")
			ctx := context.Background()
			if s := f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n1"); !s.IsWait() {
				t.Fatalf("RunPermitPlugins = %v, want Wait", s)
			}
			tc.act(f, clock, pod.UID)
			if d := statusDiff(tc.want, f.WaitOnPermit(ctx, pod)); d != "" {
				t.Error(d)
			}
			if f.GetWaitingPod(pod.UID) != nil {
				t.Error("the pod is still waiting after WaitOnPermit")
			}
			if n := clock.pending(); n != 0 {
				t.Errorf("%d timers still pending", n)
			}
		})
	}
}

func TestWaitOnPermitBlocksUntilAllowed(t *testing.T) {
	f, _, _ := permitFramework(t, []permitResult{wait(time.Minute)})
	pod := podNamed("p")
	ctx := context.Background()
	if s := f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n1"); !s.IsWait() {
		t.Fatalf("RunPermitPlugins = %v", s)
	}
	done := make(chan *framework.Status)
	go func() { done <- f.WaitOnPermit(ctx, pod) }()
	f.GetWaitingPod(pod.UID).Allow("W0")
	if s := <-done; !s.IsSuccess() {
		t.Errorf("WaitOnPermit = %v", s)
	}
}

func TestWaitOnPermitContextDone(t *testing.T) {
	f, _, clock := permitFramework(t, []permitResult{wait(time.Minute)})
	pod := podNamed("p")
	if s := f.RunPermitPlugins(context.Background(), framework.NewCycleState(), pod, "n1"); !s.IsWait() {
		t.Fatalf("RunPermitPlugins = %v", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := f.WaitOnPermit(ctx, pod)
	if d := statusDiff(framework.NewStatus(framework.Error, "waiting on permit for pod: context canceled"), s); d != "" {
		t.Error(d)
	}
	if clock.pending() != 0 || f.GetWaitingPod(pod.UID) != nil {
		t.Error("the wait was not cleaned up")
	}
}

func TestWaitOnPermitNotWaiting(t *testing.T) {
	f, _, _ := permitFramework(t, nil)
	if s := f.WaitOnPermit(context.Background(), podNamed("p")); s != nil {
		t.Errorf("WaitOnPermit = %v, want nil", s)
	}
	if f.RejectWaitingPod("uid-p") {
		t.Error("RejectWaitingPod of an unknown pod succeeded")
	}
}

func TestWaitingPodsShared(t *testing.T) {
	shared := runtime.NewWaitingPods()
	f1, _, _ := permitFramework(t, []permitResult{wait(time.Minute)}, runtime.WithWaitingPods(shared))
	f2, _, _ := permitFramework(t, nil, runtime.WithWaitingPods(shared))
	pod := podNamed("p")
	f1.RunPermitPlugins(context.Background(), framework.NewCycleState(), pod, "n1")
	var seen []string
	f2.IterateOverWaitingPods(func(wp framework.WaitingPod) { seen = append(seen, wp.Pod().Name) })
	if diff := cmp.Diff([]string{"p"}, seen); diff != "" {
		t.Errorf("waiting pods seen from another profile (-want +got):\n%s", diff)
	}
	if shared.Len() != 1 {
		t.Errorf("Len = %d", shared.Len())
	}
}
