package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/fieldpath"
)

// The type of document Load reads.
const (
	APIVersion = "kubescheduler.config.k8s.io/v1"
	Kind       = "KubeSchedulerConfiguration"
)

// LoadOption adjusts Load.
type LoadOption func(*loadOptions)

type loadOptions struct {
	extraPlugins map[string]bool
}

// WithPlugins makes Load accept plugin names beyond Berth's own (plugins
// registered by the embedding program).
func WithPlugins(names ...string) LoadOption {
	return func(o *loadOptions) {
		for _, n := range names {
			o.extraPlugins[n] = true
		}
	}
}

// Load decodes a KubeSchedulerConfiguration document (YAML or JSON),
// applies kube-scheduler's v1 defaults and validates the result. Every
// problem found is reported, joined, as *FieldError values naming the
// field; errors.Is tells their kinds (ErrDecode, ErrUnknownPlugin, ...).
func Load(data []byte, opts ...LoadOption) (*Config, error) {
	o := loadOptions{extraPlugins: map[string]bool{}}
	for _, opt := range opts {
		opt(&o)
	}
	in, err := decode(data)
	if err != nil {
		return nil, err
	}
	return build(in, &o)
}

// Default returns kube-scheduler 1.36's default configuration without the
// plugins Berth leaves out: one profile, "default-scheduler".
func Default() *Config {
	cfg, err := build(&configv1.KubeSchedulerConfiguration{}, &loadOptions{})
	if err != nil {
		panic(fmt.Sprintf("config: the default configuration does not validate: %v", err))
	}
	return cfg
}

// decode parses data strictly into the v1 type.
func decode(data []byte) (*configv1.KubeSchedulerConfiguration, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, &FieldError{Kind: ErrDecode, Msg: err.Error()}
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, &FieldError{Kind: ErrDecode, Msg: "empty document"}
	}
	var in configv1.KubeSchedulerConfiguration
	if err := strictUnmarshal(js, &in, ""); err != nil {
		return nil, err
	}
	var errs fieldErrs
	if in.APIVersion != APIVersion {
		errs.add("apiVersion", ErrDecode, "%q: Berth reads %s only", in.APIVersion, APIVersion)
	}
	if in.Kind != Kind {
		errs.add("kind", ErrDecode, "%q: want %s", in.Kind, Kind)
	}
	if len(errs) > 0 {
		return nil, errs.join()
	}
	return &in, nil
}

// strictUnmarshal decodes js into out the way kube-scheduler decodes its
// configuration: case-sensitive field names, unknown and duplicate fields
// are errors. prefix is prepended to field paths.
func strictUnmarshal(js []byte, out any, prefix string) error {
	strict, err := kjson.UnmarshalStrict(js, out)
	if err != nil {
		path := prefix
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			path = fieldpath.Join(prefix, te.Field)
		}
		return &FieldError{Path: path, Kind: ErrDecode, Msg: err.Error()}
	}
	var errs fieldErrs
	for _, e := range strict {
		path := prefix
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			path = fieldpath.Join(prefix, fe.FieldPath())
		}
		errs.add(path, ErrDecode, "%v", e)
	}
	return errs.join()
}

// build checks the user's plugin names and weights, converts, defaults and
// validates.
func build(in *configv1.KubeSchedulerConfiguration, o *loadOptions) (*Config, error) {
	var errs fieldErrs
	checkInput(in, o, &errs)
	if len(errs) > 0 {
		return nil, errs.join()
	}
	cfg := &Config{
		Parallelism:              deref(in.Parallelism, 16),
		PercentageOfNodesToScore: copyPtr(in.PercentageOfNodesToScore),
		PodInitialBackoffSeconds: deref(in.PodInitialBackoffSeconds, 1),
		PodMaxBackoffSeconds:     deref(in.PodMaxBackoffSeconds, 10),
	}
	profiles := in.Profiles
	if len(profiles) == 0 {
		profiles = []configv1.KubeSchedulerProfile{{}}
	}
	for i := range profiles {
		p, err := buildProfile(&profiles[i], len(profiles) == 1, fmt.Sprintf("profiles[%d]", i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Profiles = append(cfg.Profiles, p)
	}
	if len(errs) > 0 {
		return nil, errs.join()
	}
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// buildProfile merges the profile into the defaults and defaults its args.
func buildProfile(in *configv1.KubeSchedulerProfile, only bool, path string) (Profile, error) {
	p := Profile{PercentageOfNodesToScore: in.PercentageOfNodesToScore}
	switch {
	case in.SchedulerName != nil:
		p.SchedulerName = *in.SchedulerName
	case only:
		p.SchedulerName = DefaultSchedulerName
	}
	p.Plugins = mergePlugins(defaultPlugins(), convertPlugins(in.Plugins))
	var errs fieldErrs
	for i, pc := range in.PluginConfig {
		if notImplemented(pc.Name) != "" {
			continue // args of a plugin that cannot be enabled: ignored
		}
		args, err := defaultArgs(pc.Name, pc.Args.Raw, fmt.Sprintf("%s.pluginConfig[%d].args", path, i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.PluginConfig = append(p.PluginConfig, PluginConfig{Name: pc.Name, Args: args})
	}
	appendDefaultArgs(&p)
	return p, errs.join()
}

func convertPlugins(in *configv1.Plugins) *Plugins {
	if in == nil {
		return nil
	}
	out := &Plugins{}
	for _, point := range allSets() {
		src := v1Set(in, point)
		dst := out.Set(point)
		for _, pl := range src.Enabled {
			dst.Enabled = append(dst.Enabled, Plugin{Name: pl.Name, Weight: deref(pl.Weight, 0)})
		}
		for _, pl := range src.Disabled {
			dst.Disabled = append(dst.Disabled, Plugin{Name: pl.Name})
		}
	}
	return out
}

// v1Set returns the v1 plugin set of point.
func v1Set(p *configv1.Plugins, point ExtensionPoint) *configv1.PluginSet {
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

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// copyPtr returns a copy of *v, or nil.
func copyPtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
