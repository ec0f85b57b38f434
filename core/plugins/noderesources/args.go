package noderesources

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// ScoringStrategyType names a NodeResourcesFit scoring strategy.
type ScoringStrategyType string

// The scoring strategies.
const (
	// LeastAllocated favours nodes with the most room left (spreading).
	LeastAllocated ScoringStrategyType = "LeastAllocated"
	// MostAllocated favours the fullest nodes (bin packing).
	MostAllocated ScoringStrategyType = "MostAllocated"
	// RequestedToCapacityRatio maps utilization to a score through a
	// piecewise linear shape.
	RequestedToCapacityRatio ScoringStrategyType = "RequestedToCapacityRatio"
)

// MaxCustomPriorityScore bounds the scores of a RequestedToCapacityRatio
// shape; they are scaled by MaxNodeScore/MaxCustomPriorityScore.
const MaxCustomPriorityScore = 10

// ResourceSpec is a resource taken into account when scoring, with its
// weight.
type ResourceSpec struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight,omitempty"`
}

// UtilizationShapePoint is a point of a RequestedToCapacityRatio shape:
// utilization 0..100 maps to score 0..10.
type UtilizationShapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

// RequestedToCapacityRatioParam holds the shape of that strategy.
type RequestedToCapacityRatioParam struct {
	Shape []UtilizationShapePoint `json:"shape,omitempty"`
}

// ScoringStrategy selects how NodeResourcesFit scores.
type ScoringStrategy struct {
	Type      ScoringStrategyType `json:"type,omitempty"`
	Resources []ResourceSpec      `json:"resources,omitempty"`
	// RequestedToCapacityRatio is set exactly when Type is
	// RequestedToCapacityRatio.
	RequestedToCapacityRatio *RequestedToCapacityRatioParam `json:"requestedToCapacityRatio,omitempty"`
}

// FitArgs are NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1).
type FitArgs struct {
	// IgnoredResources are extended resources the filter does not check.
	IgnoredResources []string `json:"ignoredResources,omitempty"`
	// IgnoredResourceGroups are domains ("example.com") whose extended
	// resources the filter does not check.
	IgnoredResourceGroups []string `json:"ignoredResourceGroups,omitempty"`
	// ScoringStrategy defaults to LeastAllocated over cpu and memory.
	ScoringStrategy *ScoringStrategy `json:"scoringStrategy,omitempty"`
}

// BalancedAllocationArgs are NodeResourcesBalancedAllocationArgs.
type BalancedAllocationArgs struct {
	// Resources default to cpu and memory; every weight must be 1.
	Resources []ResourceSpec `json:"resources,omitempty"`
}

func defaultResources() []ResourceSpec {
	return []ResourceSpec{{Name: model.ResourceCPU, Weight: 1}, {Name: model.ResourceMemory, Weight: 1}}
}

// DecodeFitArgs decodes, defaults and validates NodeResourcesFitArgs; nil
// gives the defaults.
func DecodeFitArgs(raw json.RawMessage) (*FitArgs, error) {
	var in struct {
		metav1.TypeMeta
		FitArgs
	}
	if err := helper.DecodeArgs(Name, raw, &in); err != nil {
		return nil, err
	}
	args := &in.FitArgs
	args.setDefaults()
	if err := args.validate(); err != nil {
		return nil, err
	}
	return args, nil
}

func (a *FitArgs) setDefaults() {
	if a.ScoringStrategy == nil {
		a.ScoringStrategy = &ScoringStrategy{Type: LeastAllocated}
	}
	s := a.ScoringStrategy
	if len(s.Resources) == 0 {
		s.Resources = defaultResources()
	}
	for i := range s.Resources {
		if s.Resources[i].Weight == 0 {
			s.Resources[i].Weight = 1
		}
	}
}

func (a *FitArgs) validate() error {
	var errs []error
	bad := func(field, format string, v ...any) {
		errs = append(errs, helper.InvalidArg(Name, field, format, v...))
	}
	for i, r := range a.IgnoredResources {
		if msgs := validation.IsQualifiedName(r); len(msgs) > 0 {
			bad(fmt.Sprintf("ignoredResources[%d]", i), "%q: %s", r, strings.Join(msgs, "; "))
		}
	}
	for i, g := range a.IgnoredResourceGroups {
		field := fmt.Sprintf("ignoredResourceGroups[%d]", i)
		if strings.Contains(g, "/") {
			bad(field, "%q: resource group name can't contain '/'", g)
		}
		if msgs := validation.IsQualifiedName(g); len(msgs) > 0 {
			bad(field, "%q: %s", g, strings.Join(msgs, "; "))
		}
	}
	s := a.ScoringStrategy
	switch s.Type {
	case LeastAllocated, MostAllocated, RequestedToCapacityRatio:
	default:
		bad("scoringStrategy.type", "unsupported value %q: supported values are %q, %q, %q",
			s.Type, LeastAllocated, MostAllocated, RequestedToCapacityRatio)
	}
	for i, r := range s.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			bad(fmt.Sprintf("scoringStrategy.resources[%d].weight", i), "%d: resource weight of %s not in valid range (0, 100]", r.Weight, r.Name)
		}
	}
	switch {
	case s.Type == RequestedToCapacityRatio && s.RequestedToCapacityRatio == nil:
		bad("scoringStrategy.requestedToCapacityRatio", "must be specified when type is RequestedToCapacityRatio")
	case s.Type == RequestedToCapacityRatio:
		errs = append(errs, validateShape(s.RequestedToCapacityRatio.Shape)...)
	case s.RequestedToCapacityRatio != nil:
		bad("scoringStrategy.requestedToCapacityRatio", "must be nil when type is not RequestedToCapacityRatio")
	}
	return errors.Join(errs...)
}

func validateShape(shape []UtilizationShapePoint) []error {
	const field = "scoringStrategy.requestedToCapacityRatio.shape"
	if len(shape) == 0 {
		return []error{helper.InvalidArg(Name, field, "at least one point must be specified")}
	}
	var errs []error
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, helper.InvalidArg(Name, fmt.Sprintf("%s[%d].utilization", field, i),
				"%d: values must be sorted in increasing order", shape[i].Utilization))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			errs = append(errs, helper.InvalidArg(Name, fmt.Sprintf("%s[%d].utilization", field, i),
				"%d: not in valid range [0, 100]", p.Utilization))
		}
		if p.Score < 0 || p.Score > MaxCustomPriorityScore {
			errs = append(errs, helper.InvalidArg(Name, fmt.Sprintf("%s[%d].score", field, i),
				"%d: not in valid range [0, %d]", p.Score, MaxCustomPriorityScore))
		}
	}
	return errs
}

// DecodeBalancedAllocationArgs decodes, defaults and validates
// NodeResourcesBalancedAllocationArgs; nil gives the defaults.
func DecodeBalancedAllocationArgs(raw json.RawMessage) (*BalancedAllocationArgs, error) {
	var in struct {
		metav1.TypeMeta
		BalancedAllocationArgs
	}
	if err := helper.DecodeArgs(BalancedAllocationName, raw, &in); err != nil {
		return nil, err
	}
	args := &in.BalancedAllocationArgs
	if len(args.Resources) == 0 {
		args.Resources = defaultResources()
	}
	var errs []error
	seen := make(map[string]bool, len(args.Resources))
	for i := range args.Resources {
		r := &args.Resources[i]
		if r.Weight == 0 {
			r.Weight = 1
		}
		if seen[r.Name] {
			errs = append(errs, helper.InvalidArg(BalancedAllocationName, fmt.Sprintf("resources[%d].name", i), "duplicate value %q", r.Name))
		}
		seen[r.Name] = true
		if r.Weight != 1 {
			errs = append(errs, helper.InvalidArg(BalancedAllocationName, fmt.Sprintf("resources[%d].weight", i), "%d: must be 1", r.Weight))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return args, nil
}
