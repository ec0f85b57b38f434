package nodeaffinity

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// Args are the plugin's decoded, validated args (NodeAffinityArgs).
type Args struct {
	// AddedAffinity applies to every pod on top of its own node affinity:
	// Required is ANDed with the pod's rules, Preferred adds to its score.
	// Nil adds nothing.
	AddedAffinity *model.NodeAffinity
}

// argsV1 is kubescheduler.config.k8s.io/v1 NodeAffinityArgs on the wire.
type argsV1 struct {
	metav1.TypeMeta `json:",inline"`
	AddedAffinity   *corev1.NodeAffinity `json:"addedAffinity,omitempty"`
}

// DecodeArgs decodes kubescheduler.config.k8s.io/v1 NodeAffinityArgs; nil
// means the defaults (no added affinity).
func DecodeArgs(raw json.RawMessage) (*Args, error) {
	var in argsV1
	if err := helper.DecodeArgs(Name, raw, &in); err != nil {
		return nil, err
	}
	out := &Args{}
	a := in.AddedAffinity
	if a == nil {
		return out, nil
	}
	added := &model.NodeAffinity{}
	if req := a.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		added.Required = &model.NodeSelector{}
		for i, t := range req.NodeSelectorTerms {
			term, err := convertTerm(t)
			if err != nil {
				return nil, argErr(fmt.Sprintf("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i), err)
			}
			added.Required.Terms = append(added.Required.Terms, term)
		}
	}
	for i, p := range a.PreferredDuringSchedulingIgnoredDuringExecution {
		term, err := convertTerm(p.Preference)
		if err != nil {
			return nil, argErr(fmt.Sprintf("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].preference", i), err)
		}
		added.Preferred = append(added.Preferred, model.PreferredSchedulingTerm{Weight: p.Weight, Preference: term})
	}
	out.AddedAffinity = added
	return out, nil
}

// argErr turns a conversion error into an ArgsError whose field is the
// full path.
func argErr(prefix string, err error) error {
	var fe *fieldErr
	if errors.As(err, &fe) {
		return &helper.ArgsError{Plugin: Name, Field: prefix + "." + fe.field, Err: fe.err}
	}
	return &helper.ArgsError{Plugin: Name, Field: prefix, Err: err}
}

type fieldErr struct {
	field string
	err   error
}

func (e *fieldErr) Error() string { return e.field + ": " + e.err.Error() }

// convertTerm converts and validates a term as kube-scheduler's node
// selector parser does: label keys must be qualified names, values label
// values, Gt and Lt take one integer, matchFields one metadata.name value.
func convertTerm(t corev1.NodeSelectorTerm) (model.NodeSelectorTerm, error) {
	conv := func(field string, rs []corev1.NodeSelectorRequirement, labels bool) ([]model.NodeSelectorRequirement, error) {
		var out []model.NodeSelectorRequirement
		for i, r := range rs {
			if labels {
				if err := validateLabelRequirement(r); err != nil {
					return nil, &fieldErr{field: fmt.Sprintf("%s[%d]", field, i), err: err}
				}
			}
			out = append(out, model.NodeSelectorRequirement{Key: r.Key, Operator: model.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return out, nil
	}
	var term model.NodeSelectorTerm
	var err error
	if term.MatchExpressions, err = conv("matchExpressions", t.MatchExpressions, true); err != nil {
		return term, err
	}
	if term.MatchFields, err = conv("matchFields", t.MatchFields, false); err != nil {
		return term, err
	}
	if err := term.Validate(); err != nil {
		return term, err
	}
	return term, nil
}

func validateLabelRequirement(r corev1.NodeSelectorRequirement) error {
	if errs := validation.IsQualifiedName(r.Key); len(errs) > 0 {
		return fmt.Errorf("key %q: %s", r.Key, errs[0])
	}
	for _, v := range r.Values {
		if r.Operator == corev1.NodeSelectorOpGt || r.Operator == corev1.NodeSelectorOpLt {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return fmt.Errorf("value %q: for Gt and Lt the value must be an integer", v)
			}
			continue
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("value %q: %s", v, errs[0])
		}
	}
	return nil
}
