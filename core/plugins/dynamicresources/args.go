package dynamicresources

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/plugins/helper"
)

// Args are DynamicResourcesArgs (kubescheduler.config.k8s.io/v1).
type Args struct {
	// FilterTimeout bounds the search for devices on one node; 0 means
	// none. Default 10s.
	FilterTimeout *metav1.Duration `json:"filterTimeout,omitempty"`
	// BindingTimeout bounds kube's wait for devices' binding conditions;
	// Berth has no binding conditions, so it is checked and not used.
	// Default 10m.
	BindingTimeout *metav1.Duration `json:"bindingTimeout,omitempty"`
}

// kube's defaults (DRASchedulerFilterTimeout and the binding conditions
// are on in 1.36).
const (
	DefaultFilterTimeout  = 10 * time.Second
	DefaultBindingTimeout = 10 * time.Minute
)

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
	a := &in.Args
	if a.FilterTimeout == nil {
		a.FilterTimeout = &metav1.Duration{Duration: DefaultFilterTimeout}
	}
	if a.BindingTimeout == nil {
		a.BindingTimeout = &metav1.Duration{Duration: DefaultBindingTimeout}
	}
	if a.FilterTimeout.Duration < 0 {
		return nil, helper.InvalidArg(Name, "filterTimeout", "%s: must not be negative", a.FilterTimeout.Duration)
	}
	if a.BindingTimeout.Duration <= 0 {
		return nil, helper.InvalidArg(Name, "bindingTimeout", "%s: must be positive", a.BindingTimeout.Duration)
	}
	return a, nil
}
