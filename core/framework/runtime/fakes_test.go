package runtime_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// callLog records plugin calls as "Point/Plugin" (parallel-safe).
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// fake is a plugin whose behaviour at each point is a hook; nil hooks
// succeed. Which points it implements depends on the wrapper type that
// embeds it (see kinds).
type fake struct {
	name string
	log  *callLog
	args json.RawMessage

	preEnqueue func(pod *model.Pod) *framework.Status
	less       func(a, b *framework.QueuedPodInfo) bool
	preFilter  func(state *framework.CycleState, pod *model.Pod) (*framework.PreFilterResult, *framework.Status)
	addPod     func(state *framework.CycleState, pod *model.Pod, added *framework.PodInfo, ni *framework.NodeInfo) *framework.Status
	removePod  func(state *framework.CycleState, pod *model.Pod, removed *framework.PodInfo, ni *framework.NodeInfo) *framework.Status
	noExt      bool // PreFilterExtensions returns nil
	filter     func(state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo) *framework.Status
	postFilter func(filtered *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status)
	preScore   func(nodes []*framework.NodeInfo) *framework.Status
	score      func(ni *framework.NodeInfo) (int64, *framework.Status)
	normalize  func(scores framework.NodeScoreList) *framework.Status
	reserve    func() *framework.Status
	permit     func() (*framework.Status, time.Duration)
	preBind    func() *framework.Status
	bind       func() *framework.Status
	events     []framework.ClusterEventWithHint // EnqueueExtensions, when implemented
}

func (f *fake) Name() string { return f.name }

func (f *fake) record(point string) {
	if f.log != nil {
		f.log.add(point + "/" + f.name)
	}
}

type preEnqueueMixin struct{ f *fake }

func (m preEnqueueMixin) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	m.f.record("PreEnqueue")
	if m.f.preEnqueue != nil {
		return m.f.preEnqueue(pod)
	}
	return nil
}

type queueSortMixin struct{ f *fake }

func (m queueSortMixin) Less(a, b *framework.QueuedPodInfo) bool {
	if m.f.less != nil {
		return m.f.less(a, b)
	}
	return a.Pod.Name < b.Pod.Name
}

type preFilterMixin struct{ f *fake }

func (m preFilterMixin) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	m.f.record("PreFilter")
	if m.f.preFilter != nil {
		return m.f.preFilter(state, pod)
	}
	return nil, nil
}

func (m preFilterMixin) PreFilterExtensions() framework.PreFilterExtensions {
	if m.f.noExt {
		return nil
	}
	return extensions(m)
}

type extensions struct{ f *fake }

func (e extensions) AddPod(_ context.Context, state *framework.CycleState, pod *model.Pod, added *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	e.f.record("AddPod")
	if e.f.addPod != nil {
		return e.f.addPod(state, pod, added, ni)
	}
	return nil
}

func (e extensions) RemovePod(_ context.Context, state *framework.CycleState, pod *model.Pod, removed *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	e.f.record("RemovePod")
	if e.f.removePod != nil {
		return e.f.removePod(state, pod, removed, ni)
	}
	return nil
}

type filterMixin struct{ f *fake }

func (m filterMixin) Filter(_ context.Context, state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo) *framework.Status {
	m.f.record("Filter")
	if m.f.filter != nil {
		return m.f.filter(state, pod, ni)
	}
	return nil
}

type postFilterMixin struct{ f *fake }

func (m postFilterMixin) PostFilter(_ context.Context, _ *framework.CycleState, _ *model.Pod, filtered *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	m.f.record("PostFilter")
	if m.f.postFilter != nil {
		return m.f.postFilter(filtered)
	}
	return nil, nil
}

type preScoreMixin struct{ f *fake }

func (m preScoreMixin) PreScore(_ context.Context, _ *framework.CycleState, _ *model.Pod, nodes []*framework.NodeInfo) *framework.Status {
	m.f.record("PreScore")
	if m.f.preScore != nil {
		return m.f.preScore(nodes)
	}
	return nil
}

type scoreMixin struct{ f *fake }

func (m scoreMixin) Score(_ context.Context, _ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	m.f.record("Score")
	if m.f.score != nil {
		return m.f.score(ni)
	}
	return 0, nil
}

func (m scoreMixin) ScoreExtensions() framework.ScoreExtensions {
	if m.f.normalize == nil {
		return nil
	}
	return m
}

func (m scoreMixin) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	m.f.record("NormalizeScore")
	return m.f.normalize(scores)
}

type reserveMixin struct{ f *fake }

func (m reserveMixin) Reserve(context.Context, *framework.CycleState, *model.Pod, string) *framework.Status {
	m.f.record("Reserve")
	if m.f.reserve != nil {
		return m.f.reserve()
	}
	return nil
}

func (m reserveMixin) Unreserve(context.Context, *framework.CycleState, *model.Pod, string) {
	m.f.record("Unreserve")
}

type permitMixin struct{ f *fake }

func (m permitMixin) Permit(context.Context, *framework.CycleState, *model.Pod, string) (*framework.Status, time.Duration) {
	m.f.record("Permit")
	if m.f.permit != nil {
		return m.f.permit()
	}
	return nil, 0
}

type preBindMixin struct{ f *fake }

func (m preBindMixin) PreBind(context.Context, *framework.CycleState, *model.Pod, string) *framework.Status {
	m.f.record("PreBind")
	if m.f.preBind != nil {
		return m.f.preBind()
	}
	return nil
}

type bindMixin struct{ f *fake }

func (m bindMixin) Bind(context.Context, *framework.CycleState, *model.Pod, string) *framework.Status {
	m.f.record("Bind")
	if m.f.bind != nil {
		return m.f.bind()
	}
	return nil
}

type postBindMixin struct{ f *fake }

func (m postBindMixin) PostBind(context.Context, *framework.CycleState, *model.Pod, string) {
	m.f.record("PostBind")
}

type enqueueMixin struct{ f *fake }

func (m enqueueMixin) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return m.f.events, nil
}

// The plugin kinds the tests use; each implements a fixed set of points.
type (
	// gatePlugin: PreEnqueue with EnqueueExtensions (SchedulingGates).
	gatePlugin struct {
		*fake
		preEnqueueMixin
		enqueueMixin
	}
	// sortPlugin: QueueSort (PrioritySort).
	sortPlugin struct {
		*fake
		queueSortMixin
	}
	// filterPlugin: Filter (NodeName).
	filterPlugin struct {
		*fake
		filterMixin
	}
	// preFilterPlugin: PreFilter and Filter (NodePorts).
	preFilterPlugin struct {
		*fake
		preFilterMixin
		filterMixin
	}
	// filterScorePlugin: Filter, PreScore, Score (TaintToleration).
	filterScorePlugin struct {
		*fake
		filterMixin
		preScoreMixin
		scoreMixin
	}
	// fullFilterScorePlugin: PreFilter, Filter, PreScore, Score
	// (NodeResourcesFit, NodeAffinity, PodTopologySpread,
	// InterPodAffinity).
	fullFilterScorePlugin struct {
		*fake
		preFilterMixin
		filterMixin
		preScoreMixin
		scoreMixin
	}
	// scorePlugin: PreScore and Score (NodeResourcesBalancedAllocation).
	scorePlugin struct {
		*fake
		preScoreMixin
		scoreMixin
	}
	// volumeBindingPlugin: PreFilter, Filter, Score, Reserve (VolumeBinding).
	volumeBindingPlugin struct {
		*fake
		preFilterMixin
		filterMixin
		scoreMixin
		reserveMixin
	}
	// preemptPlugin: PostFilter and PreEnqueue (kube's DefaultPreemption).
	preemptPlugin struct {
		*fake
		postFilterMixin
		preEnqueueMixin
	}
	// draPlugin: PreEnqueue, PreFilter, Filter, PostFilter, Score,
	// Reserve, PreBind (DynamicResources).
	draPlugin struct {
		*fake
		preEnqueueMixin
		preFilterMixin
		filterMixin
		postFilterMixin
		scoreMixin
		reserveMixin
		preBindMixin
	}
	// postFilterPlugin: PostFilter.
	postFilterPlugin struct {
		*fake
		postFilterMixin
	}
	// binderPlugin: Bind (DefaultBinder).
	binderPlugin struct {
		*fake
		bindMixin
	}
	// reservePermitPlugin: Reserve and Permit.
	reservePermitPlugin struct {
		*fake
		reserveMixin
		permitMixin
	}
	// allPlugin: every point, with EnqueueExtensions.
	allPlugin struct {
		*fake
		preEnqueueMixin
		queueSortMixin
		preFilterMixin
		filterMixin
		postFilterMixin
		preScoreMixin
		scoreMixin
		reserveMixin
		permitMixin
		preBindMixin
		bindMixin
		postBindMixin
		enqueueMixin
	}
)

// kind builds a plugin of a kind around f.
type kind func(f *fake) framework.Plugin

var (
	gateKind        kind = func(f *fake) framework.Plugin { return &gatePlugin{f, preEnqueueMixin{f}, enqueueMixin{f}} }
	sortKind        kind = func(f *fake) framework.Plugin { return &sortPlugin{f, queueSortMixin{f}} }
	filterKind      kind = func(f *fake) framework.Plugin { return &filterPlugin{f, filterMixin{f}} }
	preFilterKind   kind = func(f *fake) framework.Plugin { return &preFilterPlugin{f, preFilterMixin{f}, filterMixin{f}} }
	filterScoreKind kind = func(f *fake) framework.Plugin {
		return &filterScorePlugin{f, filterMixin{f}, preScoreMixin{f}, scoreMixin{f}}
	}
	fullFilterScoreKind kind = func(f *fake) framework.Plugin {
		return &fullFilterScorePlugin{f, preFilterMixin{f}, filterMixin{f}, preScoreMixin{f}, scoreMixin{f}}
	}
	scoreKind         kind = func(f *fake) framework.Plugin { return &scorePlugin{f, preScoreMixin{f}, scoreMixin{f}} }
	volumeBindingKind kind = func(f *fake) framework.Plugin {
		return &volumeBindingPlugin{f, preFilterMixin{f}, filterMixin{f}, scoreMixin{f}, reserveMixin{f}}
	}
	preemptKind    kind = func(f *fake) framework.Plugin { return &preemptPlugin{f, postFilterMixin{f}, preEnqueueMixin{f}} }
	postFilterKind kind = func(f *fake) framework.Plugin { return &postFilterPlugin{f, postFilterMixin{f}} }
	draKind        kind = func(f *fake) framework.Plugin {
		return &draPlugin{f, preEnqueueMixin{f}, preFilterMixin{f}, filterMixin{f}, postFilterMixin{f}, scoreMixin{f}, reserveMixin{f}, preBindMixin{f}}
	}
	binderKind        kind = func(f *fake) framework.Plugin { return &binderPlugin{f, bindMixin{f}} }
	reservePermitKind kind = func(f *fake) framework.Plugin { return &reservePermitPlugin{f, reserveMixin{f}, permitMixin{f}} }
	allKind           kind = func(f *fake) framework.Plugin {
		return &allPlugin{f, preEnqueueMixin{f}, queueSortMixin{f}, preFilterMixin{f}, filterMixin{f}, postFilterMixin{f}, preScoreMixin{f}, scoreMixin{f}, reserveMixin{f}, permitMixin{f}, preBindMixin{f}, bindMixin{f}, postBindMixin{f}, enqueueMixin{f}}
	}
)

// testPlugins builds a registry from fakes and their kinds; the factories
// record the args they get in the fake.
type testPlugins struct {
	log   *callLog
	fakes map[string]*fake
	reg   runtime.Registry
}

func newTestPlugins() *testPlugins {
	return &testPlugins{log: &callLog{}, fakes: map[string]*fake{}, reg: runtime.Registry{}}
}

// add registers a plugin of kind k named name and returns its fake so the
// test can set hooks before building the framework.
func (tp *testPlugins) add(name string, k kind) *fake {
	f := &fake{name: name, log: tp.log}
	tp.fakes[name] = f
	tp.reg[name] = func(_ context.Context, args json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
		f.args = args
		return k(f), nil
	}
	return f
}

// basics registers a queue sort and a binder, the minimum a profile needs.
func (tp *testPlugins) basics() {
	tp.add("Sort", sortKind)
	tp.add("Binder", binderKind)
}

// profile returns a profile enabling the basics plus the given plugins at
// the given points.
func profile(sets map[config.ExtensionPoint][]config.Plugin) config.Profile {
	p := config.Profile{SchedulerName: "test"}
	p.Plugins.QueueSort.Enabled = []config.Plugin{{Name: "Sort"}}
	p.Plugins.Bind.Enabled = []config.Plugin{{Name: "Binder"}}
	for point, pls := range sets {
		s := p.Plugins.Set(point)
		s.Enabled = append(s.Enabled, pls...)
	}
	return p
}

func plugins(names ...string) []config.Plugin {
	out := make([]config.Plugin, len(names))
	for i, n := range names {
		out[i] = config.Plugin{Name: n}
	}
	return out
}

func mustNew(t *testing.T, tp *testPlugins, p config.Profile, opts ...runtime.Option) *runtime.Framework {
	t.Helper()
	f, err := runtime.New(context.Background(), tp.reg, p, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

func nodeInfos(names ...string) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(names))
	for i, n := range names {
		out[i] = framework.NewNodeInfo(mt.MakeNode(n).Obj())
	}
	return out
}

func status(code framework.Code, plugin string, reasons ...string) *framework.Status {
	return framework.NewStatus(code, reasons...).WithPlugin(plugin)
}

// statusDiff compares statuses by code, plugin and message.
func statusDiff(want, got *framework.Status) string {
	if want.Code() == got.Code() && want.Plugin() == got.Plugin() && want.Message() == got.Message() {
		return ""
	}
	return "want " + want.String() + "\n got " + got.String()
}

// fakeClock is a TimerClock whose time moves only when Advance is called;
// due timers fire during Advance, on the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Time
	fn      func()
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, fn func()) runtime.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), fn: fn}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// Advance moves time forward and fires the timers that are due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			t.stopped = true
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.fn()
	}
}

// pending returns the number of timers not fired or stopped.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

func podNamed(name string) *model.Pod { return mt.MakePod(name).Obj() }
