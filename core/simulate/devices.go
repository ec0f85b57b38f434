package simulate

import (
	"context"
	"fmt"
	"maps"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
)

// loadDevices gives the scheduler the DRA objects: classes, slices and
// templates, then the claims (those made for pods from templates
// included), each kind in name order.
func (e *Engine) loadDevices(ctx context.Context, objs *dra.Objects) error {
	if objs == nil {
		return nil
	}
	var all []any
	for _, k := range slices.Sorted(maps.Keys(objs.Classes)) {
		all = append(all, objs.Classes[k])
	}
	for _, k := range slices.Sorted(maps.Keys(objs.Slices)) {
		all = append(all, objs.Slices[k])
	}
	for _, k := range slices.Sorted(maps.Keys(objs.TaintRules)) {
		all = append(all, objs.TaintRules[k])
	}
	for _, k := range slices.Sorted(maps.Keys(objs.Templates)) {
		all = append(all, objs.Templates[k])
	}
	for _, k := range slices.Sorted(maps.Keys(objs.Claims)) {
		all = append(all, objs.Claims[k])
	}
	for _, o := range all {
		if err := e.s.Upsert(ctx, o); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	return nil
}

// deviceKind is the kind and identity of a DRA object, ok false when o is
// not one.
func deviceKind(o any) (kind string, ref objstore.Ref, ok bool) {
	meta := func(m metav1.ObjectMeta) objstore.Ref { return objstore.Ref{Namespace: m.Namespace, Name: m.Name} }
	switch d := o.(type) {
	case *resourceapi.DeviceClass:
		return dra.KindDeviceClass, meta(d.ObjectMeta), d != nil
	case *resourceapi.ResourceSlice:
		return dra.KindResourceSlice, meta(d.ObjectMeta), d != nil
	case *resourceapi.ResourceClaim:
		return dra.KindResourceClaim, meta(d.ObjectMeta), d != nil
	case *resourceapi.ResourceClaimTemplate:
		return dra.KindResourceClaimTemplate, meta(d.ObjectMeta), d != nil
	case *dra.DeviceTaintRule:
		if d == nil {
			return "", objstore.Ref{}, false
		}
		return dra.KindDeviceTaintRule, objstore.Ref{Name: d.Name}, true
	}
	return "", objstore.Ref{}, false
}

// claimLines is the claims part of a bound pod's line: per claim entry,
// the claim and its devices.
func claimLines(pod *model.Pod, claims []*resourceapi.ResourceClaim) map[string]ClaimLine {
	if len(pod.ResourceClaims) == 0 || claims == nil {
		return nil
	}
	byName := make(map[string]*resourceapi.ResourceClaim, len(claims))
	for _, c := range claims {
		byName[c.Name] = c
	}
	out := make(map[string]ClaimLine, len(pod.ResourceClaims))
	for _, e := range pod.ResourceClaims {
		l := ClaimLine{Claim: dra.Key(pod.Namespace, e.ClaimName)}
		if c := byName[e.ClaimName]; c != nil && c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				l.Devices = append(l.Devices, r.Driver+"/"+r.Pool+"/"+r.Device)
			}
		}
		out[e.Name] = l
	}
	return out
}

// bindClaims records the claims of the pod bound.
func (s *sink) bindClaims(pod *model.Pod, claims []*resourceapi.ResourceClaim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.boundClaims = claimLines(pod, claims)
}

// deallocate records a claim deallocated during the attempt.
func (s *sink) deallocate(c *resourceapi.ResourceClaim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deallocated = append(s.deallocated, dra.Key(c.Namespace, c.Name))
}

// takeDevices returns what the attempt did to claims and forgets it.
func (s *sink) takeDevices() (bound map[string]ClaimLine, deallocated []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bound, deallocated = s.boundClaims, s.deallocated
	s.boundClaims, s.deallocated = nil, nil
	slices.Sort(deallocated)
	return bound, deallocated
}
