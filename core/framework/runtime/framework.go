package runtime

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/volume"
)

// Framework runs the plugins of one profile. It is safe for concurrent use
// once built: the scheduling cycle and the binding cycles of earlier pods
// call it at the same time.
type Framework struct {
	profileName string
	percentage  *int32

	// plugins holds every instantiated plugin by name.
	plugins map[string]framework.Plugin

	preEnqueue []framework.PreEnqueuePlugin
	queueSort  []framework.QueueSortPlugin
	preFilter  []framework.PreFilterPlugin
	filter     []framework.FilterPlugin
	postFilter []framework.PostFilterPlugin
	preScore   []framework.PreScorePlugin
	score      []framework.ScorePlugin
	reserve    []framework.ReservePlugin
	permit     []framework.PermitPlugin
	preBind    []framework.PreBindPlugin
	bind       []framework.BindPlugin
	postBind   []framework.PostBindPlugin

	// scoreWeights is the weight of each plugin in score, by index.
	scoreWeights []int64
	// weights holds the weight of every plugin configured with one at the
	// score point or multiPoint, by name (ListPlugins).
	weights map[string]int64

	enqueueExtensions []framework.EnqueueExtensions

	snapshot     framework.NodeInfoLister
	nominator    framework.PodNominator
	namespaces   framework.NamespaceLister
	pdbs         framework.PDBLister
	decisions    framework.Planner
	clock        framework.Clock
	timers       TimerClock
	logger       *slog.Logger
	parallelizer framework.Parallelizer
	waitingPods  *WaitingPods
	metrics      Metrics
	devices      *dra.Tracker
	volumes      *volume.Tracker
	// deterministic: see WithDeterministic (preemption_extras.go).
	deterministic bool
	// memo numbers pod signatures for the result memo (plan.go).
	memo         *memo
	noResultMemo bool
	noIndexes    bool
	// noPreemptionMemo: see WithoutPreemptionMemo.
	noPreemptionMemo bool
	// noScoreCarry: see WithoutScoreCarry.
	noScoreCarry bool
}

var (
	_ framework.Framework = (*Framework)(nil)
	_ framework.Handle    = (*Framework)(nil)
)

// New instantiates the profile's plugins from registry and checks the
// profile (see the package doc). Plugin factories get the framework as
// their handle while it is being built: they may keep it, but must not run
// extension points from the factory.
func New(ctx context.Context, registry Registry, profile config.Profile, opts ...Option) (*Framework, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	f := &Framework{
		profileName:      profile.SchedulerName,
		percentage:       profile.PercentageOfNodesToScore,
		plugins:          make(map[string]framework.Plugin),
		snapshot:         o.snapshot,
		nominator:        o.nominator,
		namespaces:       o.namespaces,
		pdbs:             o.pdbs,
		decisions:        o.decisions,
		clock:            o.clock,
		logger:           o.logger,
		parallelizer:     o.parallelizer,
		waitingPods:      o.waitingPods,
		metrics:          o.metrics,
		deterministic:    o.deterministic,
		devices:          o.devices,
		volumes:          o.volumes,
		noResultMemo:     o.noResultMemo,
		noIndexes:        o.noIndexes,
		noPreemptionMemo: o.noPreemptionMemo,
		noScoreCarry:     o.noScoreCarry,
	}
	if tc, ok := o.clock.(TimerClock); ok {
		f.timers = tc
	} else {
		f.timers = clockWithRealTimers{o.clock}
	}
	if f.waitingPods == nil {
		f.waitingPods = NewWaitingPods()
	}
	if f.snapshot == nil {
		f.snapshot = &SnapshotRef{}
	}
	if err := f.build(ctx, registry, &profile); err != nil {
		return nil, fmt.Errorf("profile %q: %w", profile.SchedulerName, err)
	}
	return f, nil
}

// build instantiates the plugins and fills the extension points.
func (f *Framework) build(ctx context.Context, registry Registry, profile *config.Profile) error {
	args := make(map[string][]byte, len(profile.PluginConfig))
	for _, pc := range profile.PluginConfig {
		if _, ok := args[pc.Name]; ok {
			return fmt.Errorf("repeated config for plugin %s", pc.Name)
		}
		args[pc.Name] = pc.Args
	}
	for _, name := range neededPlugins(&profile.Plugins) {
		factory, ok := registry[name]
		if !ok {
			return fmt.Errorf("plugin %q is not registered", name)
		}
		p, err := factory(ctx, args[name], f)
		if err != nil {
			return fmt.Errorf("initializing plugin %q: %w", name, err)
		}
		if p.Name() != name {
			return fmt.Errorf("plugin registered as %q calls itself %q", name, p.Name())
		}
		f.plugins[name] = p
		f.addEnqueueExtensions(p)
	}
	resolved, err := resolvePoints(&profile.Plugins, f.plugins)
	if err != nil {
		return err
	}
	for _, point := range config.ExtensionPoints() {
		for _, name := range resolved[point] {
			f.add(point, f.plugins[name])
		}
	}
	if len(f.queueSort) != 1 {
		return fmt.Errorf("only one queue sort plugin required for profile with scheduler name %q, but got %d", profile.SchedulerName, len(f.queueSort))
	}
	if len(f.bind) == 0 {
		return fmt.Errorf("at least one bind plugin is needed for profile with scheduler name %q", profile.SchedulerName)
	}
	if f.weights, err = scoreWeights(&profile.Plugins, f.plugins); err != nil {
		return fmt.Errorf("score plugins: %w", err)
	}
	f.scoreWeights = make([]int64, len(f.score))
	for i, pl := range f.score {
		f.scoreWeights[i] = f.weights[pl.Name()]
	}
	f.memo = newMemo(f.filter, f.score, !f.noResultMemo)
	return nil
}

// neededPlugins returns every plugin enabled at some point, in order of
// first appearance (extension points, then multiPoint).
func neededPlugins(p *config.Plugins) []string {
	seen := make(map[string]bool)
	var out []string
	for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
		for _, pl := range p.Set(point).Enabled {
			if !seen[pl.Name] {
				seen[pl.Name] = true
				out = append(out, pl.Name)
			}
		}
	}
	return out
}

// add appends p to the plugins of point; resolvePoints checked that p
// implements it.
func (f *Framework) add(point config.ExtensionPoint, p framework.Plugin) {
	switch point {
	case config.PreEnqueue:
		f.preEnqueue = append(f.preEnqueue, p.(framework.PreEnqueuePlugin))
	case config.QueueSort:
		f.queueSort = append(f.queueSort, p.(framework.QueueSortPlugin))
	case config.PreFilter:
		f.preFilter = append(f.preFilter, p.(framework.PreFilterPlugin))
	case config.Filter:
		f.filter = append(f.filter, p.(framework.FilterPlugin))
	case config.PostFilter:
		f.postFilter = append(f.postFilter, p.(framework.PostFilterPlugin))
	case config.PreScore:
		f.preScore = append(f.preScore, p.(framework.PreScorePlugin))
	case config.Score:
		f.score = append(f.score, p.(framework.ScorePlugin))
	case config.Reserve:
		f.reserve = append(f.reserve, p.(framework.ReservePlugin))
	case config.Permit:
		f.permit = append(f.permit, p.(framework.PermitPlugin))
	case config.PreBind:
		f.preBind = append(f.preBind, p.(framework.PreBindPlugin))
	case config.Bind:
		f.bind = append(f.bind, p.(framework.BindPlugin))
	case config.PostBind:
		f.postBind = append(f.postBind, p.(framework.PostBindPlugin))
	}
}

// ListPlugins returns the plugins run at each extension point after
// multiPoint expansion, in order, with the weights of Score plugins.
func (f *Framework) ListPlugins() config.Plugins {
	var out config.Plugins
	add := func(point config.ExtensionPoint, p framework.Plugin) {
		pl := config.Plugin{Name: p.Name()}
		if point == config.Score {
			pl.Weight = int32(f.weights[p.Name()])
		}
		set := out.Set(point)
		set.Enabled = append(set.Enabled, pl)
	}
	for _, p := range f.preEnqueue {
		add(config.PreEnqueue, p)
	}
	for _, p := range f.queueSort {
		add(config.QueueSort, p)
	}
	for _, p := range f.preFilter {
		add(config.PreFilter, p)
	}
	for _, p := range f.filter {
		add(config.Filter, p)
	}
	for _, p := range f.postFilter {
		add(config.PostFilter, p)
	}
	for _, p := range f.preScore {
		add(config.PreScore, p)
	}
	for _, p := range f.score {
		add(config.Score, p)
	}
	for _, p := range f.reserve {
		add(config.Reserve, p)
	}
	for _, p := range f.permit {
		add(config.Permit, p)
	}
	for _, p := range f.preBind {
		add(config.PreBind, p)
	}
	for _, p := range f.bind {
		add(config.Bind, p)
	}
	for _, p := range f.postBind {
		add(config.PostBind, p)
	}
	return out
}

// Plugin returns the instantiated plugin of that name.
func (f *Framework) Plugin(name string) (framework.Plugin, bool) {
	p, ok := f.plugins[name]
	return p, ok
}

// QueueSortFunc returns the Less of the profile's QueueSort plugin.
func (f *Framework) QueueSortFunc() framework.LessFunc { return f.queueSort[0].Less }

// PreEnqueuePlugins returns the PreEnqueue plugins in order.
func (f *Framework) PreEnqueuePlugins() []framework.PreEnqueuePlugin { return f.preEnqueue }

// HasFilterPlugins reports whether any Filter plugin is enabled.
func (f *Framework) HasFilterPlugins() bool { return len(f.filter) > 0 }

// HasPostFilterPlugins reports whether any PostFilter plugin is enabled.
func (f *Framework) HasPostFilterPlugins() bool { return len(f.postFilter) > 0 }

// HasScorePlugins reports whether any Score plugin is enabled.
func (f *Framework) HasScorePlugins() bool { return len(f.score) > 0 }

// PercentageOfNodesToScore is the profile's override, nil when unset.
func (f *Framework) PercentageOfNodesToScore() *int32 { return f.percentage }

// ProfileName returns the schedulerName the framework serves.
func (f *Framework) ProfileName() string { return f.profileName }

// IncrementalIndexes reports whether plugins may keep indexes updated by
// deltas (see WithoutIncrementalIndexes).
func (f *Framework) IncrementalIndexes() bool { return !f.noIndexes }

// Devices returns the DRA state given WithDevices (framework.Handle).
func (f *Framework) Devices() *dra.Tracker { return f.devices }

// Volumes returns the storage state (WithVolumes).
func (f *Framework) Volumes() *volume.Tracker { return f.volumes }

// SnapshotSharedLister returns the snapshot lister.
func (f *Framework) SnapshotSharedLister() framework.NodeInfoLister { return f.snapshot }

// Namespaces returns the namespace lister (nil when none was injected).
func (f *Framework) Namespaces() framework.NamespaceLister { return f.namespaces }

// PodNominator returns the nominator (nil when none was injected).
func (f *Framework) PodNominator() framework.PodNominator { return f.nominator }

// PDBs returns the disruption budget lister (nil when none was injected).
func (f *Framework) PDBs() framework.PDBLister { return f.pdbs }

// Decisions returns the decision sink (nil when none was injected).
func (f *Framework) Decisions() framework.Planner { return f.decisions }

// Parallelizer returns the parallelizer plugins should use.
func (f *Framework) Parallelizer() framework.Parallelizer { return f.parallelizer }

// Clock returns the time source.
func (f *Framework) Clock() framework.Clock { return f.clock }

// Logger returns the logger.
func (f *Framework) Logger() *slog.Logger { return f.logger }
