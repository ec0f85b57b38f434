package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berthsched/berth/core/fieldpath"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
)

// DefaultSchedulerName is the name of the only profile of a configuration
// that names none.
const DefaultSchedulerName = model.DefaultSchedulerName

// defaultPlugins returns kube-scheduler 1.37's default plugins in kube's
// order (apis/config/v1/default_plugins.go, with the feature gates at
// their 1.37 defaults: NodeName before NodeUnschedulable, DynamicResources
// before DefaultPreemption, no GangScheduling while GenericWorkload is
// off), minus the plugin Berth leaves out: NodeDeclaredFeatures (last).
func defaultPlugins() Plugins {
	return Plugins{MultiPoint: PluginSet{Enabled: []Plugin{
		{Name: names.SchedulingGates},
		{Name: names.PrioritySort},
		{Name: names.NodeName},
		{Name: names.NodeUnschedulable},
		{Name: names.TaintToleration, Weight: 3},
		{Name: names.NodeAffinity, Weight: 2},
		{Name: names.NodePorts},
		{Name: names.NodeResourcesFit, Weight: 1},
		{Name: names.VolumeRestrictions},
		{Name: names.NodeVolumeLimits},
		{Name: names.VolumeBinding},
		{Name: names.VolumeZone},
		{Name: names.PodTopologySpread, Weight: 2},
		{Name: names.InterPodAffinity, Weight: 2},
		{Name: names.DynamicResources, Weight: 2},
		{Name: names.DefaultPreemption},
		{Name: names.NodeResourcesBalancedAllocation, Weight: 1},
		{Name: names.ImageLocality, Weight: 1},
		{Name: names.DefaultBinder},
	}}}
}

// mergePlugins merges the user's plugin sets into the defaults point by
// point, as kube does.
func mergePlugins(def Plugins, custom *Plugins) Plugins {
	if custom == nil {
		return def
	}
	for _, point := range allSets() {
		*def.Set(point) = mergePluginSet(*def.Set(point), *custom.Set(point))
	}
	return def
}

// mergePluginSet is kube's rule: the default plugins stay in their order
// unless disabled (all of them with "*"); a default plugin the user enables
// again is replaced in place by the user's entry (new weight); the user's
// other plugins follow in the user's order. Disabled lists are kept, the
// user's first: the runtime reads them when it expands multiPoint.
func mergePluginSet(def, custom PluginSet) PluginSet {
	disabled := make(map[string]bool)
	var out PluginSet
	for _, pl := range append(slices.Clone(custom.Disabled), def.Disabled...) {
		out.Disabled = append(out.Disabled, Plugin{Name: pl.Name})
		disabled[pl.Name] = true
	}
	customIndex := make(map[string]int, len(custom.Enabled))
	for i, pl := range custom.Enabled {
		customIndex[pl.Name] = i
	}
	replaced := make(map[int]bool)
	if !disabled["*"] {
		for _, pl := range def.Enabled {
			if disabled[pl.Name] {
				continue
			}
			if i, ok := customIndex[pl.Name]; ok {
				pl = custom.Enabled[i]
				replaced[i] = true
			}
			out.Enabled = append(out.Enabled, pl)
		}
	}
	for i, pl := range custom.Enabled {
		if !replaced[i] {
			out.Enabled = append(out.Enabled, pl)
		}
	}
	return out
}

// defaultArgs decodes the args of a plugin whose args kube defaults at load
// time, applies kube's v1 defaults and encodes them again. Other plugins'
// args are returned as given. path names the args in errors.
func defaultArgs(name string, raw []byte, path string) (json.RawMessage, error) {
	switch name {
	case names.DefaultPreemption:
		return defaulted(name, raw, path, func(a *configv1.DefaultPreemptionArgs) {
			if a.MinCandidateNodesPercentage == nil {
				a.MinCandidateNodesPercentage = ptr[int32](10)
			}
			if a.MinCandidateNodesAbsolute == nil {
				a.MinCandidateNodesAbsolute = ptr[int32](100)
			}
		})
	case names.DynamicResources:
		return defaulted(name, raw, path, func(a *configv1.DynamicResourcesArgs) {
			// DRASchedulerFilterTimeout, DRADeviceBindingConditions and
			// DRAResourceClaimDeviceStatus are on in 1.36.
			if a.FilterTimeout == nil {
				a.FilterTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesFilterTimeoutDefault}
			}
			if a.BindingTimeout == nil {
				a.BindingTimeout = &metav1.Duration{Duration: configv1.DynamicResourcesBindingTimeoutDefault}
			}
		})
	case names.InterPodAffinity:
		return defaulted(name, raw, path, func(a *configv1.InterPodAffinityArgs) {
			if a.HardPodAffinityWeight == nil {
				a.HardPodAffinityWeight = ptr[int32](1)
			}
		})
	case names.NodeAffinity:
		return defaulted(name, raw, path, func(*configv1.NodeAffinityArgs) {})
	case names.VolumeBinding:
		return defaulted(name, raw, path, func(a *configv1.VolumeBindingArgs) {
			if a.BindTimeoutSeconds == nil {
				a.BindTimeoutSeconds = ptr[int64](600)
			}
			// StorageCapacityScoring is beta and on in 1.37.
			if len(a.Shape) == 0 {
				a.Shape = []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}
			}
		})
	case names.NodeResourcesBalancedAllocation:
		return defaulted(name, raw, path, func(a *configv1.NodeResourcesBalancedAllocationArgs) {
			if len(a.Resources) == 0 {
				a.Resources = defaultResources()
			}
			setUnitWeights(a.Resources)
		})
	case names.NodeResourcesFit:
		return defaulted(name, raw, path, func(a *configv1.NodeResourcesFitArgs) {
			if a.ScoringStrategy == nil {
				a.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated}
			}
			if len(a.ScoringStrategy.Resources) == 0 {
				a.ScoringStrategy.Resources = defaultResources()
			}
			setUnitWeights(a.ScoringStrategy.Resources)
		})
	case names.PodTopologySpread:
		out, err := defaulted(name, raw, path, func(a *configv1.PodTopologySpreadArgs) {
			if a.DefaultingType == "" {
				a.DefaultingType = configv1.SystemDefaulting
			}
		})
		if err != nil {
			return nil, err
		}
		return out, checkSpreadArgs(out, path)
	}
	if isNull(raw) {
		return nil, nil
	}
	return json.RawMessage(bytes.Clone(raw)), nil
}

// hasDefaultArgs reports whether kube gives the plugin default args at load
// time when the profile configures none.
func hasDefaultArgs(name string) bool {
	switch name {
	case names.DefaultPreemption, names.DynamicResources, names.InterPodAffinity, names.NodeAffinity,
		names.NodeResourcesBalancedAllocation, names.NodeResourcesFit, names.PodTopologySpread, names.VolumeBinding:
		return true
	}
	return false
}

// appendDefaultArgs adds default args, in name order, for every enabled
// plugin that has args and no pluginConfig entry, as kube does.
func appendDefaultArgs(p *Profile) {
	have := make(map[string]bool, len(p.PluginConfig))
	for _, pc := range p.PluginConfig {
		have[pc.Name] = true
	}
	for _, name := range enabledNames(&p.Plugins) {
		if have[name] || !hasDefaultArgs(name) {
			continue
		}
		args, err := defaultArgs(name, nil, "")
		if err != nil {
			panic(fmt.Sprintf("config: default args of %s: %v", name, err))
		}
		p.PluginConfig = append(p.PluginConfig, PluginConfig{Name: name, Args: args})
	}
}

// enabledNames returns the sorted names enabled at any point.
func enabledNames(p *Plugins) []string {
	seen := make(map[string]bool)
	var out []string
	for _, point := range allSets() {
		for _, pl := range p.Set(point).Enabled {
			if !seen[pl.Name] {
				seen[pl.Name] = true
				out = append(out, pl.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// defaulted decodes raw strictly into T (nil or null: the zero value),
// checks apiVersion and kind when given, applies set and encodes the result
// without apiVersion and kind.
func defaulted[T any, PT interface {
	*T
	schema.ObjectKind
}](name string, raw []byte, path string, set func(PT)) (json.RawMessage, error) {
	args := PT(new(T))
	if !isNull(raw) {
		if err := strictUnmarshal(raw, args, path); err != nil {
			return nil, err
		}
		gvk := args.GroupVersionKind()
		var errs fieldErrs
		if gvk.Kind != "" && gvk.Kind != name+"Args" {
			errs.add(fieldpath.Join(path, "kind"), ErrDecode, "args for plugin %s were not of type %sArgs, got %s", name, name, gvk.Kind)
		}
		if gv := gvk.GroupVersion().String(); gv != "" && gv != APIVersion {
			errs.add(fieldpath.Join(path, "apiVersion"), ErrDecode, "%q: want %s", gv, APIVersion)
		}
		if len(errs) > 0 {
			return nil, errs.join()
		}
		args.SetGroupVersionKind(schema.GroupVersionKind{})
	}
	set(args)
	out, err := json.Marshal(args)
	if err != nil {
		return nil, &FieldError{Path: path, Kind: ErrDecode, Msg: err.Error()}
	}
	return out, nil
}

func defaultResources() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{{Name: model.ResourceCPU, Weight: 1}, {Name: model.ResourceMemory, Weight: 1}}
}

// setUnitWeights gives weight 1 to resources that have none, as kube does.
func setUnitWeights(rs []configv1.ResourceSpec) {
	for i := range rs {
		if rs[i].Weight == 0 {
			rs[i].Weight = 1
		}
	}
}

func isNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func ptr[T any](v T) *T { return &v }

// checkSpreadArgs refuses at load what the PodTopologySpread plugin's own
// args validation (kube's) refuses at its start, so that the field is
// named in the file (found by FuzzLoad).
func checkSpreadArgs(args json.RawMessage, path string) error {
	_, err := podtopologyspread.DecodeArgs(args)
	var ae *helper.ArgsError
	if errors.As(err, &ae) {
		return &FieldError{Path: fieldpath.Join(path, ae.Field), Kind: ErrInvalid, Msg: ae.Err.Error()}
	}
	return err
}
