package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLoadKueue(t *testing.T) {
	for _, tc := range []struct {
		name        string
		doc         string
		fairSharing bool
		strategies  []string
		errPath     string // the field the error names; "" for none
		errKind     error
	}{
		{
			name:       "defaults",
			doc:        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n",
			strategies: []string{LessThanOrEqualToFinalShare, LessThanInitialShare},
		},
		{
			name:        "fair sharing with one strategy",
			doc:         "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n  preemptionStrategies: [LessThanInitialShare]\n",
			fairSharing: true, strategies: []string{LessThanInitialShare},
		},
		{
			name:    "unknown strategy",
			doc:     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  enable: true\n  preemptionStrategies: [LessThanInitialShare, Fewest]\n",
			errPath: "fairSharing.preemptionStrategies[1]", errKind: ErrInvalid,
		},
		{
			name:    "strategy twice",
			doc:     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanInitialShare]\n",
			errPath: "fairSharing.preemptionStrategies[1]", errKind: ErrDuplicate,
		},
		{
			name:    "admission fair sharing",
			doc:     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing:\n  usageHalfLifeTime: 168h\n",
			errPath: "admissionFairSharing", errKind: ErrNotImplemented,
		},
		{
			name:    "wrong apiVersion",
			doc:     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Configuration\n",
			errPath: "apiVersion", errKind: ErrDecode,
		},
		{
			name:    "wrong type",
			doc:     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n  enable: sometimes\n",
			errKind: ErrDecode,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadKueue([]byte(tc.doc))
			if tc.errKind != nil {
				var fe *FieldError
				if !errors.Is(err, tc.errKind) || !errors.As(err, &fe) || fe.Path != tc.errPath {
					t.Fatalf("LoadKueue: %v; want %v at %q", err, tc.errKind, tc.errPath)
				}
				if tc.errPath != "" && !strings.HasPrefix(err.Error(), tc.errPath+": ") {
					t.Errorf("error %q does not start with its field", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.FairSharing != tc.fairSharing || !slices.Equal(cfg.PreemptionStrategies, tc.strategies) {
				t.Errorf("LoadKueue = %+v, want fairSharing %v, strategies %v", cfg, tc.fairSharing, tc.strategies)
			}
		})
	}
}
