package convert

import (
	"google.golang.org/protobuf/types/known/timestamppb"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
)

// Device taints, tolerations and DeviceTaintRules. A rule is validated by
// core/dra (kube-apiserver's rules, kube's paths translated to the
// proto's); the scheduler refuses its NO_EXECUTE effect. Taints in slices
// and tolerations in requests are checked here, as kube-apiserver does.

func deviceTaintEffects() enumNames[berthv1.DeviceTaintEffect, resourceapi.DeviceTaintEffect] {
	return enumNames[berthv1.DeviceTaintEffect, resourceapi.DeviceTaintEffect]{"",
		resourceapi.DeviceTaintEffectNone, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute}
}

func deviceTolerationOperators() enumNames[berthv1.DeviceTolerationOperator, resourceapi.DeviceTolerationOperator] {
	return enumNames[berthv1.DeviceTolerationOperator, resourceapi.DeviceTolerationOperator]{"",
		resourceapi.DeviceTolerationOpEqual, resourceapi.DeviceTolerationOpExists}
}

func deviceTaintRule(p path, in *berthv1.DeviceTaintRule) (*dra.DeviceTaintRule, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	out := &dra.DeviceTaintRule{Name: in.GetName()}
	if sel := in.GetDeviceSelector(); sel != nil {
		out.Selector = &dra.DeviceTaintSelector{Driver: sel.Driver, Pool: sel.Pool, Device: sel.Device}
	}
	if in.GetTaint() == nil {
		return nil, p.field("taint").errorf("required")
	}
	t, fe := deviceTaintFromProto(p.field("taint"), in.GetTaint())
	if fe != nil {
		return nil, fe
	}
	out.Taint = t
	return out, draError(p, dra.NewValidator().DeviceTaintRule(out))
}

func deviceTaintFromProto(p path, in *berthv1.DeviceTaint) (resourceapi.DeviceTaint, *FieldError) {
	effect, fe := deviceTaintEffects().model(p.field("effect"), in.GetEffect(), false)
	if fe != nil {
		return resourceapi.DeviceTaint{}, fe
	}
	if fe := qualifiedName(p.field("key"), in.GetKey()); fe != nil {
		return resourceapi.DeviceTaint{}, fe
	}
	if fe := labelValue(p.field("value"), in.GetValue()); fe != nil {
		return resourceapi.DeviceTaint{}, fe
	}
	out := resourceapi.DeviceTaint{Key: in.GetKey(), Value: in.GetValue(), Effect: effect}
	if ts := in.GetTimeAdded(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return resourceapi.DeviceTaint{}, p.field("time_added").errorf("%v", err)
		}
		out.TimeAdded = &metav1.Time{Time: ts.AsTime()}
	}
	return out, nil
}

func deviceTaintsFromProto(p path, in []*berthv1.DeviceTaint) ([]resourceapi.DeviceTaint, *FieldError) {
	if len(in) == 0 {
		return nil, nil
	}
	if fe := overCap(p, len(in), resourceapi.DeviceTaintsMaxLength); fe != nil {
		return nil, fe
	}
	out := make([]resourceapi.DeviceTaint, 0, len(in))
	for i, t := range in {
		dt, fe := deviceTaintFromProto(p.index(i), t)
		if fe != nil {
			return nil, fe
		}
		out = append(out, dt)
	}
	return out, nil
}

func deviceTolerationsFromProto(p path, in []*berthv1.DeviceToleration) ([]resourceapi.DeviceToleration, *FieldError) {
	if len(in) == 0 {
		return nil, nil
	}
	if fe := overCap(p, len(in), resourceapi.DeviceTolerationsMaxLength); fe != nil {
		return nil, fe
	}
	ops, effects := deviceTolerationOperators(), deviceTaintEffects()
	out := make([]resourceapi.DeviceToleration, 0, len(in))
	for i, t := range in {
		tp := p.index(i)
		op, fe := ops.model(tp.field("operator"), t.GetOperator(), true)
		if fe != nil {
			return nil, fe
		}
		if op == "" {
			op = resourceapi.DeviceTolerationOpEqual
		}
		effect, fe := effects.model(tp.field("effect"), t.GetEffect(), true)
		if fe != nil {
			return nil, fe
		}
		if t.GetKey() == "" {
			if op != resourceapi.DeviceTolerationOpExists {
				return nil, tp.field("operator").errorf("must be DEVICE_TOLERATION_OPERATOR_EXISTS when key is empty")
			}
		} else if fe := qualifiedName(tp.field("key"), t.GetKey()); fe != nil {
			return nil, fe
		}
		if op == resourceapi.DeviceTolerationOpExists && t.GetValue() != "" {
			return nil, tp.field("value").errorf("must be empty when operator is DEVICE_TOLERATION_OPERATOR_EXISTS")
		}
		if fe := labelValue(tp.field("value"), t.GetValue()); fe != nil {
			return nil, fe
		}
		if t.TolerationSeconds != nil && effect != resourceapi.DeviceTaintEffectNoExecute {
			return nil, tp.field("toleration_seconds").errorf("may only be set when effect is DEVICE_TAINT_EFFECT_NO_EXECUTE")
		}
		out = append(out, resourceapi.DeviceToleration{Key: t.GetKey(), Operator: op, Value: t.GetValue(), Effect: effect, TolerationSeconds: t.TolerationSeconds})
	}
	return out, nil
}

// DeviceTaintRuleToProto is the wire form of a rule.
func DeviceTaintRuleToProto(in *dra.DeviceTaintRule) *berthv1.DeviceTaintRule {
	out := &berthv1.DeviceTaintRule{Name: in.Name, Taint: deviceTaintToProto(in.Taint)}
	if sel := in.Selector; sel != nil {
		out.DeviceSelector = &berthv1.DeviceTaintSelector{Driver: sel.Driver, Pool: sel.Pool, Device: sel.Device}
	}
	return out
}

func deviceTaintToProto(in resourceapi.DeviceTaint) *berthv1.DeviceTaint {
	out := &berthv1.DeviceTaint{Key: in.Key, Value: in.Value, Effect: deviceTaintEffects().proto(in.Effect)}
	if in.TimeAdded != nil {
		out.TimeAdded = timestamppb.New(in.TimeAdded.Time)
	}
	return out
}

func deviceTaintsToProto(in []resourceapi.DeviceTaint) []*berthv1.DeviceTaint {
	var out []*berthv1.DeviceTaint
	for _, t := range in {
		out = append(out, deviceTaintToProto(t))
	}
	return out
}

func deviceTolerationsToProto(in []resourceapi.DeviceToleration) []*berthv1.DeviceToleration {
	var out []*berthv1.DeviceToleration
	for _, t := range in {
		op := deviceTolerationOperators().proto(t.Operator)
		out = append(out, &berthv1.DeviceToleration{Key: t.Key, Operator: op, Value: t.Value,
			Effect: deviceTaintEffects().proto(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	return out
}
