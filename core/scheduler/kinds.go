package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/volume"
)

// Kinds returns the kinds of object the scheduler holds, each admitted by
// its admission stage (pods and pod groups: admitPod, admitPodGroup over
// core/podadmission) and applied by its state-in call (kept, its cluster
// events raised), as a registry the caller may wrap (core/objstore). A
// new kind is one more Register here, not a method.
func (s *Scheduler) Kinds() *objstore.Registry { return s.kinds.Clone() }

// Upsert admits and applies an object of any kind the scheduler holds
// (Kinds); an object of another type is refused with an error wrapping
// objstore.ErrUnknownKind.
func (s *Scheduler) Upsert(ctx context.Context, obj any) error { return s.kinds.Upsert(ctx, obj) }

// Delete removes the object ref names (a pod by uid, else by namespace and
// name).
func (s *Scheduler) Delete(ctx context.Context, ref objstore.Ref) error {
	return s.kinds.Delete(ctx, ref)
}

// List lists the objects of kind held.
func (s *Scheduler) List(kind objstore.Kind) ([]any, error) { return s.kinds.List(kind) }

func (s *Scheduler) buildKinds() error {
	r := objstore.NewRegistry()
	v := s.View()
	errs := []error{
		objstore.Register(r, objstore.Type[*model.Node]{
			Kind: objstore.KindNode,
			Ref: func(n *model.Node) objstore.Ref {
				return objstore.Ref{Name: nameOf(n, func(n *model.Node) string { return n.Name })}
			},
			Upsert: s.addNode,
			Delete: func(ctx context.Context, ref objstore.Ref) error { return s.deleteNode(ctx, ref.Name) },
			List:   v.nodeList,
		}),
		objstore.Register(r, objstore.Type[*model.Pod]{
			Kind: objstore.KindPod,
			Ref: func(p *model.Pod) objstore.Ref {
				if p == nil {
					return objstore.Ref{}
				}
				return objstore.Ref{Namespace: p.Namespace, Name: p.Name, UID: p.UID}
			},
			Admit:  []objstore.Admitter[*model.Pod]{s.admitPod},
			Upsert: s.addPod,
			Delete: func(ctx context.Context, ref objstore.Ref) error {
				pod, ok := s.podOf(ref)
				if !ok {
					return fmt.Errorf("delete pod %s/%s: %w", ref.Namespace, ref.Name, ErrPodNotFound)
				}
				return s.DeletePod(ctx, pod)
			},
			List: v.Pods,
			Get:  s.podOf,
		}),
		objstore.Register(r, objstore.Type[*model.PriorityClass]{
			Kind: objstore.KindPriorityClass,
			Ref: func(pc *model.PriorityClass) objstore.Ref {
				return objstore.Ref{Name: nameOf(pc, func(pc *model.PriorityClass) string { return pc.Name })}
			},
			Upsert: s.setPriorityClass,
			Delete: func(ctx context.Context, ref objstore.Ref) error { return s.deletePriorityClass(ctx, ref.Name) },
			List:   v.PriorityClasses,
		}),
		objstore.Register(r, objstore.Type[*model.Namespace]{
			Kind: objstore.KindNamespace,
			Ref: func(ns *model.Namespace) objstore.Ref {
				return objstore.Ref{Name: nameOf(ns, func(ns *model.Namespace) string { return ns.Name })}
			},
			Upsert: s.setNamespace,
			Delete: func(ctx context.Context, ref objstore.Ref) error { return s.deleteNamespace(ctx, ref.Name) },
			List:   v.Namespaces,
		}),
		objstore.Register(r, objstore.Type[*model.PodDisruptionBudget]{
			Kind: objstore.KindPodDisruptionBudget,
			Ref: func(b *model.PodDisruptionBudget) objstore.Ref {
				if b == nil {
					return objstore.Ref{}
				}
				return objstore.Ref{Namespace: b.Namespace, Name: b.Name}
			},
			Upsert: s.setPDB,
			Delete: func(ctx context.Context, ref objstore.Ref) error { return s.deletePDB(ctx, ref.Namespace, ref.Name) },
			List:   v.PDBs,
		}),
		objstore.Register(r, objstore.Type[*model.PodGroup]{
			Kind: objstore.KindPodGroup,
			Ref: func(g *model.PodGroup) objstore.Ref {
				if g == nil {
					return objstore.Ref{}
				}
				return objstore.Ref{Namespace: g.Namespace, Name: g.Name}
			},
			Admit:  []objstore.Admitter[*model.PodGroup]{s.admitPodGroup},
			Upsert: s.setPodGroup,
			Delete: func(ctx context.Context, ref objstore.Ref) error {
				return s.deletePodGroup(ctx, ref.Namespace, ref.Name)
			},
			List: s.groups.List,
		}),
		objstore.Register(r, objstore.Type[*model.CompositePodGroup]{
			Kind: objstore.KindCompositePodGroup,
			Ref: func(c *model.CompositePodGroup) objstore.Ref {
				if c == nil {
					return objstore.Ref{}
				}
				return objstore.Ref{Namespace: c.Namespace, Name: c.Name}
			},
			Upsert: s.setCompositePodGroup,
			Delete: func(ctx context.Context, ref objstore.Ref) error {
				return s.deleteCompositePodGroup(ctx, ref.Namespace, ref.Name)
			},
			List: s.listCompositePodGroups,
		}),
		registerDevices[*resourceapi.DeviceClass](r, s, dra.KindDeviceClass, v.DeviceClasses),
		registerDevices[*resourceapi.ResourceSlice](r, s, dra.KindResourceSlice, v.ResourceSlices),
		registerDevices[*resourceapi.ResourceClaim](r, s, dra.KindResourceClaim, v.Claims),
		registerDevices[*resourceapi.ResourceClaimTemplate](r, s, dra.KindResourceClaimTemplate, v.ClaimTemplates),
		objstore.Register(r, objstore.Type[*dra.DeviceTaintRule]{
			Kind: objstore.Kind(dra.KindDeviceTaintRule),
			Ref: func(rule *dra.DeviceTaintRule) objstore.Ref {
				return objstore.Ref{Name: nameOf(rule, func(rule *dra.DeviceTaintRule) string { return rule.Name })}
			},
			Upsert: func(ctx context.Context, rule *dra.DeviceTaintRule) error { return s.upsertDeviceObject(ctx, rule) },
			Delete: func(ctx context.Context, ref objstore.Ref) error {
				return s.deleteDeviceObject(ctx, dra.KindDeviceTaintRule, "", ref.Name)
			},
			List: s.devices.TaintRules,
		}),
		registerVolumes[*corev1.PersistentVolume](r, s, volume.KindPersistentVolume, v.PersistentVolumes),
		registerVolumes[*corev1.PersistentVolumeClaim](r, s, volume.KindPersistentVolumeClaim, v.PersistentVolumeClaims),
		registerVolumes[*storagev1.StorageClass](r, s, volume.KindStorageClass, v.StorageClasses),
		registerVolumes[*storagev1.CSINode](r, s, volume.KindCSINode, v.CSINodes),
		registerVolumes[*storagev1.CSIDriver](r, s, volume.KindCSIDriver, v.CSIDrivers),
		registerVolumes[*storagev1.CSIStorageCapacity](r, s, volume.KindCSIStorageCapacity, v.CSIStorageCapacities),
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	s.kinds = r
	return nil
}

// podOf is the pod held under ref's uid, else under its namespace and name.
func (s *Scheduler) podOf(ref objstore.Ref) (*model.Pod, bool) {
	if ref.UID != "" {
		return s.state.lookup(ref.UID)
	}
	return s.state.find(ref.Namespace, ref.Name)
}

// nameOf is name(obj), "" for a nil object (refused by its Upsert).
func nameOf[T comparable](obj T, name func(T) string) string {
	var zero T
	if obj == zero {
		return ""
	}
	return name(obj)
}

// kubeObject is a Kubernetes API object of the DRA and storage kinds.
type kubeObject interface {
	comparable
	metav1.Object
}

func kubeRef[T kubeObject](obj T) objstore.Ref {
	var zero T
	if obj == zero {
		return objstore.Ref{}
	}
	return objstore.Ref{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

func registerDevices[T kubeObject](r *objstore.Registry, s *Scheduler, kind string, list func() []T) error {
	return objstore.Register(r, objstore.Type[T]{
		Kind:   objstore.Kind(kind),
		Ref:    kubeRef[T],
		Upsert: func(ctx context.Context, obj T) error { return s.upsertDeviceObject(ctx, obj) },
		Delete: func(ctx context.Context, ref objstore.Ref) error {
			return s.deleteDeviceObject(ctx, kind, ref.Namespace, ref.Name)
		},
		List: list,
	})
}

func registerVolumes[T kubeObject](r *objstore.Registry, s *Scheduler, kind string, list func() []T) error {
	return objstore.Register(r, objstore.Type[T]{
		Kind:   objstore.Kind(kind),
		Ref:    kubeRef[T],
		Upsert: func(ctx context.Context, obj T) error { return s.upsertVolumeObject(ctx, obj) },
		Delete: func(ctx context.Context, ref objstore.Ref) error {
			return s.deleteVolumeObject(ctx, kind, ref.Namespace, ref.Name)
		},
		List: list,
	})
}

// nodeList lists the nodes held, in scheduling order; none when the
// snapshot cannot be taken (a resync then deletes no node).
func (v View) nodeList() []*model.Node {
	usage, err := v.Nodes()
	if err != nil {
		v.s.logger.Error("listing the nodes failed", "err", err)
		return nil
	}
	out := make([]*model.Node, len(usage))
	for i, u := range usage {
		out[i] = u.Node
	}
	return out
}
