package scheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/queue"
)

// waitDecision returns the next decision, failing the test after a while
// (the binding cycle runs on its own goroutine).
func waitDecision(t *testing.T, ch chan decision) decision {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no decision arrived")
		return decision{}
	}
}

func TestPermit(t *testing.T) {
	tests := []struct {
		name        string
		verdict     framework.Code
		resolve     func(wp framework.WaitingPod) // for Wait
		wantBind    bool
		wantSub     queue.SubQueue
		wantMessage string
	}{
		{name: "allow", verdict: framework.Success, wantBind: true},
		{name: "reject at once", verdict: framework.Unschedulable, wantSub: queue.Unschedulable,
			wantMessage: "0/1 nodes are available: 1 permit says no."},
		{name: "wait then allow", verdict: framework.Wait, resolve: func(wp framework.WaitingPod) { wp.Allow("P") }, wantBind: true},
		{name: "wait then reject", verdict: framework.Wait, resolve: func(wp framework.WaitingPod) { wp.Reject("P", "not now") },
			wantSub: queue.Unschedulable, wantMessage: "0/1 nodes are available: 1 not now."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := &testPlugins{permit: &fakePermit{name: "P", verdict: tc.verdict, timeout: time.Hour}}
			e := newEnv(t, tp, func(o *Options) { o.Replay.BindInline = false })
			e.sink.ch = make(chan decision, 10)
			e.addNodes(mt.MakeNode("n1").Obj())
			e.addPods(mt.MakePod("p").Obj())
			att := e.scheduleOne()
			if tc.resolve != nil {
				if att.Result != ResultScheduled {
					t.Fatalf("attempt %s %s", att.Result, att.Message)
				}
				fwk, _ := e.s.View().Profile("default-scheduler")
				wp := fwk.GetWaitingPod("uid-p")
				if wp == nil {
					t.Fatal("the pod is not waiting")
				}
				if ex, _ := e.s.View().Explain("default", "p"); ex.Phase != PhaseBinding {
					t.Errorf("phase while waiting %s, want Binding", ex.Phase)
				}
				tc.resolve(wp)
			}
			if tc.wantBind {
				if d := waitDecision(t, e.sink.ch); d != (decision{Kind: "bind", Pod: "default/p", Node: "n1"}) {
					t.Errorf("decision %+v, want the bind", d)
				}
				return
			}
			e.s.bindWG.Wait()
			ex, _ := e.s.View().Explain("default", "p")
			if ex.Phase != PhasePending || ex.Queue.SubQueue != tc.wantSub || !cmp.Equal(ex.Queue.UnschedulablePlugins, []string{"P"}) {
				t.Errorf("after rejection: %s %+v", ex.Phase, ex.Queue)
			}
			if ex.Diagnosis == nil || ex.Diagnosis.Message != tc.wantMessage {
				t.Errorf("diagnosis %+v, want %q", ex.Diagnosis, tc.wantMessage)
			}
			if e.s.cache.Counts().Pods != 0 {
				t.Error("the rejected pod is still assumed")
			}
		})
	}
}

func TestReserveFailureUnreserves(t *testing.T) {
	res := &fakeReserve{name: "R", fail: true}
	e := newEnv(t, &testPlugins{reserve: res}, nil)
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable || att.Message != "0/1 nodes are available: 1 reserve says no." {
		t.Errorf("attempt %s %q", att.Result, att.Message)
	}
	if res.unreserved != 1 || e.s.cache.Counts().Pods != 0 {
		t.Errorf("unreserved %d times, cache holds %d pods", res.unreserved, e.s.cache.Counts().Pods)
	}
}

func TestBindFailureRequeues(t *testing.T) {
	e := newEnv(t, &testPlugins{}, nil)
	e.sink.bindErr = errBindRefused
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	if att.Result != ResultScheduled || !errors.Is(att.BindStatus.AsError(), errBindRefused) {
		t.Fatalf("attempt %s, bind status %v", att.Result, att.BindStatus)
	}
	ex, _ := e.s.View().Explain("default", "p")
	if ex.Phase != PhasePending || ex.Queue.SubQueue != queue.Backoff || ex.Queue.BackoffUntil.IsZero() {
		t.Errorf("after a failed bind: %s %+v, want Pending in Backoff", ex.Phase, ex.Queue)
	}
	if e.s.cache.Counts().Pods != 0 {
		t.Error("the assumed pod was not forgotten")
	}
	// The retry binds once the sink accepts.
	e.sink.bindErr = nil
	e.expireBackoff()
	if att := e.scheduleOne(); att.Result != ResultScheduled || att.BindStatus != nil {
		t.Errorf("retry: %s %v", att.Result, att.BindStatus)
	}
}

// TestConfiguredBackoffReachesQueue checks that podInitialBackoffSeconds
// and podMaxBackoffSeconds from the configuration pace the retries of a
// pod whose binding keeps failing: 3s, 6s, then capped at 7s.
func TestConfiguredBackoffReachesQueue(t *testing.T) {
	e := newEnv(t, &testPlugins{}, func(o *Options) {
		o.Config.PodInitialBackoffSeconds, o.Config.PodMaxBackoffSeconds = 3, 7
	})
	e.sink.bindErr = errBindRefused
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	var got []time.Duration
	for range 3 {
		failedAt := e.clock.Now()
		if att := e.scheduleOne(); att.BindStatus.IsSuccess() {
			t.Fatalf("attempt bound: %s", att.Result)
		}
		ex, _ := e.s.View().Explain("default", "p")
		got = append(got, ex.Queue.BackoffUntil.Sub(failedAt))
		e.expireBackoff()
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second, 6 * time.Second, 7 * time.Second}, got); diff != "" {
		t.Errorf("backoff per failed bind (-want +got):\n%s", diff)
	}
}

func TestReportBindResult(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		ok        bool
		wantPhase PodPhase
		wantSub   queue.SubQueue
	}{
		{name: "confirmed", ok: true, wantPhase: PhaseBound},
		{name: "failed", ok: false, wantPhase: PhasePending, wantSub: queue.Backoff},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, &testPlugins{}, nil)
			e.addNodes(mt.MakeNode("n1").Obj())
			e.addPods(mt.MakePod("p").Obj())
			if att := e.scheduleOne(); att.BindStatus != nil {
				t.Fatal(att.BindStatus)
			}
			if ex, _ := e.s.View().Explain("default", "p"); ex.Phase != PhaseBinding || e.s.View().Stats().BindsInFlight != 1 {
				t.Fatalf("before the report: %s, %d binds in flight", ex.Phase, e.s.View().Stats().BindsInFlight)
			}
			if err := e.s.ReportBindResult(ctx, "uid-p", "n1", tc.ok, "node went away"); err != nil {
				t.Fatal(err)
			}
			ex, _ := e.s.View().Explain("default", "p")
			if ex.Phase != tc.wantPhase || ex.Queue.SubQueue != tc.wantSub {
				t.Errorf("after the report: %s %s, want %s %s", ex.Phase, ex.Queue.SubQueue, tc.wantPhase, tc.wantSub)
			}
			if n := e.s.View().Stats().BindsInFlight; n != 0 {
				t.Errorf("%d binds in flight", n)
			}
			err := e.s.ReportBindResult(ctx, "uid-p", "n1", false, "")
			if !errors.Is(err, ErrNoBindInFlight) {
				t.Errorf("second failure report: %v, want ErrNoBindInFlight", err)
			}
		})
	}
}

func TestBoundPodConfirmsAssumption(t *testing.T) {
	e := newEnv(t, &testPlugins{}, nil)
	e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(1000, mt.Gi)).Obj())
	e.addPods(mt.MakePod("p").Req(mt.Res(600, 0)).Obj())
	e.scheduleOne()
	e.addPods(mt.MakePod("p").Req(mt.Res(600, 0)).Node("n1").Obj())
	st := e.s.View().Stats()
	if st.BindsInFlight != 0 || st.Cache.AssumedPods != 0 || st.Cache.Pods != 1 {
		t.Errorf("after confirmation: %+v", st)
	}
	if ex, _ := e.s.View().Explain("default", "p"); ex.Phase != PhaseBound || ex.Node != "n1" {
		t.Errorf("explain %s %s", ex.Phase, ex.Node)
	}
}

func TestDeleteAssumedPodFreesItsNode(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	e.scheduleOne()
	if err := e.s.DeletePod(ctx, mt.MakePod("p").Obj()); err != nil {
		t.Fatal(err)
	}
	st := e.s.View().Stats()
	if st.Cache.Pods != 0 || st.BindsInFlight != 0 || st.Pods != 0 {
		t.Errorf("after deleting the assumed pod: %+v", st)
	}
}

// TestPreBind checks that the pod is still in flight while PreBind runs
// and that a PreBind rejection makes it unschedulable, with a diagnosis
// naming the plugin, while an error retries it after backoff.
func TestPreBind(t *testing.T) {
	tests := []struct {
		name        string
		code        framework.Code
		wantBind    bool
		wantSub     queue.SubQueue
		wantPlugins []string
		wantMessage string
	}{
		{name: "success", code: framework.Success, wantBind: true},
		{
			name: "unschedulable", code: framework.Unschedulable, wantSub: queue.Unschedulable,
			wantPlugins: []string{"PB"}, wantMessage: "0/1 nodes are available: 1 prebind says no.",
		},
		{
			name: "unresolvable", code: framework.UnschedulableAndUnresolvable, wantSub: queue.Unschedulable,
			wantPlugins: []string{"PB"}, wantMessage: "0/1 nodes are available: 1 prebind says no.",
		},
		{name: "error", code: framework.Error, wantSub: queue.Backoff},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var during queue.SubQueue
			pb := &fakePreBind{name: "PB", code: tc.code}
			e := newEnv(t, &testPlugins{preBind: pb}, nil)
			pb.hook = func(pod *model.Pod) {
				p, _ := e.s.queue.Lookup(pod.UID)
				during = p.SubQueue
			}
			e.addNodes(mt.MakeNode("n1").Obj())
			e.addPods(mt.MakePod("p").Obj())
			att := e.scheduleOne()
			if during != queue.InFlight {
				t.Errorf("during PreBind the pod is in %q, want InFlight", during)
			}
			if tc.wantBind {
				if att.BindStatus != nil || !cmp.Equal(e.sink.decisions(), []decision{{Kind: "bind", Pod: "default/p", Node: "n1"}}) {
					t.Errorf("bind status %v, decisions %+v", att.BindStatus, e.sink.decisions())
				}
				return
			}
			if att.BindStatus.Code() != tc.code {
				t.Errorf("bind status %v, want code %v", att.BindStatus, tc.code)
			}
			ex, _ := e.s.View().Explain("default", "p")
			if ex.Phase != PhasePending || ex.Queue.SubQueue != tc.wantSub {
				t.Errorf("after PreBind failed: %s in %s, want Pending in %s", ex.Phase, ex.Queue.SubQueue, tc.wantSub)
			}
			if diff := cmp.Diff(tc.wantPlugins, ex.Queue.UnschedulablePlugins, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("UnschedulablePlugins (-want +got):\n%s", diff)
			}
			if tc.wantMessage != "" && (ex.Diagnosis == nil || ex.Diagnosis.Message != tc.wantMessage) {
				t.Errorf("diagnosis %+v, want %q", ex.Diagnosis, tc.wantMessage)
			}
			if got := e.reporter.reports(); tc.wantMessage != "" && !cmp.Equal(got, []string{"default/p: " + tc.wantMessage}) {
				t.Errorf("reported %q", got)
			}
			if n := e.s.cache.Counts().Pods; n != 0 {
				t.Errorf("the cache still holds %d pods", n)
			}
		})
	}
}
