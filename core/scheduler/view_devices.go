package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Claims lists every ResourceClaim with its allocation and consumers
// (reservedFor), sorted by namespace/name; a claim whose allocation is in
// flight (reserved, its bind not yet issued) is shown with it.
func (v View) Claims() []*resourceapi.ResourceClaim { return v.s.devices.Claims() }

// Claim returns one claim as Claims shows it.
func (v View) Claim(namespace, name string) (*resourceapi.ResourceClaim, bool) {
	return v.s.devices.Claim(namespace, name)
}

// DeviceClasses lists the device classes by name.
func (v View) DeviceClasses() []*resourceapi.DeviceClass { return v.s.devices.Classes() }

// ResourceSlices lists the resource slices by name.
func (v View) ResourceSlices() []*resourceapi.ResourceSlice { return v.s.devices.Slices() }

// ClaimTemplates lists the claim templates by namespace/name.
func (v View) ClaimTemplates() []*resourceapi.ResourceClaimTemplate {
	return v.s.devices.Templates()
}

// DeviceTaintRules lists the DeviceTaintRules by name.
func (v View) DeviceTaintRules() []*dra.DeviceTaintRule { return v.s.devices.TaintRules() }

// explainDevices is Explanation.Devices: for each node of the diagnosis
// that DynamicResources rejected, dra.Tracker.Explain on the pod's claims
// as they are now. Explain pays for it, not the scheduling cycle.
func (s *Scheduler) explainDevices(pod *model.Pod, d *Diagnosis) map[string][]string {
	if d == nil || len(pod.ResourceClaims) == 0 {
		return nil
	}
	var claims []*resourceapi.ResourceClaim
	for _, e := range pod.ResourceClaims {
		c, ok := s.devices.CommittedClaim(pod.Namespace, e.ClaimName)
		if !ok {
			return nil // the pod waits for its claims: the gate says so
		}
		claims = append(claims, c)
	}
	out := map[string][]string{}
	for _, nd := range d.Nodes {
		if nd.Plugin != names.DynamicResources {
			continue
		}
		n, ok := s.cache.Node(nd.Node)
		if !ok {
			continue
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
		if why := s.devices.Explain(context.Background(), claims, node); len(why) > 0 {
			out[nd.Node] = why
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// DeviceObjects is a copy of every DRA object the scheduler holds (claims
// with their allocations, in flight included), as simulate.Input.Devices
// takes them; the objects themselves are shared and must not be changed.
func (v View) DeviceObjects() *dra.Objects {
	objs := dra.NewObjects()
	for _, c := range v.s.devices.Classes() {
		objs.Classes[c.Name] = c
	}
	for _, s := range v.s.devices.Slices() {
		objs.Slices[s.Name] = s
	}
	for _, c := range v.s.devices.Claims() {
		objs.Claims[dra.Key(c.Namespace, c.Name)] = c
	}
	for _, t := range v.s.devices.Templates() {
		objs.Templates[dra.Key(t.Namespace, t.Name)] = t
	}
	for _, r := range v.s.devices.TaintRules() {
		objs.TaintRules[r.Name] = r
	}
	return objs
}
