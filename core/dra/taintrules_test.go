package dra

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
)

func gpuSlice(name, pool string, devices ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{}
	s.Name = name
	s.Spec.Driver, s.Spec.Pool.Name = "gpu.example.com", pool
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	return s
}

// A rule's taint lands on the devices its selector matches, as kube's
// ResourceSlice tracker puts it there; the slice given is not changed.
func TestApplyTaintRules(t *testing.T) {
	taint := resourceapi.DeviceTaint{Key: "example.com/broken", Effect: resourceapi.DeviceTaintEffectNoSchedule}
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name string
		sel  *DeviceTaintSelector
		want []string // devices tainted
	}{
		{name: "no selector matches nothing", sel: nil},
		{name: "empty selector matches all", sel: &DeviceTaintSelector{}, want: []string{"gpu-0", "gpu-1"}},
		{name: "one device", sel: &DeviceTaintSelector{Driver: str("gpu.example.com"), Pool: str("n1"), Device: str("gpu-1")}, want: []string{"gpu-1"}},
		{name: "the pool", sel: &DeviceTaintSelector{Pool: str("n1")}, want: []string{"gpu-0", "gpu-1"}},
		{name: "another pool", sel: &DeviceTaintSelector{Pool: str("n2")}},
		{name: "another driver", sel: &DeviceTaintSelector{Driver: str("nic.example.com")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := gpuSlice("n1-gpus", "n1", "gpu-0", "gpu-1")
			out := applyTaintRules(s, []*DeviceTaintRule{{Name: "r", Selector: tc.sel, Taint: taint}})
			var got []string
			for _, d := range out.Spec.Devices {
				if len(d.Taints) > 0 {
					got = append(got, d.Name)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tainted devices (-want +got):\n%s", diff)
			}
			for _, d := range s.Spec.Devices {
				if len(d.Taints) > 0 {
					t.Errorf("the slice given was changed: %s tainted", d.Name)
				}
			}
		})
	}
}

// The allocator sees the rules through the tracker's snapshot, and stops
// seeing a rule once it is deleted; an unchanged slice keeps its patched
// copy between snapshots.
func TestTrackerTaintRules(t *testing.T) {
	tr := NewTracker()
	tr.SetSlice(gpuSlice("n1-gpus", "n1", "gpu-0"))
	tr.SetTaintRule(&DeviceTaintRule{Name: "r", Selector: &DeviceTaintSelector{}, Taint: resourceapi.DeviceTaint{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule}})
	tr.mu.Lock()
	a, _ := tr.snapshotLocked()
	b, _ := tr.snapshotLocked()
	tr.mu.Unlock()
	if n := len(a.Slices["n1-gpus"].Spec.Devices[0].Taints); n != 1 {
		t.Fatalf("%d taints on the device, want the rule's", n)
	}
	if a.Slices["n1-gpus"] != b.Slices["n1-gpus"] {
		t.Error("the patched slice was made again for an unchanged slice and rules")
	}
	if tr.Slices()[0].Spec.Devices[0].Taints != nil {
		t.Error("Slices lists the patched slice, want the one sent")
	}
	tr.DeleteTaintRule("r")
	tr.mu.Lock()
	c, _ := tr.snapshotLocked()
	tr.mu.Unlock()
	if n := len(c.Slices["n1-gpus"].Spec.Devices[0].Taints); n != 0 {
		t.Errorf("%d taints after the rule was deleted", n)
	}
}

// Validation names the field, as kube-apiserver does.
func TestValidateDeviceTaintRule(t *testing.T) {
	str := func(s string) *string { return &s }
	ok := resourceapi.DeviceTaint{Key: "example.com/k", Value: "v", Effect: resourceapi.DeviceTaintEffectNoSchedule}
	for _, tc := range []struct {
		name     string
		rule     DeviceTaintRule
		wantPath string
	}{
		{name: "valid", rule: DeviceTaintRule{Name: "r", Selector: &DeviceTaintSelector{Driver: str("gpu.example.com"), Pool: str("a/b"), Device: str("gpu-0")}, Taint: ok}},
		{name: "no name", rule: DeviceTaintRule{Taint: ok}, wantPath: "metadata.name"},
		{name: "bad driver", rule: DeviceTaintRule{Name: "r", Selector: &DeviceTaintSelector{Driver: str("GPU")}, Taint: ok}, wantPath: "spec.deviceSelector.driver"},
		{name: "bad pool", rule: DeviceTaintRule{Name: "r", Selector: &DeviceTaintSelector{Pool: str("a//b")}, Taint: ok}, wantPath: "spec.deviceSelector.pool"},
		{name: "bad device", rule: DeviceTaintRule{Name: "r", Selector: &DeviceTaintSelector{Device: str("gpu.0")}, Taint: ok}, wantPath: "spec.deviceSelector.device"},
		{name: "no key", rule: DeviceTaintRule{Name: "r", Taint: resourceapi.DeviceTaint{Effect: "None"}}, wantPath: "spec.taint.key"},
		{name: "bad value", rule: DeviceTaintRule{Name: "r", Taint: resourceapi.DeviceTaint{Key: "k", Value: "a b", Effect: "None"}}, wantPath: "spec.taint.value"},
		{name: "no effect", rule: DeviceTaintRule{Name: "r", Taint: resourceapi.DeviceTaint{Key: "k"}}, wantPath: "spec.taint.effect"},
		{name: "PreferNoSchedule", rule: DeviceTaintRule{Name: "r", Taint: resourceapi.DeviceTaint{Key: "k", Effect: "PreferNoSchedule"}}, wantPath: "spec.taint.effect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := NewValidator().DeviceTaintRule(&tc.rule)
			got := ""
			if err != nil {
				fe, isField := err.(*FieldError)
				if !isField {
					t.Fatalf("error %v is not a FieldError", err)
				}
				got = fe.Path
			}
			if got != tc.wantPath {
				t.Errorf("path %q (%v), want %q", got, err, tc.wantPath)
			}
		})
	}
}
