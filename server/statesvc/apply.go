package statesvc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// objectKey identifies an object across its upserts: its kind, namespace
// (for namespaced kinds) and name, as convert.Ref.Key does, kept apart so
// that no key string is built per upsert.
type objectKey struct {
	kind      berthv1.ObjectKind
	namespace string
	name      string
}

func keyOf(kind berthv1.ObjectKind, namespace, name string) objectKey {
	if !convert.Namespaced(kind) {
		namespace = ""
	}
	return objectKey{kind, namespace, name}
}

func refKey(r convert.Ref) objectKey { return keyOf(r.Kind, r.Namespace, r.Name) }

// upsertKey is the key of the object an upsert names, as far as it can be
// read without validating it (convert.ObjectRefOf's reading, without
// building the ObjectRef); ok is false when it names none.
func upsertKey(in *berthv1.Object) (key objectKey, ok bool) {
	switch k := in.GetKind().(type) {
	case *berthv1.Object_Node:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_NODE, "", k.Node.GetName())
	case *berthv1.Object_Pod:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_POD, k.Pod.GetNamespace(), k.Pod.GetName())
	case *berthv1.Object_PriorityClass:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, "", k.PriorityClass.GetName())
	case *berthv1.Object_PodDisruptionBudget:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, k.PodDisruptionBudget.GetNamespace(), k.PodDisruptionBudget.GetName())
	case *berthv1.Object_Namespace:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_NAMESPACE, "", k.Namespace.GetName())
	case *berthv1.Object_PodGroup:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_POD_GROUP, k.PodGroup.GetNamespace(), k.PodGroup.GetName())
	case *berthv1.Object_CompositePodGroup:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP, k.CompositePodGroup.GetNamespace(), k.CompositePodGroup.GetName())
	case *berthv1.Object_DeviceClass:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, "", k.DeviceClass.GetName())
	case *berthv1.Object_ResourceSlice:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, "", k.ResourceSlice.GetName())
	case *berthv1.Object_ResourceClaim:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, k.ResourceClaim.GetNamespace(), k.ResourceClaim.GetName())
	case *berthv1.Object_ResourceClaimTemplate:
		key = keyOf(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, k.ResourceClaimTemplate.GetNamespace(), k.ResourceClaimTemplate.GetName())
	default:
		ref := convert.ObjectRefOf(in)
		if ref == nil {
			return objectKey{}, false
		}
		ns := ref.GetNamespace()
		if ns == "" && convert.Namespaced(ref.GetKind()) {
			ns = "default" // storage objects' namespace defaults, as convert does
		}
		key = keyOf(ref.GetKind(), ns, ref.GetName())
	}
	return key, key.name != ""
}

// upsertLocked converts and applies one object. Any upsert naming an
// object Berth holds, applied or refused, counts as re-sending it for the
// resyncs open (an object the caller still lists is not deleted because
// this version of it was refused: Berth keeps the version it holds).
func (s *Service) upsertLocked(ctx context.Context, in *berthv1.Object) (err error) {
	if key, ok := upsertKey(in); ok {
		defer func() {
			// Objects are in upserted from their first applied upsert to
			// their deletion: a refused upsert of an object Berth does not
			// hold leaves nothing behind.
			// (An applied upsert needs no lookup.)
			if err == nil || s.upsertedHolds(key) {
				s.seq++
				s.upserted[key] = s.seq
			}
		}()
	}
	// The version of the pod held, if any: an update (a bind confirmed)
	// shares its unchanged parts and needs no lookup by name.
	var held *model.Pod
	if uid := in.GetPod().GetUid(); uid != "" {
		held, _ = s.cluster.Pod(uid)
	}
	obj, err := convert.ObjectFromProtoHeld(in, held)
	if err != nil {
		return err
	}
	if obj.Pod != nil {
		return s.upsertPodLocked(ctx, obj.Pod, held)
	}
	kind := obj.Kind()
	if err := s.cluster.Upsert(ctx, obj.Value()); err != nil {
		return wireError(kind, err)
	}
	if sent, ok := s.sent[kind]; ok {
		sent[obj.Ref().Key()] = true
	}
	return nil
}

// notFound reports whether err says the object to delete is not held: the
// scheduler's kinds and the queueing objects' holder each say it their way.
func notFound(err error) bool {
	return errors.Is(err, scheduler.ErrNotFound) || errors.Is(err, holder.ErrNotFound)
}

// wireError gives a DRA, storage or queueing object's refusal its path in
// the wire message.
func wireError(kind berthv1.ObjectKind, err error) error {
	if convert.DeviceKind(kind) {
		return convert.DeviceError(kind, err)
	}
	if convert.QueueKind(kind) {
		return convert.QueueError(kind, err)
	}
	if _, ok := convert.VolumeKind(kind); ok {
		return convert.VolumeError(kind, err)
	}
	return err
}

func (s *Service) upsertedHolds(key objectKey) bool {
	_, held := s.upserted[key]
	return held
}

// upsertPodLocked adds or updates a pod. A pod held under the same
// namespace and name with another uid is deleted first, once the new one is
// known to be admissible. Without one to replace, the Upsert's own
// admission refuses the pod with the error CheckAdmission would have
// given. held is the pod held under pod's uid, nil if none.
func (s *Service) upsertPodLocked(ctx context.Context, pod, held *model.Pod) error {
	if held != nil && held.Namespace == pod.Namespace && held.Name == pod.Name {
		// The pod held under this uid has this name: it is the one held
		// under the name (only this function adds pods, and it replaces
		// any other of the name), and the upsert updates it.
		return s.cluster.Upsert(ctx, pod)
	}
	if old, ok := s.findPod(pod.Namespace, pod.Name); ok && old.UID != pod.UID {
		if err := s.cluster.CheckAdmission(pod); err != nil {
			return err
		}
		if err := s.deletePodLocked(ctx, old); err != nil {
			return fmt.Errorf("replacing pod %s (uid %s): %w", old.Key(), old.UID, err)
		}
	}
	return s.cluster.Upsert(ctx, pod)
}

// findPod returns the pod held under namespace/name.
func (s *Service) findPod(namespace, name string) (*model.Pod, bool) {
	ex, err := s.cluster.Explain(namespace, name)
	if err != nil || ex.Pod == nil {
		return nil, false
	}
	return ex.Pod, true
}

func (s *Service) deletePodLocked(ctx context.Context, pod *model.Pod) error {
	ref := objstore.Ref{Kind: objstore.KindPod, Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	if err := s.cluster.Delete(ctx, ref); err != nil {
		return err
	}
	return nil
}

// deleteLocked validates a reference and deletes the object. Errors about
// the reference's fields have paths relative to the ObjectRef.
func (s *Service) deleteLocked(ctx context.Context, in *berthv1.ObjectRef) error {
	ref, err := convert.RefFromProto(in)
	if err != nil {
		return err
	}
	return s.deleteRefLocked(ctx, ref)
}

func (s *Service) deleteRefLocked(ctx context.Context, ref convert.Ref) error {
	err := s.deleteObjectLocked(ctx, ref)
	if err == nil || notFound(err) {
		delete(s.upserted, refKey(ref))
	}
	return err
}

func (s *Service) deleteObjectLocked(ctx context.Context, ref convert.Ref) error {
	switch ref.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		pod, ok := s.findPod(ref.Namespace, ref.Name)
		if !ok {
			return fmt.Errorf("pod %s: %w", ref.Key(), scheduler.ErrNotFound)
		}
		if ref.UID != "" && ref.UID != pod.UID {
			return errmap.Field("uid", fmt.Errorf("pod %s has uid %s, not %s: %w", ref.Key(), pod.UID, ref.UID, errmap.ErrUIDMismatch))
		}
		return s.deletePodLocked(ctx, pod)
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		if strings.HasPrefix(ref.Name, "system-") {
			return errmap.Field("name", fmt.Errorf("%s cannot be deleted: %w", ref.Name, errmap.ErrBuiltinClass))
		}
	}
	kind := convert.StoreKind(ref.Kind)
	if kind == "" {
		return fmt.Errorf("delete %s: unknown kind: %w", ref.Kind, scheduler.ErrInvalid)
	}
	err := s.cluster.Delete(ctx, objstore.Ref{Kind: kind, Namespace: ref.Namespace, Name: ref.Name})
	if sent, ok := s.sent[ref.Kind]; ok && (err == nil || notFound(err)) {
		delete(sent, ref.Key())
	}
	return err
}

// heldLocked lists the identities (Ref.Key) of the objects of kind Berth
// holds that a resync may delete: user PriorityClasses only, the budgets
// and namespaces the caller sent (not those Berth made up for the
// namespaces of pods), and the claims but those Berth made for pods (from
// templates, for ephemeral volumes: they go with their pods).
func (s *Service) heldLocked(kind berthv1.ObjectKind) ([]convert.Ref, error) {
	if sent, ok := s.sent[kind]; ok {
		out := make([]convert.Ref, 0, len(sent))
		for key := range sent {
			ns, name, namespaced := strings.Cut(key, "/")
			if !namespaced {
				ns, name = "", key
			}
			out = append(out, convert.Ref{Kind: kind, Namespace: ns, Name: name})
		}
		return out, nil
	}
	objs, err := s.cluster.List(convert.StoreKind(kind))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", kind, err)
	}
	out := make([]convert.Ref, 0, len(objs))
	for _, o := range objs {
		ref, ok := heldRef(kind, o)
		if ok {
			out = append(out, ref)
		}
	}
	return out, nil
}

// heldRef names an object held, false for one a resync leaves alone.
func heldRef(kind berthv1.ObjectKind, obj any) (convert.Ref, bool) {
	switch o := obj.(type) {
	case *model.Node:
		return convert.Ref{Kind: kind, Name: o.Name}, true
	case *model.Pod:
		return convert.Ref{Kind: kind, Namespace: o.Namespace, Name: o.Name, UID: o.UID}, true
	case *model.PriorityClass:
		return convert.Ref{Kind: kind, Name: o.Name}, !strings.HasPrefix(o.Name, "system-")
	case *model.PodGroup:
		return convert.Ref{Kind: kind, Namespace: o.Namespace, Name: o.Name}, true
	case *model.CompositePodGroup:
		return convert.Ref{Kind: kind, Namespace: o.Namespace, Name: o.Name}, true
	case *dra.DeviceTaintRule:
		return convert.Ref{Kind: kind, Name: o.Name}, true
	case *quota.ResourceFlavor, *quota.ClusterQueue, *quota.Cohort, *quota.LocalQueue, *quota.WorkloadPriorityClass, *quota.Workload:
		ref := convert.QueueRef(o)
		return ref, ref.Kind == kind
	case metav1.Object:
		ref := convert.Ref{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName()}
		switch kind {
		case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
			// The claims Berth made for pods have their pod as controller.
			return ref, metav1.GetControllerOfNoCopy(o) == nil
		}
		return ref, true
	}
	return convert.Ref{}, false
}
