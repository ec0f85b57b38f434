package defaultpreemption

import (
	"encoding/json"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/plugins/helper"
)

// kube's defaults.
const (
	DefaultMinCandidateNodesPercentage int32 = 10
	DefaultMinCandidateNodesAbsolute   int32 = 100
)

// Args are DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1): the dry
// run looks for min(max(numNodes*MinCandidateNodesPercentage/100,
// MinCandidateNodesAbsolute), numNodes) candidates.
type Args struct {
	// MinCandidateNodesPercentage is in [0, 100]; default 10.
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	// MinCandidateNodesAbsolute is at least 0; default 100. It cannot be 0
	// together with MinCandidateNodesPercentage.
	MinCandidateNodesAbsolute *int32 `json:"minCandidateNodesAbsolute,omitempty"`
}

// DecodeArgs decodes, defaults and validates the args; nil gives the
// defaults. Errors are *helper.ArgsError naming the field.
func DecodeArgs(raw json.RawMessage) (*Args, error) {
	var in struct {
		metav1.TypeMeta
		Args
	}
	if err := helper.DecodeArgs(Name, raw, &in); err != nil {
		return nil, err
	}
	args := &in.Args
	args.setDefaults()
	if err := args.validate(); err != nil {
		return nil, err
	}
	return args, nil
}

func (a *Args) setDefaults() {
	if a.MinCandidateNodesPercentage == nil {
		p := DefaultMinCandidateNodesPercentage
		a.MinCandidateNodesPercentage = &p
	}
	if a.MinCandidateNodesAbsolute == nil {
		n := DefaultMinCandidateNodesAbsolute
		a.MinCandidateNodesAbsolute = &n
	}
}

func (a *Args) validate() error {
	const pctField, absField = "minCandidateNodesPercentage", "minCandidateNodesAbsolute"
	pct, abs := *a.MinCandidateNodesPercentage, *a.MinCandidateNodesAbsolute
	var errs []error
	if pct < 0 || pct > 100 {
		errs = append(errs, helper.InvalidArg(Name, pctField, "%d: not in valid range [0, 100]", pct))
	}
	if abs < 0 {
		errs = append(errs, helper.InvalidArg(Name, absField, "%d: not in valid range [0, inf)", abs))
	}
	if pct == 0 && abs == 0 {
		errs = append(errs,
			helper.InvalidArg(Name, pctField, "0: cannot be zero at the same time as minCandidateNodesAbsolute"),
			helper.InvalidArg(Name, absField, "0: cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errors.Join(errs...)
}
