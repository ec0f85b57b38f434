package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/defaultbinder"
	"github.com/berthsched/berth/core/plugins/prioritysort"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// decision is one call recorded by fakeSink.
type decision struct {
	Kind, Pod, Node, Other string
}

// fakeSink records decisions; Bind fails while bindErr is set. Every
// decision is also sent on ch when it is not nil.
type fakeSink struct {
	mu      sync.Mutex
	calls   []decision
	bindErr error
	ch      chan decision
	// reporter, if set, takes the Unschedulable reports.
	reporter *fakeReporter
}

// Submit records each decision of the plan as its own call would.
func (f *fakeSink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		if err := f.submitItem(ctx, item); err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}

func (f *fakeSink) submitItem(ctx context.Context, item framework.PlanItem) error {
	switch it := item.(type) {
	case *framework.Bind:
		return f.Bind(ctx, it.Pod, it.Node)
	case *framework.Eviction:
		return f.Evict(ctx, it.Victim, it.Node, it.Preemptor, it.Message)
	case *framework.Nomination:
		return f.Nominate(ctx, it.Pod, it.Node)
	case *framework.ClearNomination:
		return f.ClearNomination(ctx, it.Pod, it.Reason)
	case *framework.UnschedulableReport:
		if f.reporter != nil {
			return f.reporter.Unschedulable(ctx, it.Pod, it.Message, it.FitErr)
		}
	}
	return nil
}

func (f *fakeSink) record(d decision) error {
	f.mu.Lock()
	f.calls = append(f.calls, d)
	err := f.bindErr
	ch := f.ch
	f.mu.Unlock()
	if ch != nil {
		ch <- d
	}
	if d.Kind == "bind" {
		return err
	}
	return nil
}

func (f *fakeSink) Bind(_ context.Context, pod *model.Pod, node string) error {
	return f.record(decision{Kind: "bind", Pod: pod.Key(), Node: node})
}

func (f *fakeSink) Evict(_ context.Context, victim *model.Pod, node string, preemptor *model.Pod, _ string) error {
	return f.record(decision{Kind: "evict", Pod: victim.Key(), Node: node, Other: preemptor.Key()})
}

func (f *fakeSink) Nominate(_ context.Context, pod *model.Pod, node string) error {
	return f.record(decision{Kind: "nominate", Pod: pod.Key(), Node: node})
}

func (f *fakeSink) ClearNomination(_ context.Context, pod *model.Pod, _ string) error {
	return f.record(decision{Kind: "clear", Pod: pod.Key()})
}

func (f *fakeSink) decisions() []decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]decision(nil), f.calls...)
}

// fakeReporter records Unschedulable calls as "ns/name: message".
type fakeReporter struct {
	mu    sync.Mutex
	calls []string
}

func (r *fakeReporter) Unschedulable(_ context.Context, pod *model.Pod, msg string, _ *framework.FitError) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, pod.Key()+": "+msg)
	return nil
}

func (r *fakeReporter) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// reject is how a fake filter rejects a node.
type reject struct {
	code   framework.Code
	reason string
}

// fakeFilter rejects the nodes in its table and records the nodes it was
// asked about, in order.
type fakeFilter struct {
	name   string
	reject map[string]reject // by node
	mu     sync.Mutex
	seen   []string
}

func (f *fakeFilter) Name() string { return f.name }

func (f *fakeFilter) Filter(_ context.Context, _ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
	f.mu.Lock()
	f.seen = append(f.seen, ni.Name())
	r, ok := f.reject[ni.Name()]
	f.mu.Unlock()
	if !ok {
		return nil
	}
	return framework.NewStatus(r.code, r.reason)
}

func (f *fakeFilter) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.seen
	f.seen = nil
	return out
}

// fakeScore scores nodes from a table (0 for the others).
type fakeScore struct {
	name   string
	scores map[string]int64
}

func (f *fakeScore) Name() string { return f.name }

func (f *fakeScore) Score(_ context.Context, _ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return f.scores[ni.Name()], nil
}

func (f *fakeScore) ScoreExtensions() framework.ScoreExtensions { return nil }

// fakePermit answers every pod with its verdict.
type fakePermit struct {
	name    string
	verdict framework.Code
	timeout time.Duration
}

func (f *fakePermit) Name() string { return f.name }

func (f *fakePermit) Permit(context.Context, *framework.CycleState, *model.Pod, string) (*framework.Status, time.Duration) {
	switch f.verdict {
	case framework.Success:
		return nil, 0
	case framework.Wait:
		return framework.NewStatus(framework.Wait), f.timeout
	}
	return framework.NewStatus(f.verdict, "permit says no"), 0
}

// fakeReserve rejects every pod when fail is set.
type fakeReserve struct {
	name       string
	fail       bool
	unreserved int
}

func (f *fakeReserve) Name() string { return f.name }

func (f *fakeReserve) Reserve(context.Context, *framework.CycleState, *model.Pod, string) *framework.Status {
	if f.fail {
		return framework.NewStatus(framework.Unschedulable, "reserve says no")
	}
	return nil
}

func (f *fakeReserve) Unreserve(context.Context, *framework.CycleState, *model.Pod, string) {
	f.unreserved++
}

// fakePreBind answers every pod with its code; before answering it runs
// hook, if set.
type fakePreBind struct {
	name string
	code framework.Code
	hook func(pod *model.Pod)
}

func (f *fakePreBind) Name() string { return f.name }

func (f *fakePreBind) PreBind(_ context.Context, _ *framework.CycleState, pod *model.Pod, _ string) *framework.Status {
	if f.hook != nil {
		f.hook(pod)
	}
	if f.code == framework.Success {
		return nil
	}
	return framework.NewStatus(f.code, "prebind says no")
}

// fakePostFilter nominates a fixed node (evicting the given pods) or fails.
type fakePostFilter struct {
	name     string
	nominate string
	victims  []*model.Pod
	handle   framework.Handle
}

func (f *fakePostFilter) Name() string { return f.name }

func (f *fakePostFilter) PostFilter(ctx context.Context, _ *framework.CycleState, pod *model.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if f.nominate == "" {
		return nil, framework.NewStatus(framework.Unschedulable, "preemption: nothing to preempt")
	}
	for _, v := range f.victims {
		if _, err := framework.SubmitOne(ctx, f.handle.Decisions(), &framework.Eviction{Victim: v, Node: f.nominate, Preemptor: pod, Message: "preempted"}); err != nil {
			return nil, framework.AsStatus(err)
		}
	}
	return &framework.PostFilterResult{NominatedNodeName: f.nominate}, nil
}

// testPlugins are the fakes a test profile runs, by extension point.
type testPlugins struct {
	filters     []*fakeFilter
	scores      []*fakeScore
	permit      *fakePermit
	reserve     *fakeReserve
	preBind     *fakePreBind
	postFilter  *fakePostFilter
	extraConfig func(*config.Profile)
}

// registryAndConfig builds a registry of the fakes (plus PrioritySort and
// DefaultBinder) and a one-profile configuration enabling them.
func (tp *testPlugins) registryAndConfig() (runtime.Registry, *config.Config) {
	reg := runtime.Registry{
		prioritysort.Name:  prioritysort.New,
		defaultbinder.Name: defaultbinder.New,
	}
	p := config.Profile{SchedulerName: model.DefaultSchedulerName}
	p.Plugins.QueueSort.Enabled = []config.Plugin{{Name: prioritysort.Name}}
	p.Plugins.Bind.Enabled = []config.Plugin{{Name: defaultbinder.Name}}
	add := func(point config.ExtensionPoint, pl framework.Plugin) {
		reg[pl.Name()] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) { return pl, nil }
		set := p.Plugins.Set(point)
		set.Enabled = append(set.Enabled, config.Plugin{Name: pl.Name()})
	}
	for _, f := range tp.filters {
		add(config.Filter, f)
	}
	for _, f := range tp.scores {
		add(config.Score, f)
	}
	if tp.permit != nil {
		add(config.Permit, tp.permit)
	}
	if tp.reserve != nil {
		add(config.Reserve, tp.reserve)
	}
	if tp.preBind != nil {
		add(config.PreBind, tp.preBind)
	}
	if pf := tp.postFilter; pf != nil {
		reg[pf.name] = func(_ context.Context, _ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
			pf.handle = h
			return pf, nil
		}
		p.Plugins.PostFilter.Enabled = []config.Plugin{{Name: pf.name}}
	}
	if tp.extraConfig != nil {
		tp.extraConfig(&p)
	}
	return reg, &config.Config{Parallelism: 16, PodInitialBackoffSeconds: 1, PodMaxBackoffSeconds: 10, Profiles: []config.Profile{p}}
}

// newEnvFakes is an env without scheduler: a sink whose reports go to
// the env's reporter, and a clock.
func newEnvFakes(t *testing.T) *env {
	e := &env{t: t, reporter: &fakeReporter{}, clock: newFakeClock()}
	e.sink = &fakeSink{reporter: e.reporter}
	return e
}

// env is a scheduler under test with its fakes.
type env struct {
	t        *testing.T
	s        *Scheduler
	sink     *fakeSink
	reporter *fakeReporter
	clock    *fakeClock
}

func newEnv(t *testing.T, tp *testPlugins, tune func(*Options)) *env {
	t.Helper()
	reg, cfg := tp.registryAndConfig()
	e := newEnvFakes(t)
	opts := Options{
		Config: cfg, Registry: reg, Decisions: e.sink, Clock: e.clock,
		Deterministic: true, Replay: Replay{BindInline: true},
	}
	if tune != nil {
		tune(&opts)
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	return e
}

func (e *env) addNodes(nodes ...*model.Node) {
	e.t.Helper()
	for _, n := range nodes {
		if err := e.s.addNode(context.Background(), n); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) addPods(pods ...*model.Pod) {
	e.t.Helper()
	for _, p := range pods {
		if err := e.s.AddPod(context.Background(), p); err != nil {
			e.t.Fatal(err)
		}
	}
}

// scheduleOne runs one cycle; it fails the test if nothing is queued.
func (e *env) scheduleOne() *Attempt {
	e.t.Helper()
	if st := e.s.queue.Stats(); st.Active == 0 && st.Backoff == 0 {
		e.t.Fatalf("scheduleOne with nothing to pop: %+v", st)
	}
	att, err := e.s.ScheduleOne(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return att
}

// expireBackoff moves the clock past any backoff and flushes backoffQ.
func (e *env) expireBackoff() {
	e.clock.Step(time.Minute)
	e.s.queue.FlushBackoffQCompleted(context.Background())
}

var errBindRefused = errors.New("bind refused")

func nodeNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return out
}

// runningEnv is an env whose scheduler runs, on the real clock, until the
// test ends, recording its decisions; tune adjusts the options further.
func runningEnv(t *testing.T, tune func(*Options)) (context.Context, *env) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := newEnv(t, &testPlugins{}, func(o *Options) {
		o.Clock = nil
		if tune != nil {
			tune(o)
		}
	})
	e.sink.ch = make(chan decision, 10)
	done := make(chan struct{})
	go func() {
		e.s.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ctx, e
}

// noDecision fails the test if a decision comes within 100 ms, before
// what should come first.
func noDecision(t *testing.T, e *env, before string) {
	t.Helper()
	select {
	case d := <-e.sink.ch:
		t.Fatalf("decision %+v before %s", d, before)
	case <-time.After(100 * time.Millisecond):
	}
}
