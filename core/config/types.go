package config

import (
	"encoding/json"
	"time"

	"github.com/berthsched/berth/core/features"
)

// Config is an effective scheduler configuration: kube's
// KubeSchedulerConfiguration after defaulting, restricted to what Berth
// uses.
type Config struct {
	// Parallelism bounds the goroutines used to filter and score nodes.
	Parallelism int32 `json:"parallelism"`
	// PercentageOfNodesToScore is the global share of nodes to find feasible
	// before filtering stops; 0 means kube's adaptive default, as does nil
	// (not set in the file: callers such as the simulator may pick their
	// own default then). A profile may override it.
	PercentageOfNodesToScore *int32 `json:"percentageOfNodesToScore,omitempty"`
	// PodInitialBackoffSeconds and PodMaxBackoffSeconds bound the backoff
	// of a pod that failed to schedule.
	PodInitialBackoffSeconds int64 `json:"podInitialBackoffSeconds"`
	PodMaxBackoffSeconds     int64 `json:"podMaxBackoffSeconds"`
	// Profiles, each served under its SchedulerName.
	Profiles []Profile `json:"profiles"`
	// FeatureGates are kube's feature gates the scheduler runs with
	// (berthd's --feature-gates); not part of a KubeSchedulerConfiguration.
	FeatureGates features.Gates `json:"-"`
}

// PodInitialBackoff returns PodInitialBackoffSeconds as a duration.
func (c *Config) PodInitialBackoff() time.Duration {
	return time.Duration(c.PodInitialBackoffSeconds) * time.Second
}

// PodMaxBackoff returns PodMaxBackoffSeconds as a duration.
func (c *Config) PodMaxBackoff() time.Duration {
	return time.Duration(c.PodMaxBackoffSeconds) * time.Second
}

// Profile returns the profile serving schedulerName.
func (c *Config) Profile(schedulerName string) (*Profile, bool) {
	for i := range c.Profiles {
		if c.Profiles[i].SchedulerName == schedulerName {
			return &c.Profiles[i], true
		}
	}
	return nil, false
}

// Profile is one scheduling profile: the plugins run for pods whose
// schedulerName is SchedulerName.
type Profile struct {
	SchedulerName string `json:"schedulerName"`
	// PercentageOfNodesToScore overrides the global value when set.
	PercentageOfNodesToScore *int32 `json:"percentageOfNodesToScore,omitempty"`
	// Plugins are the user's plugin sets merged into the default ones.
	Plugins Plugins `json:"plugins"`
	// PluginConfig holds each plugin's args as JSON, defaulted where kube
	// defaults them at load time.
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`
}

// Args returns the raw args configured for the named plugin, nil when none
// are.
func (p *Profile) Args(plugin string) json.RawMessage {
	for _, pc := range p.PluginConfig {
		if pc.Name == plugin {
			return pc.Args
		}
	}
	return nil
}

// EnabledPlugins is the sorted names of the plugins the profile enables at
// any extension point (multiPoint included).
func (p *Profile) EnabledPlugins() []string { return enabledNames(&p.Plugins) }

// PluginConfig is the args of one plugin.
type PluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Plugins lists the plugins enabled and disabled at each extension point.
// MultiPoint enables a plugin at every point it implements.
type Plugins struct {
	PreEnqueue PluginSet `json:"preEnqueue,omitzero"`
	QueueSort  PluginSet `json:"queueSort,omitzero"`
	PreFilter  PluginSet `json:"preFilter,omitzero"`
	Filter     PluginSet `json:"filter,omitzero"`
	PostFilter PluginSet `json:"postFilter,omitzero"`
	PreScore   PluginSet `json:"preScore,omitzero"`
	Score      PluginSet `json:"score,omitzero"`
	Reserve    PluginSet `json:"reserve,omitzero"`
	Permit     PluginSet `json:"permit,omitzero"`
	PreBind    PluginSet `json:"preBind,omitzero"`
	Bind       PluginSet `json:"bind,omitzero"`
	PostBind   PluginSet `json:"postBind,omitzero"`
	MultiPoint PluginSet `json:"multiPoint,omitzero"`
}

// Set returns the plugin set of an extension point (or of MultiPoint).
func (p *Plugins) Set(point ExtensionPoint) *PluginSet {
	switch point {
	case PreEnqueue:
		return &p.PreEnqueue
	case QueueSort:
		return &p.QueueSort
	case PreFilter:
		return &p.PreFilter
	case Filter:
		return &p.Filter
	case PostFilter:
		return &p.PostFilter
	case PreScore:
		return &p.PreScore
	case Score:
		return &p.Score
	case Reserve:
		return &p.Reserve
	case Permit:
		return &p.Permit
	case PreBind:
		return &p.PreBind
	case Bind:
		return &p.Bind
	case PostBind:
		return &p.PostBind
	case MultiPoint:
		return &p.MultiPoint
	}
	panic("config: unknown extension point " + point.String())
}

// PluginSet is the plugins enabled at a point, in order, and the ones
// disabled ("*" disables every default plugin of the point).
type PluginSet struct {
	Enabled  []Plugin `json:"enabled,omitempty"`
	Disabled []Plugin `json:"disabled,omitempty"`
}

// Plugin names a plugin. Weight matters for Score plugins only; 0 means
// unset, which the framework treats as 1.
type Plugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight,omitempty"`
}

// ExtensionPoint names a point of the scheduling framework, or MultiPoint.
type ExtensionPoint int

// The extension points, then MultiPoint.
const (
	PreEnqueue ExtensionPoint = iota
	QueueSort
	PreFilter
	Filter
	PostFilter
	PreScore
	Score
	Reserve
	Permit
	PreBind
	Bind
	PostBind
	MultiPoint
)

var pointNames = [...]string{
	"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
	"score", "reserve", "permit", "preBind", "bind", "postBind", "multiPoint",
}

// String returns the point's field name in a configuration ("preFilter").
func (p ExtensionPoint) String() string {
	if p >= 0 && int(p) < len(pointNames) {
		return pointNames[p]
	}
	return "unknown"
}

// ExtensionPoints returns every extension point, MultiPoint excluded, in
// the order a scheduling attempt meets them.
func ExtensionPoints() []ExtensionPoint {
	return []ExtensionPoint{PreEnqueue, QueueSort, PreFilter, Filter, PostFilter, PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind}
}

// allSets returns every plugin set, MultiPoint first.
func allSets() []ExtensionPoint {
	return append([]ExtensionPoint{MultiPoint}, ExtensionPoints()...)
}
