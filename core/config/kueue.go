package config

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/quota"
)

// Kueue's Configuration as berthd reads it (--kueue-config).
const (
	KueueKind       = "Configuration"
	kueueGroup      = "config.kueue.x-k8s.io/"
	kueueAPIv1beta1 = kueueGroup + "v1beta1"
	kueueAPIv1beta2 = kueueGroup + "v1beta2"
)

// The fair-sharing preemption strategies Kueue 0.17 accepts.
const (
	LessThanOrEqualToFinalShare = "LessThanOrEqualToFinalShare"
	LessThanInitialShare        = "LessThanInitialShare"
)

// kueueConfiguration is the part of Kueue's Configuration that changes
// admission: fairSharing is read, the others refused (Berth does not
// apply them yet). Every other field of Kueue's (the manager, webhook,
// integrations settings) means nothing to berthd and is ignored.
type kueueConfiguration struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	FairSharing *struct {
		Enable               bool     `json:"enable"`
		PreemptionStrategies []string `json:"preemptionStrategies"`
	} `json:"fairSharing"`
	AdmissionFairSharing map[string]any  `json:"admissionFairSharing"`
	Resources            map[string]any  `json:"resources"`
	WaitForPodsReady     map[string]any  `json:"waitForPodsReady"`
	FeatureGates         map[string]bool `json:"featureGates"`
}

// LoadKueue reads Kueue's Configuration (config.kueue.x-k8s.io v1beta1 or
// v1beta2, YAML or JSON) into the admission settings berthd applies:
// fairSharing.enable and fairSharing.preemptionStrategies (defaulted, as
// Kueue defaults them, to [LessThanOrEqualToFinalShare,
// LessThanInitialShare]). Problems are *FieldError values naming the
// field; settings that change admission and that Berth does not apply
// (admissionFairSharing, resources, waitForPodsReady, featureGates) are
// refused as ErrNotImplemented rather than silently ignored.
func LoadKueue(data []byte) (quota.Config, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return quota.Config{}, &FieldError{Kind: ErrDecode, Msg: err.Error()}
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return quota.Config{}, &FieldError{Kind: ErrDecode, Msg: "empty document"}
	}
	var in kueueConfiguration
	if err := yaml.Unmarshal(data, &in); err != nil {
		return quota.Config{}, &FieldError{Kind: ErrDecode, Msg: err.Error()}
	}
	var errs fieldErrs
	if in.APIVersion != kueueAPIv1beta1 && in.APIVersion != kueueAPIv1beta2 {
		errs.add("apiVersion", ErrDecode, "%q: Berth reads %s and %s", in.APIVersion, kueueAPIv1beta1, kueueAPIv1beta2)
	}
	if in.Kind != KueueKind {
		errs.add("kind", ErrDecode, "%q: want %s", in.Kind, KueueKind)
	}
	for _, f := range []struct {
		field string
		set   bool
	}{
		{"admissionFairSharing", len(in.AdmissionFairSharing) > 0},
		{"resources", len(in.Resources) > 0},
		{"waitForPodsReady", len(in.WaitForPodsReady) > 0},
		{"featureGates", len(in.FeatureGates) > 0},
	} {
		if f.set {
			errs.add(f.field, ErrNotImplemented, "changes admission and is not applied by Berth yet")
		}
	}
	var cfg quota.Config
	if fs := in.FairSharing; fs != nil {
		cfg.FairSharing = fs.Enable
		seen := map[string]bool{}
		for i, s := range fs.PreemptionStrategies {
			path := fmt.Sprintf("fairSharing.preemptionStrategies[%d]", i)
			switch {
			case s != LessThanOrEqualToFinalShare && s != LessThanInitialShare:
				errs.add(path, ErrInvalid, "%q: supported values: %q, %q", s, LessThanOrEqualToFinalShare, LessThanInitialShare)
			case seen[s]:
				errs.add(path, ErrDuplicate, "%q", s)
			}
			seen[s] = true
		}
		cfg.PreemptionStrategies = append([]string(nil), fs.PreemptionStrategies...)
	}
	if len(errs) > 0 {
		return quota.Config{}, errs.join()
	}
	if len(cfg.PreemptionStrategies) == 0 {
		cfg.PreemptionStrategies = []string{LessThanOrEqualToFinalShare, LessThanInitialShare}
	}
	return cfg, nil
}
