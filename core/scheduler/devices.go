package scheduler

import (
	"context"
	"errors"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// ErrDeviceObjectNotFound: a delete names a DRA object the scheduler does
// not hold.
var ErrDeviceObjectNotFound = fmt.Errorf("device object %w", ErrNotFound)

// DeallocationReason is the reason a Deallocation gives for claims
// freed because the last pod using them was deleted.
const DeallocationReason = "the last pod using the claim is gone"

// upsertDeviceObject adds or replaces a DRA object: a
// *resourceapi.DeviceClass, *resourceapi.ResourceSlice,
// *resourceapi.ResourceClaim or *resourceapi.ResourceClaimTemplate
// (k8s.io/api/resource/v1), or a *dra.DeviceTaintRule (devicetaints.go;
// not modified, a claim or template without a
// namespace is put in "default" and defaulted as kube-apiserver does).
// An invalid object is refused with an error wrapping ErrInvalid and the
// *dra.FieldError naming the field; a claim sent without an allocation
// keeps the one the scheduler holds (dra.Tracker.SetClaim). Pods waiting
// for the object are requeued by DynamicResources' queueing hints; a new
// template makes the claims of the pods that use it.
func (s *Scheduler) upsertDeviceObject(ctx context.Context, obj any) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	v := s.validator
	switch o := obj.(type) {
	case *resourceapi.DeviceClass:
		if o == nil {
			break
		}
		if err := v.DeviceClass(o); err != nil {
			return invalidDevice(dra.KindDeviceClass, o.Name, err)
		}
		old := s.devices.SetClass(o)
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventDeviceClass, old == nil), old, o, nil)
		return nil
	case *resourceapi.ResourceSlice:
		if o == nil {
			break
		}
		if err := v.ResourceSlice(o); err != nil {
			return invalidDevice(dra.KindResourceSlice, o.Name, err)
		}
		old := s.devices.SetSlice(o)
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceSlice, old == nil), old, o, nil)
		return nil
	case *resourceapi.ResourceClaim:
		if o == nil {
			break
		}
		c := o.DeepCopy()
		defaultNamespace(&c.ObjectMeta)
		dra.DefaultClaimSpec(&c.Spec)
		if err := v.ResourceClaim(c); err != nil {
			return invalidDevice(dra.KindResourceClaim, dra.Key(c.Namespace, c.Name), err)
		}
		ch, err := s.devices.SetClaim(c)
		if err != nil {
			// errors.Is finds dra.ErrClaimSpecImmutable too.
			fe := &dra.FieldError{Path: "spec", Reason: "cannot change while the claim is allocated"}
			return fmt.Errorf("%s %s: %w: %w: %w", dra.KindResourceClaim, dra.Key(c.Namespace, c.Name), ErrInvalid, fe, err)
		}
		s.claimEvents(ctx, []dra.ClaimChange{ch})
		return nil
	case *resourceapi.ResourceClaimTemplate:
		if o == nil {
			break
		}
		tm := o.DeepCopy()
		defaultNamespace(&tm.ObjectMeta)
		dra.DefaultClaimSpec(&tm.Spec.Spec)
		if err := v.ResourceClaimTemplate(tm); err != nil {
			return invalidDevice(dra.KindResourceClaimTemplate, dra.Key(tm.Namespace, tm.Name), err)
		}
		s.devices.SetTemplate(tm)
		s.makeTemplateClaimsLocked(ctx, tm)
		return nil
	case *dra.DeviceTaintRule:
		if o == nil {
			break
		}
		return s.setTaintRuleLocked(ctx, o) // devicetaints.go
	}
	return fmt.Errorf("upsert device object: %T is not a DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceTaintRule: %w", obj, ErrInvalid)
}

// deleteDeviceObject removes a DRA object by kind (dra.KindDeviceClass,
// ...), namespace (claims and templates; "" means "default") and name.
// An unknown object is ErrDeviceObjectNotFound, an unknown kind
// ErrInvalid. Deleting an allocated claim frees its devices (pods using
// it wait for it again); claims made from a deleted template stay.
func (s *Scheduler) deleteDeviceObject(ctx context.Context, kind, namespace, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	found := false
	switch kind {
	case dra.KindDeviceClass:
		found = s.devices.DeleteClass(name) != nil
	case dra.KindResourceSlice:
		found = s.devices.DeleteSlice(name) != nil
	case dra.KindResourceClaimTemplate:
		found = s.devices.DeleteTemplate(namespace, name) != nil
	case dra.KindResourceClaim:
		if old := s.devices.DeleteClaim(namespace, name); old != nil {
			found = true
			s.claimEvents(ctx, []dra.ClaimChange{{Old: old}})
		}
	case dra.KindDeviceTaintRule:
		found = s.deleteTaintRuleLocked(ctx, name) // devicetaints.go
	default:
		return fmt.Errorf("delete device object: kind %q is not DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate or DeviceTaintRule: %w", kind, ErrInvalid)
	}
	if !found {
		return fmt.Errorf("delete %s %s: %w", kind, deviceName(kind, namespace, name), ErrDeviceObjectNotFound)
	}
	return nil
}

// forgetUnknownClaimConsumers drops from the claims the pods the
// scheduler does not hold (deleted while it was down), deletes the claims
// made for such pods and deallocates claims left without consumers,
// reporting those as Deallocations (Resynced); it returns the claims
// deallocated.
func (s *Scheduler) forgetUnknownClaimConsumers(ctx context.Context) ([]*resourceapi.ResourceClaim, error) {
	// No cycle sees a device freed here before its DeallocateClaim is
	// durable: in kube the deallocation is written before the scheduler
	// learns of it, so no Bind of the device precedes it in the log.
	release, err := s.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	s.ingestMu.Lock()
	changes := s.devices.ForgetConsumers(func(uid string) bool {
		_, ok := s.state.lookup(uid)
		return ok
	})
	s.ingestMu.Unlock()
	freed := freedClaims(changes)
	err = s.reportDeallocations(ctx, freed)
	// The pods waiting for the devices are tried again once the
	// deallocations are durable, as kube's informer brings the claims'
	// updates back after they were written.
	s.ingestMu.Lock()
	s.claimEvents(ctx, changes)
	s.ingestMu.Unlock()
	return freed, err
}

// removePodClaimsLocked is the pod deleted, for its claims (the
// resourceclaim controller's part): it returns the claims that freed
// devices, for reportDeallocations once ingestMu is released.
func (s *Scheduler) removePodClaimsLocked(ctx context.Context, pod *model.Pod) []*resourceapi.ResourceClaim {
	if len(pod.ResourceClaims) == 0 {
		return nil
	}
	changes := s.devices.RemovePod(pod)
	s.claimEvents(ctx, changes)
	return freedClaims(changes)
}

// addPodClaimsLocked makes the claims of the pod's template entries.
func (s *Scheduler) addPodClaimsLocked(ctx context.Context, pod *model.Pod) {
	if len(pod.ResourceClaims) == 0 {
		return
	}
	for _, c := range s.devices.AddPod(pod) {
		s.claimEvents(ctx, []dra.ClaimChange{{New: c}})
	}
}

// makeTemplateClaimsLocked makes the claims of the held pods whose
// entries name the template.
func (s *Scheduler) makeTemplateClaimsLocked(ctx context.Context, tm *resourceapi.ResourceClaimTemplate) {
	for _, p := range s.state.sortedPods() {
		if p.Namespace != tm.Namespace {
			continue
		}
		for _, e := range p.ResourceClaims {
			if e.TemplateName == tm.Name {
				s.addPodClaimsLocked(ctx, p)
				break
			}
		}
	}
}

// reportDeallocations tells the sink about claims freed; it is called
// without ingestMu, as the sink may block until the decision is durable.
func (s *Scheduler) reportDeallocations(ctx context.Context, claims []*resourceapi.ResourceClaim) error {
	if len(claims) == 0 {
		return nil
	}
	if err := s.deallocate(ctx, claims, DeallocationReason, false); err != nil {
		return fmt.Errorf("reporting %d deallocated claims: %w", len(claims), err)
	}
	return nil
}

// claimEvents raises the ResourceClaim events of changes: an add, an
// update, or, for a deleted claim that held devices, an update to
// unallocated (the devices are free, as kube's deallocation before the
// delete would say).
func (s *Scheduler) claimEvents(ctx context.Context, changes []dra.ClaimChange) {
	for _, ch := range changes {
		switch {
		case ch.Old == nil && ch.New != nil:
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceClaim, true), nil, ch.New, nil)
		case ch.New != nil:
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceClaim, false), ch.Old, ch.New, nil)
		case ch.Freed():
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, deviceEvent(framework.EventResourceClaim, false), ch.Old, unallocated(ch.Old), nil)
		}
	}
}

// unallocated is a copy of c without allocation and consumers.
func unallocated(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	cp := c.DeepCopy()
	cp.Status.Allocation, cp.Status.ReservedFor, cp.Status.Devices = nil, nil, nil
	return cp
}

// freedClaims lists the claims (as they were allocated) whose devices
// the changes freed.
func freedClaims(changes []dra.ClaimChange) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, ch := range changes {
		if ch.Freed() {
			out = append(out, ch.Old)
		}
	}
	return out
}

func deviceEvent(r framework.EventResource, add bool) framework.ClusterEvent {
	if add {
		return objectEvent(r, framework.ActionAdd, string(r)+"Add")
	}
	return objectEvent(r, framework.ActionUpdateOther, string(r)+"Update")
}

func defaultNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = metav1.NamespaceDefault
	}
}

// invalidDevice wraps a validation failure: errors.Is(err, ErrInvalid),
// and errors.As finds the *dra.FieldError naming the field.
func invalidDevice(kind, name string, err error) error {
	var fe *dra.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s %s: %w: %w", kind, name, ErrInvalid, fe)
	}
	return fmt.Errorf("%s %s: %w: %w", kind, name, ErrInvalid, err)
}

func deviceName(kind, namespace, name string) string {
	if kind == dra.KindResourceClaim || kind == dra.KindResourceClaimTemplate {
		return dra.Key(namespace, name)
	}
	return name
}
