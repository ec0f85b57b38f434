package interpodaffinity

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/plugins/helper"
)

// Bounds of hardPodAffinityWeight.
const (
	MinHardPodAffinityWeight = 0
	MaxHardPodAffinityWeight = 100
)

// Args are the plugin's decoded, defaulted and validated args
// (kubescheduler.config.k8s.io/v1 InterPodAffinityArgs).
type Args struct {
	// HardPodAffinityWeight is the score a node's domain gets for each
	// running pod whose required affinity the incoming pod matches.
	// Default 1, range 0..100.
	HardPodAffinityWeight int32
	// IgnorePreferredTermsOfExistingPods scores only pods that have
	// preferred terms of their own, ignoring the running pods' terms.
	IgnorePreferredTermsOfExistingPods bool
}

// argsV1 is kubescheduler.config.k8s.io/v1 InterPodAffinityArgs on the wire.
type argsV1 struct {
	metav1.TypeMeta                    `json:",inline"`
	HardPodAffinityWeight              *int32 `json:"hardPodAffinityWeight,omitempty"`
	IgnorePreferredTermsOfExistingPods bool   `json:"ignorePreferredTermsOfExistingPods"`
}

// DefaultArgs returns kube's defaults.
func DefaultArgs() Args { return Args{HardPodAffinityWeight: 1} }

// DecodeArgs decodes InterPodAffinityArgs strictly (nil means the
// defaults), applies the defaults and validates them.
func DecodeArgs(raw json.RawMessage) (Args, error) {
	var in argsV1
	if err := helper.DecodeArgs(Name, raw, &in); err != nil {
		return Args{}, err
	}
	out := DefaultArgs()
	if in.HardPodAffinityWeight != nil {
		out.HardPodAffinityWeight = *in.HardPodAffinityWeight
	}
	out.IgnorePreferredTermsOfExistingPods = in.IgnorePreferredTermsOfExistingPods
	return out, out.Validate()
}

// Validate reports the first invalid field.
func (a Args) Validate() error {
	if w := a.HardPodAffinityWeight; w < MinHardPodAffinityWeight || w > MaxHardPodAffinityWeight {
		return helper.InvalidArg(Name, "hardPodAffinityWeight", "%d: not in valid range [%d, %d]", w, MinHardPodAffinityWeight, MaxHardPodAffinityWeight)
	}
	return nil
}
