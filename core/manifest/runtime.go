package manifest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/berthsched/berth/core/model"
)

// podRuntime reads what descheduling needs of a pod as kube writes it:
// owners, annotations, images, volumes, QoS class, phase and container
// statuses. Pending pods have none: nothing deschedules them.
func podRuntime(p *corev1.Pod) *model.PodRuntime {
	if p.Spec.NodeName == "" {
		return nil
	}
	rt := &model.PodRuntime{
		Annotations: copyMap(p.Annotations),
		QOSClass:    model.QOSClass(p.Status.QOSClass),
		Phase:       model.PodPhase(p.Status.Phase),
		Reason:      p.Status.Reason,
	}
	for _, o := range p.OwnerReferences {
		rt.Owners = append(rt.Owners, model.OwnerReference{
			Kind: o.Kind, Name: o.Name, UID: string(o.UID), Controller: o.Controller != nil && *o.Controller,
		})
	}
	for _, c := range p.Spec.Containers {
		rt.Images = append(rt.Images, c.Image)
	}
	for _, v := range p.Spec.Volumes {
		switch {
		case v.EmptyDir != nil, v.HostPath != nil:
			rt.LocalStorage = true
		case v.PersistentVolumeClaim != nil:
			rt.PVCClaims = append(rt.PVCClaims, v.PersistentVolumeClaim.ClaimName)
		}
	}
	if rt.QOSClass == "" {
		rt.QOSClass = qosClass(p)
	}
	for _, list := range []struct {
		statuses []corev1.ContainerStatus
		init     bool
	}{{p.Status.ContainerStatuses, false}, {p.Status.InitContainerStatuses, true}} {
		for _, cs := range list.statuses {
			s := model.ContainerStatus{Name: cs.Name, Init: list.init, RestartCount: cs.RestartCount}
			if w := cs.State.Waiting; w != nil {
				s.WaitingReason = w.Reason
			}
			if t := cs.State.Terminated; t != nil {
				s.TerminatedReason = t.Reason
				code := t.ExitCode
				s.ExitCode = &code
			}
			rt.Containers = append(rt.Containers, s)
		}
	}
	return rt
}

// qosClass is kube's QoS class of a pod whose status has none: BestEffort
// without cpu or memory requests or limits, Guaranteed when every
// container limits both and the requests equal the limits, else Burstable.
// A missing request defaults to the limit, as the API server defaults it.
func qosClass(p *corev1.Pod) model.QOSClass {
	requests, limits := map[corev1.ResourceName]resource.Quantity{}, map[corev1.ResourceName]resource.Quantity{}
	guaranteed := true
	add := func(m map[corev1.ResourceName]resource.Quantity, name corev1.ResourceName, q resource.Quantity) {
		sum := m[name]
		sum.Add(q)
		m[name] = sum
	}
	for _, c := range append(append([]corev1.Container{}, p.Spec.Containers...), p.Spec.InitContainers...) {
		limited := 0
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[name]
			lim, hasLim := c.Resources.Limits[name]
			if !hasReq && hasLim {
				req, hasReq = lim, true
			}
			if hasReq && req.Sign() > 0 {
				add(requests, name, req)
			}
			if hasLim && lim.Sign() > 0 {
				add(limits, name, lim)
				limited++
			}
		}
		if limited < 2 {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return model.QOSBestEffort
	}
	if guaranteed && len(requests) == len(limits) {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				return model.QOSBurstable
			}
		}
		return model.QOSGuaranteed
	}
	return model.QOSBurstable
}
