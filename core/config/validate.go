package config

import (
	"bytes"
	"fmt"
	"slices"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berthsched/berth/core/plugins/names"
)

// implemented reports whether Berth has a plugin of that name.
func implemented(name string) bool {
	switch name {
	case names.PrioritySort, names.SchedulingGates, names.NodeUnschedulable, names.NodeName,
		names.TaintToleration, names.NodeAffinity, names.NodePorts, names.NodeResourcesFit,
		names.NodeResourcesBalancedAllocation, names.PodTopologySpread, names.InterPodAffinity,
		names.DefaultPreemption, names.DefaultBinder, names.DynamicResources, names.VolumeBinding,
		names.ImageLocality, names.VolumeZone, names.NodeVolumeLimits, names.VolumeRestrictions:
		return true
	}
	return false
}

// notImplemented says why Berth leaves out a kube-scheduler plugin, "" for
// any other name.
func notImplemented(name string) string {
	const suffix = ", which Berth does not model"
	switch name {
	case names.NodeDeclaredFeatures:
		return "it matches the features a kubelet declares in the Node status" + suffix
	case names.GangScheduling, "TopologyPlacementGenerator", "PodGroupPodsCount":
		return "it schedules Kubernetes Workload pod groups (alpha in kube 1.36)" + suffix
	}
	return ""
}

// checkInput checks what the user wrote, before defaulting, so that paths
// point into the user's document: plugin names, weights, pluginConfig
// names, and the kube features Berth rejects.
func checkInput(in *configv1.KubeSchedulerConfiguration, o *loadOptions, errs *fieldErrs) {
	if len(in.Extenders) > 0 {
		errs.add("extenders", ErrNotImplemented, "scheduler extenders (HTTP webhooks) are not supported; write a plugin instead")
	}
	for i := range in.Profiles {
		prof := &in.Profiles[i]
		path := fmt.Sprintf("profiles[%d]", i)
		if prof.Plugins != nil {
			checkPlugins(prof.Plugins, path+".plugins", o, errs)
		}
		seen := make(map[string]int)
		for j, pc := range prof.PluginConfig {
			pcPath := fmt.Sprintf("%s.pluginConfig[%d]", path, j)
			if first, ok := seen[pc.Name]; ok {
				errs.add(pcPath+".name", ErrDuplicate, "%q is configured by %s.pluginConfig[%d] already", pc.Name, path, first)
				continue
			}
			seen[pc.Name] = j
			if !implemented(pc.Name) && notImplemented(pc.Name) == "" && !o.extraPlugins[pc.Name] {
				errs.add(pcPath+".name", ErrUnknownPlugin, "%q", pc.Name)
			}
		}
	}
}

func checkPlugins(p *configv1.Plugins, path string, o *loadOptions, errs *fieldErrs) {
	if len(p.PlacementGenerate.Enabled)+len(p.PlacementScore.Enabled) > 0 {
		errs.add(path, ErrNotImplemented, "placementGenerate and placementScore (workload-aware scheduling, alpha in kube 1.36) are not supported")
	}
	for _, point := range allSets() {
		set := v1Set(p, point)
		setPath := path + "." + point.String()
		for i, pl := range set.Enabled {
			plPath := fmt.Sprintf("%s.enabled[%d]", setPath, i)
			switch {
			case implemented(pl.Name) || o.extraPlugins[pl.Name]:
			case notImplemented(pl.Name) != "":
				errs.add(plPath, ErrNotImplemented, "plugin %q: %s", pl.Name, notImplemented(pl.Name))
			default:
				errs.add(plPath, ErrUnknownPlugin, "%q", pl.Name)
			}
			if pl.Weight != nil && *pl.Weight < 0 {
				errs.add(plPath+".weight", ErrInvalid, "%d: a score weight must be positive (0 or unset means 1)", *pl.Weight)
			}
		}
		for i, pl := range set.Disabled {
			if pl.Name == "*" || implemented(pl.Name) || notImplemented(pl.Name) != "" || o.extraPlugins[pl.Name] {
				continue
			}
			errs.add(fmt.Sprintf("%s.disabled[%d]", setPath, i), ErrUnknownPlugin, "%q", pl.Name)
		}
	}
}

// Validate checks an effective configuration as kube-scheduler validates
// its own: parallelism, profile names, percentages, backoff bounds, and one
// queue sort shared by all profiles. Load calls it; callers that build or
// change a Config themselves may too.
func Validate(c *Config) error {
	var errs fieldErrs
	if c.Parallelism <= 0 {
		errs.add("parallelism", ErrInvalid, "%d: should be an integer value greater than zero", c.Parallelism)
	}
	checkPercentage("percentageOfNodesToScore", c.PercentageOfNodesToScore, &errs)
	if c.PodInitialBackoffSeconds <= 0 {
		errs.add("podInitialBackoffSeconds", ErrInvalid, "%d: must be greater than 0", c.PodInitialBackoffSeconds)
	}
	if c.PodMaxBackoffSeconds < c.PodInitialBackoffSeconds {
		errs.add("podMaxBackoffSeconds", ErrInvalid, "%d: must be greater than or equal to podInitialBackoffSeconds", c.PodMaxBackoffSeconds)
	}
	if len(c.Profiles) == 0 {
		errs.add("profiles", ErrRequired, "at least one profile")
	}
	byName := make(map[string]int, len(c.Profiles))
	for i := range c.Profiles {
		p := &c.Profiles[i]
		path := fmt.Sprintf("profiles[%d]", i)
		if p.SchedulerName == "" {
			errs.add(path+".schedulerName", ErrRequired, "must not be empty")
		} else if first, ok := byName[p.SchedulerName]; ok {
			errs.add(path+".schedulerName", ErrDuplicate, "%q is the name of profiles[%d] already", p.SchedulerName, first)
		} else {
			byName[p.SchedulerName] = i
		}
		checkPercentage(path+".percentageOfNodesToScore", p.PercentageOfNodesToScore, &errs)
		seen := make(map[string]bool, len(p.PluginConfig))
		for j, pc := range p.PluginConfig {
			if seen[pc.Name] {
				errs.add(fmt.Sprintf("%s.pluginConfig[%d].name", path, j), ErrDuplicate, "%q", pc.Name)
			}
			seen[pc.Name] = true
		}
	}
	checkCommonQueueSort(c.Profiles, &errs)
	return errs.join()
}

func checkPercentage(path string, v *int32, errs *fieldErrs) {
	if v != nil && (*v < 0 || *v > 100) {
		errs.add(path, ErrInvalid, "%d: not in valid range [0-100]", *v)
	}
}

// checkCommonQueueSort enforces kube's rule that all profiles share one
// queue (so one queue sort plugin with the same args): the queueSort sets
// and the queue sort plugin's args must be the same in every profile.
func checkCommonQueueSort(profiles []Profile, errs *fieldErrs) {
	if len(profiles) == 0 {
		return
	}
	first := &profiles[0]
	if n := len(first.Plugins.QueueSort.Enabled); n > 1 {
		errs.add("profiles[0].plugins.queueSort.enabled", ErrInvalid, "%d plugins: only one queue sort plugin can be enabled", n)
	}
	var sortName string
	if len(first.Plugins.QueueSort.Enabled) > 0 {
		sortName = first.Plugins.QueueSort.Enabled[0].Name
	}
	for i := 1; i < len(profiles); i++ {
		p := &profiles[i]
		if !equalSets(first.Plugins.QueueSort, p.Plugins.QueueSort) {
			errs.add(fmt.Sprintf("profiles[%d].plugins.queueSort", i), ErrInvalid, "must be the same for all profiles")
		}
		if sortName != "" && !bytes.Equal(first.Args(sortName), p.Args(sortName)) {
			errs.add(fmt.Sprintf("profiles[%d].pluginConfig", i), ErrInvalid, "args of queue sort plugin %q must be the same for all profiles", sortName)
		}
	}
}

func equalSets(a, b PluginSet) bool {
	return slices.Equal(a.Enabled, b.Enabled) && slices.Equal(a.Disabled, b.Disabled)
}
