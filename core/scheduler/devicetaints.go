package scheduler

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/framework"
)

// DeviceTaintRules (resource.k8s.io/v1, kube 1.37's DRADeviceTaintRules
// gate, GA and on): a rule's taint is put on the devices it selects before
// the allocator sees them (dra.Tracker), so a device tainted NoSchedule is
// allocated only to a request that tolerates the taint, as in kube; effect
// None only informs. NoExecute in kube also has the device-taint-eviction
// controller evict the running pods whose claims use the device and do not
// tolerate it. Berth runs no such controller, so it refuses a rule with
// that effect (naming the field) rather than take it and leave the pods
// running; a NoExecute taint a driver writes in a ResourceSlice keeps
// devices from new allocations only (docs/devices.md).

// errNoExecuteRule is why a NoExecute rule is refused.
var errNoExecuteRule = &dra.FieldError{Path: "spec.taint.effect",
	Reason: "NoExecute is not supported: Berth does not run kube's device-taint-eviction controller, which evicts the pods using the tainted devices; use NoSchedule to keep the devices from new allocations"}

// setTaintRuleLocked validates and stores a DeviceTaintRule; pods waiting
// for devices are tried again, as on a ResourceSlice update.
func (s *Scheduler) setTaintRuleLocked(ctx context.Context, r *dra.DeviceTaintRule) error {
	if !s.cfg.FeatureGates.Enabled(features.DRADeviceTaintRules) {
		return fmt.Errorf("%s %s: %w: the %s feature gate is off", dra.KindDeviceTaintRule, r.Name, ErrInvalid, features.DRADeviceTaintRules)
	}
	if err := s.validator.DeviceTaintRule(r); err != nil {
		return invalidDevice(dra.KindDeviceTaintRule, r.Name, err)
	}
	if r.Taint.Effect == resourceapi.DeviceTaintEffectNoExecute {
		return invalidDevice(dra.KindDeviceTaintRule, r.Name, errNoExecuteRule)
	}
	s.devices.SetTaintRule(r)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceSlice, false), nil, nil, nil)
	return nil
}

// deleteTaintRuleLocked removes a DeviceTaintRule; its devices may now be
// allocated.
func (s *Scheduler) deleteTaintRuleLocked(ctx context.Context, name string) bool {
	if s.devices.DeleteTaintRule(name) == nil {
		return false
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceSlice, false), nil, nil, nil)
	return true
}
