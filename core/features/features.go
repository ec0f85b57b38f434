package features

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Gates Berth switches, and the 1.36 gates it still takes.
const (
	// GenericWorkload turns on workload-aware (gang) scheduling of pod
	// groups. Beta and off in kube 1.37; on in Berth by default (see
	// Defaults).
	GenericWorkload = "GenericWorkload"
	// PodGroupPreemptionPolicy makes a PodGroup's own preemptionPolicy
	// (or its PriorityClass's) the group's, which every member must share.
	// Alpha and off in kube 1.37, as in Berth.
	PodGroupPreemptionPolicy = "PodGroupPreemptionPolicy"
	// GangScheduling and WorkloadAwarePreemption are kube 1.36's alpha
	// gates, removed in 1.37 (GenericWorkload covers both): a setting is
	// dropped with a warning, as kubeoracle does, so 1.36 command lines
	// still work.
	GangScheduling          = "GangScheduling"
	WorkloadAwarePreemption = "WorkloadAwarePreemption"
	// DRADeviceTaintRules makes DeviceTaintRules taint the devices they
	// select. GA and on in kube 1.37, as in Berth; off, Berth refuses the
	// objects.
	DRADeviceTaintRules = "DRADeviceTaintRules"
	// CompositePodGroup serves CompositePodGroups (trees of pod groups)
	// and makes a PodGroup's parentCompositePodGroupName count: a tree is
	// placed whole from its root. Alpha and off in kube 1.37, as in
	// Berth; it needs GenericWorkload and TopologyAwareWorkloadScheduling.
	CompositePodGroup = "CompositePodGroup"
	// TopologyAwareWorkloadScheduling is kube 1.37's alpha topology-aware
	// placement of pod groups. Berth takes either value; its placement of
	// a group with a topology key is the same under both (the first domain
	// where the group fits, docs/gang-scheduling.md).
	TopologyAwareWorkloadScheduling = "TopologyAwareWorkloadScheduling"
)

// dependencies are kube 1.37's dependencies among the gates Berth switches
// (pkg/features/kube_features.go): a gate on needs these on too.
var dependencies = map[string][]string{
	CompositePodGroup: {GenericWorkload, TopologyAwareWorkloadScheduling},
}

// Stage is a gate's maturity.
type Stage string

// The stages of kube's gates.
const (
	Alpha      Stage = "Alpha"
	Beta       Stage = "Beta"
	GA         Stage = "GA"
	Deprecated Stage = "Deprecated"
)

// Spec is a kube gate: its 1.37 default, stage, and whether kube locks it
// to the default.
type Spec struct {
	Name    string
	Default bool
	Stage   Stage
	Locked  bool
}

// Known returns kube 1.37's scheduling-relevant gates, in name order.
func Known() []Spec { return slices.Clone(kube137) }

// berthDefaults are the gates whose default Berth changes: a PodGroup is
// sent by an orchestrator asking for gang scheduling, so Berth schedules
// it as a gang unless GenericWorkload=false says otherwise (kube 1.37's
// default is off because the API is beta and not served by default).
var berthDefaults = map[string]bool{GenericWorkload: true}

// switchable are the gates whose value changes Berth's behaviour.
var switchable = map[string]bool{GenericWorkload: true, PodGroupPreemptionPolicy: true, DRADeviceTaintRules: true,
	CompositePodGroup: true, TopologyAwareWorkloadScheduling: true}

// Switchable reports whether Berth honours both values of the gate.
func Switchable(name string) bool { return switchable[name] }

// Gates is a set of gate values over the defaults. The zero value holds
// the defaults.
type Gates struct {
	set map[string]bool
}

// Enabled reports whether the gate is on: its setting, else Berth's
// default, else kube 1.37's; false for an unknown name.
func (g Gates) Enabled(name string) bool {
	if v, ok := g.set[name]; ok {
		return v
	}
	if v, ok := berthDefaults[name]; ok {
		return v
	}
	if s, ok := lookup(name); ok {
		return s.Default
	}
	return false
}

// Equal reports whether both hold the same settings (go-cmp uses it).
func (g Gates) Equal(o Gates) bool { return maps.Equal(g.set, o.set) }

// Set returns the gates given explicitly, sorted by name.
func (g Gates) Set() map[string]bool { return maps.Clone(g.set) }

// String is kube's spelling of the gates given explicitly.
func (g Gates) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(g.set)) {
		parts = append(parts, k+"="+strconv.FormatBool(g.set[k]))
	}
	return strings.Join(parts, ",")
}

// Parse reads kube's --feature-gates spelling ("A=true,B=false", spaces
// allowed around the parts). Warnings name the 1.36 gates dropped.
func Parse(s string) (Gates, []string, error) {
	m := map[string]bool{}
	var errs []error
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("missing bool value for %s", part))
			continue
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("invalid value of %s=%s, err: %w", k, v, err))
			continue
		}
		m[strings.TrimSpace(k)] = b
	}
	if len(errs) > 0 {
		return Gates{}, nil, errors.Join(errs...)
	}
	return FromMap(m)
}

// FromMap checks gate values (a configuration's featureGates) as kube
// does: an unknown name or a locked gate set off its default is refused
// in kube's words; a gate Berth does not switch is refused at a value
// other than the one Berth runs with. The 1.36 gates are dropped with a
// warning.
func FromMap(m map[string]bool) (Gates, []string, error) {
	var errs []error
	var warnings []string
	set := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if k == GangScheduling || k == WorkloadAwarePreemption {
			warnings = append(warnings, fmt.Sprintf("feature gate %s=%t is kube 1.36's, removed in 1.37 (%s covers it): ignored", k, v, GenericWorkload))
			continue
		}
		s, ok := lookup(k)
		if !ok {
			errs = append(errs, fmt.Errorf("unrecognized feature gate: %s", k))
			continue
		}
		if s.Locked && v != s.Default {
			errs = append(errs, fmt.Errorf("cannot set feature gate %s to %t, feature is locked to %t", k, v, s.Default))
			continue
		}
		if !switchable[k] && v != (Gates{}).Enabled(k) {
			errs = append(errs, fmt.Errorf("cannot set feature gate %s to %t: Berth runs with %s=%t and does not model the other value", k, v, k, !v))
			continue
		}
		set[k] = v
	}
	if len(errs) > 0 {
		return Gates{}, warnings, errors.Join(errs...)
	}
	g := Gates{set: set}
	for _, k := range slices.Sorted(maps.Keys(dependencies)) {
		if !g.Enabled(k) {
			continue
		}
		var off []string
		for _, dep := range dependencies[k] {
			if !g.Enabled(dep) {
				off = append(off, dep)
			}
		}
		if len(off) > 0 {
			// kube's words (component-base featuregate).
			errs = append(errs, fmt.Errorf("%s is enabled, but depends on features that are disabled: [%s]", k, strings.Join(off, " ")))
		}
	}
	if len(errs) > 0 {
		return Gates{}, warnings, errors.Join(errs...)
	}
	return g, warnings, nil
}

func lookup(name string) (Spec, bool) {
	i, ok := slices.BinarySearchFunc(kube137, name, func(s Spec, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return Spec{}, false
	}
	return kube137[i], true
}
