package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/registry"
)

// A DeviceTaintRule is taken with NoSchedule and None; NoExecute, whose
// eviction Berth does not do, is refused naming the effect, and so is any
// rule with the DRADeviceTaintRules gate off; a rule is deleted by name.
func TestDeviceTaintRuleUpserts(t *testing.T) {
	rule := func(effect resourceapi.DeviceTaintEffect) *dra.DeviceTaintRule {
		return &dra.DeviceTaintRule{Name: "r", Selector: &dra.DeviceTaintSelector{}, Taint: resourceapi.DeviceTaint{Key: "example.com/k", Effect: effect}}
	}
	for _, tc := range []struct {
		name    string
		gates   string
		rule    *dra.DeviceTaintRule
		wantErr string // "" when taken
	}{
		{name: "NoSchedule", rule: rule(resourceapi.DeviceTaintEffectNoSchedule)},
		{name: "None", rule: rule(resourceapi.DeviceTaintEffectNone)},
		{name: "NoExecute", rule: rule(resourceapi.DeviceTaintEffectNoExecute), wantErr: "spec.taint.effect: NoExecute is not supported"},
		{name: "gate off", gates: "DRADeviceTaintRules=false", rule: rule(resourceapi.DeviceTaintEffectNoSchedule), wantErr: "the DRADeviceTaintRules feature gate is off"},
		{name: "invalid", rule: rule("Sometimes"), wantErr: "spec.taint.effect: unsupported value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			var err error
			if cfg.FeatureGates, _, err = features.Parse(tc.gates); err != nil {
				t.Fatal(err)
			}
			e := newEnvFakes(t)
			s, err := New(context.Background(), Options{Config: cfg, Registry: registry.InTree(), Decisions: e.sink, Clock: e.clock, Deterministic: true})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Upsert(context.Background(), tc.rule)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got := s.devices.TaintRules(); len(got) != 1 {
					t.Fatalf("rules held: %v", got)
				}
				if err := s.Delete(context.Background(), objstore.Ref{Kind: objstore.Kind(dra.KindDeviceTaintRule), Name: "r"}); err != nil {
					t.Fatal(err)
				}
				if err := s.Delete(context.Background(), objstore.Ref{Kind: objstore.Kind(dra.KindDeviceTaintRule), Name: "r"}); !errors.Is(err, ErrNotFound) {
					t.Errorf("second delete: %v, want not found", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want invalid with %q", err, tc.wantErr)
			}
			if got := s.devices.TaintRules(); len(got) != 0 {
				t.Errorf("a refused rule is held: %v", got)
			}
		})
	}
}
