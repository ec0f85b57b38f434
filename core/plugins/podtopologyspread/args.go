package podtopologyspread

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// DefaultingType says where a pod without constraints of its own gets
// cluster default constraints from.
type DefaultingType string

const (
	// SystemDefaulting: kube-scheduler's built-in defaults (hostname
	// maxSkew 3 and zone maxSkew 5, both ScheduleAnyway).
	SystemDefaulting DefaultingType = "System"
	// ListDefaulting: the args' defaultConstraints.
	ListDefaulting DefaultingType = "List"
)

// Args are the plugin's decoded, defaulted and validated args
// (kubescheduler.config.k8s.io/v1 PodTopologySpreadArgs).
type Args struct {
	// DefaultConstraints apply, with ListDefaulting, to pods without
	// constraints of their own. They have no labelSelector: it is derived
	// from the pod's workload selectors (see the package comment).
	DefaultConstraints []model.TopologySpreadConstraint
	// DefaultingType defaults to System.
	DefaultingType DefaultingType
}

// argsV1 is PodTopologySpreadArgs on the wire.
type argsV1 struct {
	metav1.TypeMeta    `json:",inline"`
	DefaultConstraints []corev1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	DefaultingType     DefaultingType                    `json:"defaultingType,omitempty"`
}

// DefaultArgs returns kube's defaults.
func DefaultArgs() Args { return Args{DefaultingType: SystemDefaulting} }

// DecodeArgs decodes PodTopologySpreadArgs strictly (nil means the
// defaults), applies the defaults and validates them.
func DecodeArgs(raw json.RawMessage) (Args, error) {
	var in argsV1
	if err := helper.DecodeArgs(Name, raw, &in); err != nil {
		return Args{}, err
	}
	out := Args{DefaultingType: in.DefaultingType}
	if out.DefaultingType == "" {
		out.DefaultingType = SystemDefaulting
	}
	for i, c := range in.DefaultConstraints {
		if c.LabelSelector != nil {
			return Args{}, helper.InvalidArg(Name, fmt.Sprintf("defaultConstraints[%d].labelSelector", i), "constraint must not define a selector, as they deduced for each pod")
		}
		out.DefaultConstraints = append(out.DefaultConstraints, model.TopologySpreadConstraint{
			MaxSkew:            c.MaxSkew,
			TopologyKey:        c.TopologyKey,
			WhenUnsatisfiable:  model.UnsatisfiableConstraintAction(c.WhenUnsatisfiable),
			MinDomains:         c.MinDomains,
			NodeAffinityPolicy: (*model.NodeInclusionPolicy)(c.NodeAffinityPolicy),
			NodeTaintsPolicy:   (*model.NodeInclusionPolicy)(c.NodeTaintsPolicy),
			MatchLabelKeys:     c.MatchLabelKeys,
		})
	}
	return out, out.Validate()
}

// Validate reports the first invalid field, as kube-scheduler checks them.
func (a Args) Validate() error {
	switch a.DefaultingType {
	case SystemDefaulting:
		if len(a.DefaultConstraints) > 0 {
			return helper.InvalidArg(Name, "defaultingType", "%q: invalid when .defaultConstraints are not empty", a.DefaultingType)
		}
	case ListDefaulting:
	default:
		return helper.InvalidArg(Name, "defaultingType", "unsupported value %q: supported values: %q, %q", a.DefaultingType, SystemDefaulting, ListDefaulting)
	}
	for i, c := range a.DefaultConstraints {
		field := func(name string) string { return fmt.Sprintf("defaultConstraints[%d].%s", i, name) }
		if c.MaxSkew <= 0 {
			return helper.InvalidArg(Name, field("maxSkew"), "%d: not in valid range (0, inf)", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			return helper.InvalidArg(Name, field("topologyKey"), "can not be empty")
		}
		if errs := validation.IsQualifiedName(c.TopologyKey); len(errs) > 0 {
			return helper.InvalidArg(Name, field("topologyKey"), "%q: %s", c.TopologyKey, errs[0])
		}
		switch c.WhenUnsatisfiable {
		case model.DoNotSchedule, model.ScheduleAnyway:
		case "":
			return helper.InvalidArg(Name, field("whenUnsatisfiable"), "can not be empty")
		default:
			return helper.InvalidArg(Name, field("whenUnsatisfiable"), "unsupported value %q: supported values: %q, %q", c.WhenUnsatisfiable, model.DoNotSchedule, model.ScheduleAnyway)
		}
		if c.LabelSelector != nil {
			return helper.InvalidArg(Name, field("labelSelector"), "constraint must not define a selector, as they deduced for each pod")
		}
		for j := range i {
			if o := a.DefaultConstraints[j]; o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				return helper.InvalidArg(Name, fmt.Sprintf("defaultConstraints[%d]", i), "duplicate value {%s, %s}", c.TopologyKey, c.WhenUnsatisfiable)
			}
		}
	}
	return nil
}
