package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
)

func TestRegistry(t *testing.T) {
	factory := func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) { return nil, nil }
	r := runtime.Registry{}
	if err := r.Register("A", factory); err != nil {
		t.Fatalf("Register(A): %v", err)
	}
	if err := r.Register("A", factory); err == nil || !strings.Contains(err.Error(), `"A" is registered already`) {
		t.Errorf("Register(A) again = %v, want a duplicate error", err)
	}
	if err := r.Merge(runtime.Registry{"B": factory, "A": factory}); err == nil {
		t.Error("Merge with a duplicate succeeded")
	}
	if _, ok := r["B"]; ok {
		t.Error("a failed Merge added B")
	}
	if err := r.Merge(runtime.Registry{"B": factory, "C": factory}); err != nil {
		t.Errorf("Merge: %v", err)
	}
	if len(r) != 3 {
		t.Errorf("len = %d, want 3", len(r))
	}
	if err := r.Unregister("B"); err != nil {
		t.Errorf("Unregister(B): %v", err)
	}
	if err := r.Unregister("B"); err == nil {
		t.Error("Unregister(B) twice succeeded")
	}
}

func TestNewInvariants(t *testing.T) {
	tests := []struct {
		name    string
		profile func() config.Profile
		want    string // substring of the error; "" means success
	}{
		{
			name:    "minimal profile",
			profile: func() config.Profile { return profile(nil) },
		},
		{
			name: "no queue sort",
			profile: func() config.Profile {
				p := profile(nil)
				p.Plugins.QueueSort.Enabled = nil
				return p
			},
			want: `only one queue sort plugin required for profile with scheduler name "test", but got 0`,
		},
		{
			name: "two queue sorts",
			profile: func() config.Profile {
				p := profile(nil)
				p.Plugins.QueueSort.Enabled = plugins("Sort", "Sort2")
				return p
			},
			want: "but got 2",
		},
		{
			name: "no bind",
			profile: func() config.Profile {
				p := profile(nil)
				p.Plugins.Bind.Enabled = nil
				return p
			},
			want: `at least one bind plugin is needed for profile with scheduler name "test"`,
		},
		{
			name: "plugin at a point it does not implement",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Score: plugins("Filter")})
			},
			want: `plugin "Filter" does not extend ScorePlugin plugin`,
		},
		{
			name: "unregistered plugin",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins("Nope")})
			},
			want: `profile "test": plugin "Nope" is not registered`,
		},
		{
			name: "unregistered plugin under multiPoint",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.MultiPoint: plugins("Nope")})
			},
			want: `plugin "Nope" is not registered`,
		},
		{
			name: "plugin twice at a point",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins("Filter", "Filter")})
			},
			want: `plugin "Filter" already registered as "FilterPlugin"`,
		},
		{
			name: "plugin twice under multiPoint",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.MultiPoint: plugins("Filter", "Filter")})
			},
			want: `plugin "Filter" already registered as "FilterPlugin"`,
		},
		{
			name: "negative weight",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Score: {{Name: "Score", Weight: -1}}})
			},
			want: `score plugins: plugin "Score": weight -1 is negative`,
		},
		{
			name: "repeated plugin config",
			profile: func() config.Profile {
				p := profile(nil)
				p.PluginConfig = []config.PluginConfig{{Name: "Sort"}, {Name: "Sort"}}
				return p
			},
			want: "repeated config for plugin Sort",
		},
		{
			name: "factory error",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins("Broken")})
			},
			want: `initializing plugin "Broken": bad args`,
		},
		{
			name: "plugin reporting another name",
			profile: func() config.Profile {
				return profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins("Liar")})
			},
			want: `plugin registered as "Liar" calls itself "Honest"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			tp.add("Sort2", sortKind)
			tp.add("Filter", filterKind)
			tp.add("Score", scoreKind)
			tp.reg["Broken"] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
				return nil, errors.New("bad args")
			}
			tp.reg["Liar"] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
				return filterKind(&fake{name: "Honest"}), nil
			}
			_, err := runtime.New(context.Background(), tp.reg, tc.profile())
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("New error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestNewPassesArgsAndHandle(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	var handle framework.Handle
	tp.reg["Filter"] = func(_ context.Context, args json.RawMessage, h framework.Handle) (framework.Plugin, error) {
		handle = h
		tp.fakes["Filter"] = &fake{name: "Filter", args: args}
		return filterKind(tp.fakes["Filter"]), nil
	}
	p := profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins("Filter")})
	p.PluginConfig = []config.PluginConfig{{Name: "Filter", Args: json.RawMessage(`{"x":1}`)}, {Name: "Unused", Args: json.RawMessage(`{}`)}}
	f := mustNew(t, tp, p)
	if got := string(tp.fakes["Filter"].args); got != `{"x":1}` {
		t.Errorf("Filter args = %s", got)
	}
	if tp.fakes["Binder"].args != nil {
		t.Errorf("Binder args = %s, want nil", tp.fakes["Binder"].args)
	}
	if handle != framework.Handle(f) {
		t.Error("the factory did not get the framework as its handle")
	}
	if got, ok := f.Plugin("Filter"); !ok || got.Name() != "Filter" {
		t.Errorf("Plugin(Filter) = %v, %v", got, ok)
	}
	if f.ProfileName() != "test" || f.PercentageOfNodesToScore() != nil {
		t.Errorf("profile name %q, percentage %v", f.ProfileName(), f.PercentageOfNodesToScore())
	}
}

// TestDefaultProfileExpansion expands kube's default profile (Berth's
// subset) with fakes that implement the same points as the real plugins,
// and checks the per-point lists kube 1.36 produces.
func TestDefaultProfileExpansion(t *testing.T) {
	tests := []struct {
		name   string
		config string // plugins section of a KubeSchedulerConfiguration profile
		want   map[config.ExtensionPoint][]config.Plugin
	}{
		{
			name: "default",
			want: map[config.ExtensionPoint][]config.Plugin{
				config.PreEnqueue: plugins("SchedulingGates", "DynamicResources", "DefaultPreemption"),
				config.QueueSort:  plugins("PrioritySort"),
				config.PreFilter:  plugins("NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
				config.Filter:     plugins("NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
				config.PostFilter: plugins("DynamicResources", "DefaultPreemption"),
				config.PreScore:   plugins("TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"),
				config.Score: {
					{Name: "TaintToleration", Weight: 3}, {Name: "NodeAffinity", Weight: 2}, {Name: "NodeResourcesFit", Weight: 1},
					{Name: "VolumeBinding", Weight: 1}, {Name: "PodTopologySpread", Weight: 2}, {Name: "InterPodAffinity", Weight: 2}, {Name: "DynamicResources", Weight: 2},
					{Name: "NodeResourcesBalancedAllocation", Weight: 1}, {Name: "ImageLocality", Weight: 1},
				},
				config.Reserve: plugins("VolumeBinding", "DynamicResources"),
				config.PreBind: plugins("DynamicResources"),
				config.Bind:    plugins("DefaultBinder"),
			},
		},
		{
			name: "point overrides and disables",
			config: `
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
      disabled:
      - name: NodeResourcesBalancedAllocation
    score:
      enabled:
      - name: InterPodAffinity
        weight: 7
      disabled:
      - name: TaintToleration
    filter:
      enabled:
      - name: NodeName
    preScore:
      disabled:
      - name: "*"
`,
			want: map[config.ExtensionPoint][]config.Plugin{
				config.PreEnqueue: plugins("SchedulingGates", "DynamicResources", "DefaultPreemption"),
				config.QueueSort:  plugins("PrioritySort"),
				config.PreFilter:  plugins("NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
				// NodeName is named at the point: it comes first, with the point's settings.
				config.Filter:     plugins("NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
				config.PostFilter: plugins("DynamicResources", "DefaultPreemption"),
				// InterPodAffinity is named at score: first, weight 7.
				config.Score: {
					{Name: "InterPodAffinity", Weight: 7}, {Name: "NodeAffinity", Weight: 2}, {Name: "NodeResourcesFit", Weight: 5},
					{Name: "VolumeBinding", Weight: 1}, {Name: "PodTopologySpread", Weight: 2}, {Name: "DynamicResources", Weight: 2},
					{Name: "ImageLocality", Weight: 1},
				},
				config.Reserve: plugins("VolumeBinding", "DynamicResources"),
				config.PreBind: plugins("DynamicResources"),
				config.Bind:    plugins("DefaultBinder"),
			},
		},
		{
			name: "all disabled, point by point",
			config: `
    multiPoint:
      disabled:
      - name: "*"
    queueSort:
      enabled:
      - name: PrioritySort
    filter:
      enabled:
      - name: NodeResourcesFit
      - name: NodeName
    score:
      enabled:
      - name: NodeResourcesFit
    bind:
      enabled:
      - name: DefaultBinder
`,
			want: map[config.ExtensionPoint][]config.Plugin{
				config.QueueSort: plugins("PrioritySort"),
				config.Filter:    plugins("NodeResourcesFit", "NodeName"),
				config.Score:     {{Name: "NodeResourcesFit", Weight: 1}},
				config.Bind:      plugins("DefaultBinder"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
			if tc.config != "" {
				doc += "profiles:\n- plugins:" + tc.config
			}
			cfg, err := config.Load([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			f := mustNew(t, defaultLikePlugins(), cfg.Profiles[0])
			got := f.ListPlugins()
			var want config.Plugins
			for point, pls := range tc.want {
				want.Set(point).Enabled = pls
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ListPlugins (-want +got):\n%s", diff)
			}
		})
	}
}

// defaultLikePlugins registers fakes named and shaped like Berth's
// default plugins.
func defaultLikePlugins() *testPlugins {
	tp := newTestPlugins()
	tp.add("SchedulingGates", gateKind)
	tp.add("PrioritySort", sortKind)
	tp.add("NodeName", filterKind)
	tp.add("NodeUnschedulable", filterKind)
	tp.add("TaintToleration", filterScoreKind)
	tp.add("NodeAffinity", fullFilterScoreKind)
	tp.add("NodePorts", preFilterKind)
	tp.add("NodeResourcesFit", fullFilterScoreKind)
	tp.add("VolumeRestrictions", preFilterKind)
	tp.add("NodeVolumeLimits", preFilterKind)
	tp.add("VolumeBinding", volumeBindingKind)
	tp.add("VolumeZone", preFilterKind)
	tp.add("PodTopologySpread", fullFilterScoreKind)
	tp.add("InterPodAffinity", fullFilterScoreKind)
	tp.add("DynamicResources", draKind)
	tp.add("DefaultPreemption", preemptKind)
	tp.add("NodeResourcesBalancedAllocation", scoreKind)
	tp.add("ImageLocality", scoreKind)
	tp.add("DefaultBinder", binderKind)
	return tp
}

func TestScoreWeights(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	tp.add("A", scoreKind)
	tp.add("B", scoreKind)
	tp.add("C", scoreKind)
	p := profile(map[config.ExtensionPoint][]config.Plugin{
		config.Score:      {{Name: "A", Weight: 4}, {Name: "B"}},
		config.MultiPoint: {{Name: "A", Weight: 9}, {Name: "C", Weight: 6}},
	})
	f := mustNew(t, tp, p)
	want := []config.Plugin{{Name: "A", Weight: 4}, {Name: "C", Weight: 6}, {Name: "B", Weight: 1}}
	if diff := cmp.Diff(want, f.ListPlugins().Score.Enabled); diff != "" {
		t.Errorf("score plugins (-want +got):\n%s", diff)
	}
}

func TestCheckTotalScore(t *testing.T) {
	const max = framework.MaxTotalScore / framework.MaxNodeScore
	tests := []struct {
		name    string
		weights []int64
		wantErr bool
	}{
		{name: "default weights", weights: []int64{3, 2, 1, 2, 2, 1}},
		{name: "largest single weight", weights: []int64{max}},
		{name: "largest single weight plus one", weights: []int64{max + 1}, wantErr: true},
		{name: "sum at the limit", weights: []int64{max - 5, 5}},
		{name: "sum over the limit", weights: []int64{max - 5, 6}, wantErr: true},
		{name: "int32 weights never overflow", weights: []int64{1<<31 - 1, 1<<31 - 1, 1<<31 - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := runtime.CheckTotalScore(tc.weights)
			if (err != nil) != tc.wantErr {
				t.Fatalf("CheckTotalScore(%v) = %v, want error %v", tc.weights, err, tc.wantErr)
			}
			if err != nil && err.Error() != "total score of Score plugins could overflow" {
				t.Errorf("message = %q", err)
			}
		})
	}
}

func TestEnqueueExtensions(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	gate := tp.add("Gate", gateKind)
	gate.events = []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdate}}}
	tp.add("Filter", filterKind)
	tp.add("Score", scoreKind)
	f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{
		config.PreEnqueue: plugins("Gate"),
		config.Filter:     plugins("Filter"),
		config.Score:      plugins("Score"),
	}))
	got := map[string][]framework.ClusterEvent{}
	for _, ext := range f.EnqueueExtensions() {
		evs, err := ext.EventsToRegister(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			got[ext.Name()] = append(got[ext.Name()], e.Event)
		}
	}
	want := map[string][]framework.ClusterEvent{
		"Gate":   {{Resource: framework.EventPod, ActionType: framework.ActionUpdate}},
		"Filter": {{Resource: framework.EventWildCard, ActionType: framework.ActionAll, Label: "WildCard"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if n := len(f.PreEnqueuePlugins()); n != 1 {
		t.Errorf("PreEnqueuePlugins = %d, want 1", n)
	}
}

func TestHandleAccessors(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	clock := newFakeClock()
	snap := &runtime.SnapshotRef{}
	f := mustNew(t, tp, profile(nil), runtime.WithClock(clock), runtime.WithSnapshotLister(snap), runtime.WithParallelism(3))
	if f.Clock() != framework.Clock(clock) || f.SnapshotSharedLister() != framework.NodeInfoLister(snap) {
		t.Error("injected clock or lister not returned")
	}
	if f.Parallelizer().Parallelism != 3 {
		t.Errorf("parallelism = %d", f.Parallelizer().Parallelism)
	}
	if f.Logger() == nil {
		t.Error("nil default logger")
	}
	if f.HasFilterPlugins() || f.HasPostFilterPlugins() || f.HasScorePlugins() {
		t.Error("Has*Plugins true on a minimal profile")
	}
	a, b := &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(podNamed("a"))}, &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(podNamed("b"))}
	if !f.QueueSortFunc()(a, b) || f.QueueSortFunc()(b, a) {
		t.Error("QueueSortFunc is not the queue sort plugin's Less")
	}
}
