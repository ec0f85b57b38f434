package daemon

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func (e *env) eviction() berthv1.EvictionServiceClient {
	return berthv1.NewEvictionServiceClient(e.conn)
}

// readyPod is a pod running on node, ready, labelled app=app.
func readyPod(name, node, app string) *berthv1.Object {
	p := podWire(name, 100, withNode(node))
	p.Ready = true
	p.Labels = map[string]string{"app": app}
	return podObj(p)
}

func pdbObj(name, app string, minAvailable int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: &berthv1.PodDisruptionBudget{
		Namespace: "default", Name: name,
		Selector: &berthv1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		Budget:   &berthv1.PodDisruptionBudget_MinAvailable{MinAvailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Count{Count: minAvailable}}},
	}}}
}

func evictReq(name string) *berthv1.EvictPodRequest {
	return &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: name}}
}

// Two evictions race for a budget's last allowed disruption: exactly one
// wins, the other is RESOURCE_EXHAUSTED naming the budget with a retry
// delay, and its pod is untouched.
func TestEvictionAPIRaceForLastDisruption(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), readyPod("web-0", "n1", "web"), readyPod("web-1", "n1", "web"), readyPod("web-2", "n1", "web"), pdbObj("web", "web", 2))

	var wg sync.WaitGroup
	errs := make([]error, 2)
	resps := make([]*berthv1.EvictPodResponse, 2)
	for i, name := range []string{"web-0", "web-1"} {
		wg.Go(func() { resps[i], errs[i] = e.eviction().EvictPod(t.Context(), evictReq(name)) })
	}
	wg.Wait()
	won, lost := -1, -1
	for i, err := range errs {
		if err == nil {
			won = i
		} else {
			lost = i
		}
	}
	if won < 0 || lost < 0 {
		t.Fatalf("errors %v: want exactly one eviction to win", errs)
	}
	if r := resps[won]; r.GetBudget() != "default/web" || r.GetDisruptionsAllowed() != 1 || r.GetRevision() == 0 {
		t.Errorf("winner's response %v", r)
	}
	st := status.Convert(errs[lost])
	if st.Code() != codes.ResourceExhausted {
		t.Fatalf("loser: %v, want RESOURCE_EXHAUSTED", errs[lost])
	}
	var info *errdetails.ErrorInfo
	var retry *errdetails.RetryInfo
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.RetryInfo:
			retry = d
		}
	}
	if info.GetReason() != "DISRUPTION_BUDGET" || info.GetMetadata()["budget"] != "default/web" || retry.GetRetryDelay().AsDuration() <= 0 {
		t.Errorf("loser's details: %v %v", info, retry)
	}
	ds := w.waitFor(t, "one Evict", func(ds []*berthv1.Decision) bool { return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 1 })
	var evicted []string
	for _, d := range ds {
		if ev := d.GetEvict(); ev != nil {
			evicted = append(evicted, ev.GetVictim().GetName())
			if ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_API {
				t.Errorf("cause %v, want API", ev.GetCause())
			}
		}
	}
	if want := []string{[]string{"web-0", "web-1"}[won]}; !cmp.Equal(want, evicted) {
		t.Errorf("evicted %v, want %v", evicted, want)
	}
	loser, _ := e.d.Scheduler().View().Find("default", []string{"web-0", "web-1"}[lost])
	if loser.Terminating {
		t.Errorf("the refused pod is terminating: %+v", loser)
	}
	// The winner again: already evicted, nothing new.
	again, err := e.eviction().EvictPod(t.Context(), evictReq([]string{"web-0", "web-1"}[won]))
	if err != nil || !again.GetAlreadyEvicted() {
		t.Errorf("evicting the evicted pod again: %v %v", again, err)
	}
}

func TestEvictionAPIRules(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	pending := podWire("pending", 100)
	pending.Labels = map[string]string{"app": "web"}
	e.apply(t, nodeObj("n1", 4000),
		readyPod("solo", "n1", "solo"),
		readyPod("a", "n1", "web"), readyPod("b", "n1", "web"), pdbObj("web", "web", 2), pdbObj("web-too", "web", 1),
		readyPod("c", "n1", "db"), pdbObj("db", "db", 1))
	for _, tc := range []struct {
		name   string
		req    *berthv1.EvictPodRequest
		code   codes.Code
		reason string
	}{
		{"unknown pod", evictReq("nope"), codes.NotFound, ""},
		{"uid mismatch", &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "solo", Uid: "other"}}, codes.FailedPrecondition, ""},
		{"negative grace", &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "solo"}, GracePeriodSeconds: ptrInt64(-1)}, codes.InvalidArgument, ""},
		{"missing name", &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default"}}, codes.InvalidArgument, ""},
		{"two budgets", evictReq("a"), codes.FailedPrecondition, "MULTIPLE_DISRUPTION_BUDGETS"},
		{"budget at its minimum", evictReq("c"), codes.ResourceExhausted, "DISRUPTION_BUDGET"},
		{"no budget, dry run", &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "solo"}, DryRun: true}, codes.OK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.eviction().EvictPod(t.Context(), tc.req)
			st := status.Convert(err)
			if st.Code() != tc.code {
				t.Fatalf("EvictPod: %v, want %v", err, tc.code)
			}
			if tc.reason != "" {
				if info := errorInfo(err); info.GetReason() != tc.reason {
					t.Errorf("reason %q, want %q", info.GetReason(), tc.reason)
				}
			}
			if err == nil && (resp.GetRevision() != 0 || resp.GetAlreadyEvicted()) {
				t.Errorf("dry run wrote: %v", resp)
			}
		})
	}
	if solo, _ := e.d.Scheduler().View().Find("default", "solo"); solo.Terminating {
		t.Error("a dry run made the pod terminating")
	}
	resp, err := e.eviction().EvictPod(t.Context(), &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "solo"}, GracePeriodSeconds: ptrInt64(7)})
	if err != nil || resp.GetRevision() == 0 || resp.GetBudget() != "" {
		t.Fatalf("evicting solo: %v %v", resp, err)
	}
}

func ptrInt64(v int64) *int64 { return &v }

// Property: whatever evictions race against whatever budgets, no pod gets
// two Evicts and no budget loses more healthy pods than it allowed.
func TestEvictionAPINeverOverdrawsProperty(t *testing.T) {
	for seed := range uint64(5) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 17))
			e := start(t, Config{DataDir: t.TempDir()})
			objs := []*berthv1.Object{nodeObj("n1", 100000)}
			apps := 1 + rng.IntN(3)
			allowed := map[string]int{}
			var names []string
			for a := range apps {
				app := fmt.Sprintf("app%d", a)
				n, minAvail := 2+rng.IntN(5), 0
				minAvail = rng.IntN(n + 1)
				allowed["default/"+app] = n - minAvail
				objs = append(objs, pdbObj(app, app, int32(minAvail)))
				for i := range n {
					name := fmt.Sprintf("%s-%d", app, i)
					names = append(names, name)
					objs = append(objs, readyPod(name, "n1", app))
				}
			}
			e.apply(t, objs...)
			// Every pod is asked for three times, by concurrent callers.
			var mu sync.Mutex
			charged := map[string]int{}
			written := map[string]int{}
			var wg sync.WaitGroup
			for range 3 {
				for _, name := range names {
					wg.Go(func() {
						resp, err := e.eviction().EvictPod(t.Context(), evictReq(name))
						if err != nil {
							if c := status.Code(err); c != codes.ResourceExhausted {
								t.Errorf("evict %s: %v", name, err)
							}
							return
						}
						mu.Lock()
						defer mu.Unlock()
						if resp.GetRevision() != 0 {
							written[name]++
							charged[resp.GetBudget()]++
						}
					})
				}
			}
			wg.Wait()
			for name, n := range written {
				if n > 1 {
					t.Errorf("%s evicted %d times", name, n)
				}
			}
			for budget, n := range charged {
				if n > allowed[budget] {
					t.Errorf("budget %s charged %d evictions, allowed %d", budget, n, allowed[budget])
				}
			}
			for budget, n := range allowed {
				if charged[budget] != n {
					t.Errorf("budget %s: %d evictions, want all %d it allowed (every pod was asked for)", budget, charged[budget], n)
				}
			}
		})
	}
}

// BenchmarkEvictionAPI measures evictions through EvictionService.EvictPod,
// one caller at a time, of pods covered by a budget that allows them all
// (each eviction reads the budget and is durable before it returns):
//
//	go test -run ^$ -bench EvictionAPI -benchtime 2000x ./server/daemon/
func BenchmarkEvictionAPI(b *testing.B) {
	e := start(b, Config{DataDir: b.TempDir()})
	objs := []*berthv1.Object{nodeObj("n1", 1<<40), pdbObj("web", "web", 0)}
	for i := range b.N {
		objs = append(objs, readyPod(fmt.Sprintf("web-%d", i), "n1", "web"))
	}
	if _, err := e.state.Apply(b.Context(), &berthv1.ApplyRequest{Objects: objs}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := e.eviction().EvictPod(b.Context(), evictReq(fmt.Sprintf("web-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evictions/s")
}
