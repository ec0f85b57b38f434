package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/berthsched/berth/core/model"
)

// rawSelector is a metav1.LabelSelector as written.
type rawSelector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	} `json:"matchExpressions,omitempty"`
}

// compile turns a written selector into a compiled one; nil or empty
// gives nil (no restriction), as the Descheduler skips empty selectors.
func (r *rawSelector) compile(field string) (*model.Selector, error) {
	if r == nil || len(r.MatchLabels)+len(r.MatchExpressions) == 0 {
		return nil, nil
	}
	ls := &model.LabelSelector{MatchLabels: r.MatchLabels}
	for i, e := range r.MatchExpressions {
		op := model.LabelSelectorOperator(e.Operator)
		switch op {
		case model.LabelSelectorOpIn, model.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				return nil, &FieldError{Field: fmt.Sprintf("%s.matchExpressions[%d].values", field, i), Err: fmt.Errorf("must be non-empty for %s", op)}
			}
		case model.LabelSelectorOpExists, model.LabelSelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				return nil, &FieldError{Field: fmt.Sprintf("%s.matchExpressions[%d].values", field, i), Err: fmt.Errorf("must be empty for %s", op)}
			}
		default:
			return nil, &FieldError{Field: fmt.Sprintf("%s.matchExpressions[%d].operator", field, i), Err: fmt.Errorf("%q is not In, NotIn, Exists or DoesNotExist", e.Operator)}
		}
		vals := slices.Clone(e.Values)
		sort.Strings(vals)
		ls.MatchExpressions = append(ls.MatchExpressions, model.LabelSelectorRequirement{Key: e.Key, Operator: op, Values: vals})
	}
	sel, err := ls.Compile()
	if err != nil {
		return nil, &FieldError{Field: field, Err: err}
	}
	return &sel, nil
}

type rawPriorityThreshold struct {
	Name  string `json:"name,omitempty"`
	Value *int32 `json:"value,omitempty"`
}

type rawEvictor struct {
	NodeSelector           string                `json:"nodeSelector,omitempty"`
	LabelSelector          *rawSelector          `json:"labelSelector,omitempty"`
	NamespaceLabelSelector *rawSelector          `json:"namespaceLabelSelector,omitempty"`
	PriorityThreshold      *rawPriorityThreshold `json:"priorityThreshold,omitempty"`
	NodeFit                bool                  `json:"nodeFit,omitempty"`
	MinReplicas            uint                  `json:"minReplicas,omitempty"`
	MinPodAge              string                `json:"minPodAge,omitempty"`
	NoEvictionPolicy       string                `json:"noEvictionPolicy,omitempty"`
	PodProtections         struct {
		ExtraEnabled    []Protection `json:"extraEnabled,omitempty"`
		DefaultDisabled []Protection `json:"defaultDisabled,omitempty"`
		Config          *struct {
			PodsWithPVC *struct {
				ProtectedStorageClasses []struct {
					Name string `json:"name"`
				} `json:"protectedStorageClasses,omitempty"`
			} `json:"PodsWithPVC,omitempty"`
		} `json:"config,omitempty"`
	} `json:"podProtections,omitempty"`
	EvictLocalStoragePods   bool `json:"evictLocalStoragePods,omitempty"`
	EvictDaemonSetPods      bool `json:"evictDaemonSetPods,omitempty"`
	EvictSystemCriticalPods bool `json:"evictSystemCriticalPods,omitempty"`
	IgnorePvcPods           bool `json:"ignorePvcPods,omitempty"`
	IgnorePodsWithoutPDB    bool `json:"ignorePodsWithoutPDB,omitempty"`
	EvictFailedBarePods     bool `json:"evictFailedBarePods,omitempty"`
}

type rawFiltered struct {
	Namespaces    *Namespaces  `json:"namespaces,omitempty"`
	LabelSelector *rawSelector `json:"labelSelector,omitempty"`
}

func (r rawFiltered) filtered() (Filtered, error) {
	if r.Namespaces != nil && len(r.Namespaces.Include) > 0 && len(r.Namespaces.Exclude) > 0 {
		return Filtered{}, &FieldError{Field: "namespaces", Err: errors.New("only one of include and exclude may be set")}
	}
	sel, err := r.LabelSelector.compile("labelSelector")
	return Filtered{Namespaces: r.Namespaces, LabelSelector: sel}, err
}

// pluginArgs decodes, validates and defaults one plugin's args; data nil
// is the plugin's defaults.
func pluginArgs(name string, data json.RawMessage, classes PriorityClasses) (any, error) {
	switch name {
	case DefaultEvictor:
		var r rawEvictor
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		return evictorArgs(r, classes)
	case LowNodeUtilization:
		var r struct {
			UseDeviationThresholds bool               `json:"useDeviationThresholds,omitempty"`
			Thresholds             map[string]float64 `json:"thresholds"`
			TargetThresholds       map[string]float64 `json:"targetThresholds"`
			NumberOfNodes          int                `json:"numberOfNodes,omitempty"`
			MetricsUtilization     json.RawMessage    `json:"metricsUtilization,omitempty"`
			EvictableNamespaces    *Namespaces        `json:"evictableNamespaces,omitempty"`
			EvictionLimits         *struct {
				Node *uint `json:"node,omitempty"`
			} `json:"evictionLimits,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		if len(r.MetricsUtilization) > 0 && string(r.MetricsUtilization) != "null" {
			return nil, &FieldError{Field: "metricsUtilization", Err: fmt.Errorf("metrics-based utilization is %w", ErrUnsupported)}
		}
		if err := includeNotAllowed(r.EvictableNamespaces); err != nil {
			return nil, err
		}
		if err := thresholds("thresholds", r.Thresholds); err != nil {
			return nil, err
		}
		if err := thresholds("targetThresholds", r.TargetThresholds); err != nil {
			return nil, err
		}
		for _, res := range sortedKeys(r.Thresholds) {
			t, ok := r.TargetThresholds[res]
			if !ok || len(r.Thresholds) != len(r.TargetThresholds) {
				return nil, &FieldError{Field: "targetThresholds", Err: errors.New("thresholds and targetThresholds configure different resources")}
			}
			if r.Thresholds[res] > t && !r.UseDeviationThresholds {
				return nil, &FieldError{Field: "thresholds[" + res + "]", Err: fmt.Errorf("%v%% is greater than targetThresholds' %v%%", r.Thresholds[res], t)}
			}
		}
		if len(r.Thresholds) != len(r.TargetThresholds) {
			return nil, &FieldError{Field: "targetThresholds", Err: errors.New("thresholds and targetThresholds configure different resources")}
		}
		a := &LowNodeUtilizationArgs{
			UseDeviationThresholds: r.UseDeviationThresholds, Thresholds: r.Thresholds, TargetThresholds: r.TargetThresholds,
			NumberOfNodes: r.NumberOfNodes, EvictableNamespaces: r.EvictableNamespaces,
		}
		if r.EvictionLimits != nil {
			a.MaxEvictionsPerNode = r.EvictionLimits.Node
		}
		return a, nil
	case HighNodeUtilization:
		var r struct {
			Thresholds          map[string]float64 `json:"thresholds"`
			NumberOfNodes       int                `json:"numberOfNodes,omitempty"`
			EvictionModes       []string           `json:"evictionModes,omitempty"`
			EvictableNamespaces *Namespaces        `json:"evictableNamespaces,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		if err := includeNotAllowed(r.EvictableNamespaces); err != nil {
			return nil, err
		}
		if err := thresholds("thresholds", r.Thresholds); err != nil {
			return nil, err
		}
		a := &HighNodeUtilizationArgs{Thresholds: r.Thresholds, NumberOfNodes: r.NumberOfNodes, EvictableNamespaces: r.EvictableNamespaces}
		for i, m := range r.EvictionModes {
			if m != "OnlyThresholdingResources" {
				return nil, &FieldError{Field: fmt.Sprintf("evictionModes[%d]", i), Err: fmt.Errorf("invalid eviction mode %q (OnlyThresholdingResources is the one)", m)}
			}
			a.OnlyThresholdingResources = true
		}
		return a, nil
	case RemoveDuplicates:
		var r struct {
			Namespaces        *Namespaces `json:"namespaces,omitempty"`
			ExcludeOwnerKinds []string    `json:"excludeOwnerKinds,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		if r.Namespaces != nil && len(r.Namespaces.Include) > 0 && len(r.Namespaces.Exclude) > 0 {
			return nil, &FieldError{Field: "namespaces", Err: errors.New("only one of include and exclude may be set")}
		}
		return &RemoveDuplicatesArgs{Namespaces: r.Namespaces, ExcludeOwnerKinds: r.ExcludeOwnerKinds}, nil
	case RemovePodsViolatingInterPodAntiAffinity:
		var r rawFiltered
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		f, err := r.filtered()
		return &InterPodAntiAffinityArgs{f}, err
	case RemovePodsViolatingNodeAffinity:
		var r struct {
			rawFiltered
			NodeAffinityType []string `json:"nodeAffinityType,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		f, err := r.filtered()
		if err != nil {
			return nil, err
		}
		if len(r.NodeAffinityType) == 0 {
			return nil, &FieldError{Field: "nodeAffinityType", Err: errors.New("needs to be set")}
		}
		return &NodeAffinityArgs{Filtered: f, NodeAffinityType: r.NodeAffinityType}, nil
	case RemovePodsViolatingNodeTaints:
		var r struct {
			rawFiltered
			IncludePreferNoSchedule bool     `json:"includePreferNoSchedule,omitempty"`
			ExcludedTaints          []string `json:"excludedTaints,omitempty"`
			IncludedTaints          []string `json:"includedTaints,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		f, err := r.filtered()
		if err != nil {
			return nil, err
		}
		if len(r.ExcludedTaints) > 0 && len(r.IncludedTaints) > 0 {
			return nil, &FieldError{Field: "includedTaints", Err: errors.New("only one of excludedTaints and includedTaints may be set")}
		}
		return &NodeTaintsArgs{Filtered: f, IncludePreferNoSchedule: r.IncludePreferNoSchedule, ExcludedTaints: r.ExcludedTaints, IncludedTaints: r.IncludedTaints}, nil
	case RemovePodsHavingTooManyRestarts:
		var r struct {
			rawFiltered
			PodRestartThreshold     int32    `json:"podRestartThreshold,omitempty"`
			IncludingInitContainers bool     `json:"includingInitContainers,omitempty"`
			States                  []string `json:"states,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		f, err := r.filtered()
		if err != nil {
			return nil, err
		}
		if r.PodRestartThreshold < 1 {
			return nil, &FieldError{Field: "podRestartThreshold", Err: fmt.Errorf("must be at least 1, not %d", r.PodRestartThreshold)}
		}
		for i, s := range r.States {
			if s != "Running" && s != "CrashLoopBackOff" {
				return nil, &FieldError{Field: fmt.Sprintf("states[%d]", i), Err: fmt.Errorf("%q is not one of [CrashLoopBackOff Running]", s)}
			}
		}
		return &TooManyRestartsArgs{Filtered: f, PodRestartThreshold: r.PodRestartThreshold, IncludingInitContainers: r.IncludingInitContainers, States: r.States}, nil
	case PodLifeTime:
		return podLifeTimeArgs(data)
	case RemovePodsViolatingTopologySpreadConstraint:
		var r struct {
			rawFiltered
			Constraints            []model.UnsatisfiableConstraintAction `json:"constraints,omitempty"`
			TopologyBalanceNodeFit *bool                                 `json:"topologyBalanceNodeFit,omitempty"`
		}
		if err := strictJSON(data, &r); err != nil {
			return nil, err
		}
		f, err := r.filtered()
		if err != nil {
			return nil, err
		}
		for i, c := range r.Constraints {
			if c != model.DoNotSchedule && c != model.ScheduleAnyway {
				return nil, &FieldError{Field: fmt.Sprintf("constraints[%d]", i), Err: fmt.Errorf("%q is not DoNotSchedule or ScheduleAnyway", c)}
			}
		}
		a := &TopologySpreadArgs{Filtered: f, Constraints: r.Constraints, TopologyBalanceNodeFit: r.TopologyBalanceNodeFit == nil || *r.TopologyBalanceNodeFit}
		if len(a.Constraints) == 0 {
			a.Constraints = []model.UnsatisfiableConstraintAction{model.DoNotSchedule}
		}
		return a, nil
	}
	return nil, fmt.Errorf("plugin %q is %w", name, ErrUnsupported)
}

func podLifeTimeArgs(data json.RawMessage) (any, error) {
	var r struct {
		rawFiltered
		OwnerKinds                   *Namespaces     `json:"ownerKinds,omitempty"`
		MaxPodLifeTimeSeconds        *uint           `json:"maxPodLifeTimeSeconds,omitempty"`
		States                       []string        `json:"states,omitempty"`
		Conditions                   json.RawMessage `json:"conditions,omitempty"`
		ExitCodes                    []int32         `json:"exitCodes,omitempty"`
		IncludingInitContainers      bool            `json:"includingInitContainers,omitempty"`
		IncludingEphemeralContainers bool            `json:"includingEphemeralContainers,omitempty"`
	}
	if err := strictJSON(data, &r); err != nil {
		return nil, err
	}
	f, err := r.filtered()
	if err != nil {
		return nil, err
	}
	if r.OwnerKinds != nil && len(r.OwnerKinds.Include) > 0 && len(r.OwnerKinds.Exclude) > 0 {
		return nil, &FieldError{Field: "ownerKinds", Err: errors.New("only one of include and exclude may be set")}
	}
	if len(r.Conditions) > 0 && string(r.Conditions) != "null" && string(r.Conditions) != "[]" {
		return nil, &FieldError{Field: "conditions", Err: fmt.Errorf("pod condition filters are %w: the Pod API carries no conditions", ErrUnsupported)}
	}
	if r.IncludingEphemeralContainers {
		return nil, &FieldError{Field: "includingEphemeralContainers", Err: fmt.Errorf("ephemeral containers are %w", ErrUnsupported)}
	}
	for i, s := range r.States {
		if !podLifeTimeState(s) {
			return nil, &FieldError{Field: fmt.Sprintf("states[%d]", i), Err: fmt.Errorf("%q is not a pod phase, pod reason or container state reason the Descheduler knows", s)}
		}
	}
	if r.MaxPodLifeTimeSeconds == nil && len(r.States) == 0 && len(r.ExitCodes) == 0 {
		return nil, &FieldError{Err: errors.New("at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states or exitCodes)")}
	}
	return &PodLifeTimeArgs{
		Filtered: f, OwnerKinds: r.OwnerKinds, MaxPodLifeTimeSeconds: r.MaxPodLifeTimeSeconds, States: r.States,
		ExitCodes: r.ExitCodes, IncludingInitContainers: r.IncludingInitContainers,
	}, nil
}

func podLifeTimeState(s string) bool {
	switch s {
	case "Running", "Pending", "Succeeded", "Failed", "Unknown",
		"NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
		"PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff",
		"CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName",
		"OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun", "StartError":
		return true
	}
	return false
}

func includeNotAllowed(n *Namespaces) error {
	if n != nil && len(n.Include) > 0 {
		return &FieldError{Field: "evictableNamespaces.include", Err: errors.New("only exclude may be set, inclusion is not supported")}
	}
	return nil
}

func thresholds(field string, t map[string]float64) error {
	if len(t) == 0 {
		return &FieldError{Field: field, Err: errors.New("no resource threshold is configured")}
	}
	for _, name := range sortedKeys(t) {
		if v := t[name]; v < 0 || v > 100 {
			return &FieldError{Field: field + "[" + name + "]", Err: fmt.Errorf("%v is not in [0, 100]", v)}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func evictorArgs(r rawEvictor, classes PriorityClasses) (*EvictorArgs, error) {
	a := &EvictorArgs{NodeFit: r.NodeFit, MinReplicas: r.MinReplicas, Protections: map[Protection]bool{}}
	var err error
	if r.NodeSelector != "" {
		if a.NodeSelector, err = ParseSelector(r.NodeSelector); err != nil {
			return nil, &FieldError{Field: "nodeSelector", Err: err}
		}
	}
	if a.LabelSelector, err = r.LabelSelector.compile("labelSelector"); err != nil {
		return nil, err
	}
	if a.NamespaceLabelSelector, err = r.NamespaceLabelSelector.compile("namespaceLabelSelector"); err != nil {
		return nil, err
	}
	if r.MinPodAge != "" {
		d, err := time.ParseDuration(r.MinPodAge)
		if err != nil {
			return nil, &FieldError{Field: "minPodAge", Err: fmt.Errorf("%q is not a duration", r.MinPodAge)}
		}
		a.MinPodAge = &d
	}
	switch r.NoEvictionPolicy {
	case "", "Preferred":
	case "Mandatory":
		a.NoEvictionMandatory = true
	default:
		return nil, &FieldError{Field: "noEvictionPolicy", Err: fmt.Errorf("%q is not Preferred or Mandatory", r.NoEvictionPolicy)}
	}
	a.PriorityThreshold = model.SystemCriticalPriority
	if pt := r.PriorityThreshold; pt != nil {
		switch {
		case pt.Value != nil && pt.Name != "":
			return nil, &FieldError{Field: "priorityThreshold", Err: errors.New("only one of name and value may be set")}
		case pt.Value != nil:
			a.PriorityThreshold = *pt.Value
		case pt.Name != "":
			v, ok := classes.PriorityClassValue(pt.Name)
			if !ok {
				return nil, &FieldError{Field: "priorityThreshold.name", Err: fmt.Errorf("no PriorityClass %q", pt.Name)}
			}
			a.PriorityThreshold = v
		}
		if a.PriorityThreshold > model.SystemCriticalPriority {
			return nil, &FieldError{Field: "priorityThreshold", Err: fmt.Errorf("%d is greater than %d", a.PriorityThreshold, model.SystemCriticalPriority)}
		}
	}
	pp := r.PodProtections
	legacy := r.EvictLocalStoragePods || r.EvictDaemonSetPods || r.EvictSystemCriticalPods || r.IgnorePvcPods || r.EvictFailedBarePods || r.IgnorePodsWithoutPDB
	if len(pp.ExtraEnabled)+len(pp.DefaultDisabled) == 0 {
		a.Protections[PodsWithLocalStorage] = !r.EvictLocalStoragePods
		a.Protections[DaemonSetPods] = !r.EvictDaemonSetPods
		a.Protections[SystemCriticalPods] = !r.EvictSystemCriticalPods
		a.Protections[FailedBarePods] = !r.EvictFailedBarePods
		a.Protections[PodsWithPVC] = r.IgnorePvcPods
		a.Protections[PodsWithoutPDB] = r.IgnorePodsWithoutPDB
		return a, nil
	}
	if legacy {
		return nil, &FieldError{Field: "podProtections", Err: errors.New("cannot be used with the deprecated evict*/ignore* fields")}
	}
	for _, p := range []Protection{PodsWithLocalStorage, DaemonSetPods, SystemCriticalPods, FailedBarePods} {
		a.Protections[p] = true
	}
	for i, p := range pp.DefaultDisabled {
		if p != PodsWithLocalStorage && p != DaemonSetPods && p != SystemCriticalPods && p != FailedBarePods {
			return nil, &FieldError{Field: fmt.Sprintf("podProtections.defaultDisabled[%d]", i), Err: fmt.Errorf("%q is not one of [PodsWithLocalStorage SystemCriticalPods FailedBarePods DaemonSetPods]", p)}
		}
		a.Protections[p] = false
	}
	for i, p := range pp.ExtraEnabled {
		switch p {
		case PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims:
		default:
			return nil, &FieldError{Field: fmt.Sprintf("podProtections.extraEnabled[%d]", i), Err: fmt.Errorf("%q is not one of [PodsWithPVC PodsWithoutPDB PodsWithResourceClaims]", p)}
		}
		a.Protections[p] = true
	}
	if hasDuplicates(pp.DefaultDisabled) {
		return nil, &FieldError{Field: "podProtections.defaultDisabled", Err: errors.New("contains duplicate entries")}
	}
	if hasDuplicates(pp.ExtraEnabled) {
		return nil, &FieldError{Field: "podProtections.extraEnabled", Err: errors.New("contains duplicate entries")}
	}
	if pp.Config != nil && pp.Config.PodsWithPVC != nil && len(pp.Config.PodsWithPVC.ProtectedStorageClasses) > 0 {
		return nil, &FieldError{Field: "podProtections.config.PodsWithPVC.protectedStorageClasses", Err: fmt.Errorf("storage classes are %w: Berth does not hold PersistentVolumeClaims", ErrUnsupported)}
	}
	return a, nil
}
