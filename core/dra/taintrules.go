package dra

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// KindDeviceTaintRule is resource.k8s.io's DeviceTaintRule.
const KindDeviceTaintRule = "DeviceTaintRule"

// DeviceTaintRule is kube's resource.k8s.io/v1 DeviceTaintRule (GA in
// 1.37, gate DRADeviceTaintRules) as the scheduler reads it: one taint put
// on every device its selector matches, as if the driver had written it
// in the device's ResourceSlice. Berth's k8s.io/api (v0.36) has the type
// only as v1beta2, of the same shape; this is its v1 spelling.
type DeviceTaintRule struct {
	Name string
	// Selector picks the devices; nil matches none, an empty one every
	// device.
	Selector *DeviceTaintSelector
	Taint    resourceapi.DeviceTaint
}

// DeviceTaintSelector matches devices by driver, pool and device name;
// each field left nil matches any.
type DeviceTaintSelector struct {
	Driver, Pool, Device *string
}

// matchesSlice reports whether the selector can match devices of s.
func (sel *DeviceTaintSelector) matchesSlice(s *resourceapi.ResourceSlice) bool {
	return sel != nil && (sel.Driver == nil || *sel.Driver == s.Spec.Driver) && (sel.Pool == nil || *sel.Pool == s.Spec.Pool.Name)
}

// DeviceTaintRule checks a rule as kube-apiserver does: a name, a
// selector whose fields are a driver name, a pool name and a device name,
// and a taint with a key, a value and one of the effects None, NoSchedule,
// NoExecute.
func (v *Validator) DeviceTaintRule(r *DeviceTaintRule) error {
	if fe := subdomain("metadata.name", r.Name); fe != nil {
		return fe
	}
	if sel := r.Selector; sel != nil {
		if sel.Driver != nil {
			if fe := subdomain("spec.deviceSelector.driver", *sel.Driver); fe != nil {
				return fe
			}
			if len(*sel.Driver) > resourceapi.DriverNameMaxLength {
				return fieldErr("spec.deviceSelector.driver", "must be at most %d characters", resourceapi.DriverNameMaxLength)
			}
		}
		if sel.Pool != nil {
			if fe := pool("spec.deviceSelector.pool", resourceapi.ResourcePool{Name: *sel.Pool, ResourceSliceCount: 1}); fe != nil {
				return &FieldError{Path: "spec.deviceSelector.pool", Reason: fe.Reason}
			}
		}
		if sel.Device != nil {
			if fe := dnsLabel("spec.deviceSelector.device", *sel.Device); fe != nil {
				return fe
			}
		}
	}
	if fe := deviceTaint("spec.taint", r.Taint); fe != nil {
		return fe
	}
	return nil
}

// deviceTaint checks a taint: a label key, a label value and a known
// effect.
func deviceTaint(path string, t resourceapi.DeviceTaint) *FieldError {
	if t.Key == "" {
		return fieldErr(path+".key", "required")
	}
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		return fieldErr(path+".key", "%q: %s", t.Key, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
		return fieldErr(path+".value", "%q: %s", t.Value, strings.Join(errs, "; "))
	}
	switch t.Effect {
	case resourceapi.DeviceTaintEffectNone, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute:
	case "":
		return fieldErr(path+".effect", "required")
	default:
		return fieldErr(path+".effect", "unsupported value %q: supported values: %q, %q, %q", t.Effect,
			resourceapi.DeviceTaintEffectNone, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNoSchedule)
	}
	return nil
}

// taintRules are the tracker's DeviceTaintRules and the slices as the
// allocator sees them, each rule's taint added to the devices it matches
// (kube's ResourceSlice tracker does the same before the scheduler's
// allocator reads them). Patched slices are kept while neither their slice
// nor the rules change, so the memo, kept per slice object, stays warm.
type taintRules struct {
	rules map[string]*DeviceTaintRule // by name
	// patched is, per slice name, the slice the allocator sees and the
	// slice it was made from.
	patched map[string][2]*resourceapi.ResourceSlice
}

func newTaintRules() *taintRules {
	return &taintRules{rules: map[string]*DeviceTaintRule{}, patched: map[string][2]*resourceapi.ResourceSlice{}}
}

// set adds or replaces a rule and returns the previous one.
func (tr *taintRules) set(r *DeviceTaintRule, memo *SelectorMemo) *DeviceTaintRule {
	old := tr.rules[r.Name]
	tr.rules[r.Name] = r
	tr.reset(memo)
	return old
}

// delete removes a rule and returns it, nil if unknown.
func (tr *taintRules) delete(name string, memo *SelectorMemo) *DeviceTaintRule {
	old := tr.rules[name]
	if old != nil {
		delete(tr.rules, name)
		tr.reset(memo)
	}
	return old
}

// reset drops the patched slices: the rules changed.
func (tr *taintRules) reset(memo *SelectorMemo) {
	for _, p := range tr.patched {
		if p[0] != p[1] {
			memo.forget(p[0])
		}
	}
	clear(tr.patched)
}

// list returns the rules by name.
func (tr *taintRules) list() []*DeviceTaintRule {
	return slices.SortedFunc(maps.Values(tr.rules), func(a, b *DeviceTaintRule) int { return strings.Compare(a.Name, b.Name) })
}

// slices returns a copy of raw (slices by name) with the rules applied:
// a slice no rule matches is itself.
func (tr *taintRules) slices(raw map[string]*resourceapi.ResourceSlice, memo *SelectorMemo) map[string]*resourceapi.ResourceSlice {
	out := maps.Clone(raw)
	if len(tr.rules) == 0 {
		return out
	}
	rules := tr.list()
	for name, s := range raw {
		if p, ok := tr.patched[name]; ok && p[1] == s {
			out[name] = p[0]
			continue
		}
		if p, ok := tr.patched[name]; ok && p[0] != p[1] {
			memo.forget(p[0])
		}
		ps := applyTaintRules(s, rules)
		if ps != s {
			memo.admit(ps)
		}
		tr.patched[name] = [2]*resourceapi.ResourceSlice{ps, s}
		out[name] = ps
	}
	for name := range tr.patched {
		if _, ok := raw[name]; !ok {
			delete(tr.patched, name)
		}
	}
	return out
}

// applyTaintRules returns s with each rule's taint appended to the devices
// it matches, in rule order; s itself when none matches (s is not
// modified).
func applyTaintRules(s *resourceapi.ResourceSlice, rules []*DeviceTaintRule) *resourceapi.ResourceSlice {
	out := s
	for _, r := range rules {
		if !r.Selector.matchesSlice(s) {
			continue
		}
		for i, d := range s.Spec.Devices {
			if r.Selector.Device != nil && *r.Selector.Device != d.Name {
				continue
			}
			if out == s {
				out = s.DeepCopy()
			}
			out.Spec.Devices[i].Taints = append(out.Spec.Devices[i].Taints, r.Taint)
		}
	}
	return out
}

// SetTaintRule adds or replaces a DeviceTaintRule (validated); it returns
// the previous version, nil if there was none.
func (t *Tracker) SetTaintRule(r *DeviceTaintRule) *DeviceTaintRule {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.devicesChangedLocked()
	return t.taints.set(r, t.memo)
}

// DeleteTaintRule removes a DeviceTaintRule and returns it, nil if
// unknown. Claims allocated on the devices it tainted stay allocated.
func (t *Tracker) DeleteTaintRule(name string) *DeviceTaintRule {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.devicesChangedLocked()
	return t.taints.delete(name, t.memo)
}

// TaintRules lists the DeviceTaintRules by name.
func (t *Tracker) TaintRules() []*DeviceTaintRule {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.taints.list()
}

// String names the rule's selector and taint, for logs and errors.
func (r *DeviceTaintRule) String() string {
	return fmt.Sprintf("%s (%s=%s:%s)", r.Name, r.Taint.Key, r.Taint.Value, r.Taint.Effect)
}
