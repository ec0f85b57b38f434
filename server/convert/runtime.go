package convert

import (
	"maps"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

func qosClasses() enumNames[berthv1.QOSClass, model.QOSClass] {
	return enumNames[berthv1.QOSClass, model.QOSClass]{"", model.QOSGuaranteed, model.QOSBurstable, model.QOSBestEffort}
}

func podPhases() enumNames[berthv1.PodPhase, model.PodPhase] {
	return enumNames[berthv1.PodPhase, model.PodPhase]{"", model.PodPending, model.PodRunning, model.PodSucceeded, model.PodFailed, model.PodUnknown}
}

// podRuntime converts a pod's runtime report; nil stays nil.
func podRuntime(p path, in *berthv1.PodRuntime) (*model.PodRuntime, *FieldError) {
	if in == nil {
		return nil, nil
	}
	if fe := runtimeCaps(p, in); fe != nil {
		return nil, fe
	}
	out := &model.PodRuntime{
		Annotations:  maps.Clone(in.GetAnnotations()),
		Images:       slices.Clone(in.GetImages()),
		LocalStorage: in.GetLocalStorage(),
		PVCClaims:    slices.Clone(in.GetPvcClaims()),
		Reason:       in.GetReason(),
	}
	var fe *FieldError
	if out.QOSClass, fe = qosClasses().model(p.field("qos_class"), in.GetQosClass(), true); fe != nil {
		return nil, fe
	}
	if out.Phase, fe = podPhases().model(p.field("phase"), in.GetPhase(), true); fe != nil {
		return nil, fe
	}
	owners := p.field("owners")
	for i, o := range in.GetOwners() {
		at := owners.index(i)
		if o.GetKind() == "" {
			return nil, at.field("kind").errorf("required")
		}
		if o.GetName() == "" {
			return nil, at.field("name").errorf("required")
		}
		out.Owners = append(out.Owners, model.OwnerReference{Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUid(), Controller: o.GetController()})
	}
	containers := p.field("containers")
	for i, c := range in.GetContainers() {
		if c.GetRestartCount() < 0 {
			at := containers.index(i)
			return nil, at.field("restart_count").errorf("must be at least 0, not %d", c.GetRestartCount())
		}
		cs := model.ContainerStatus{
			Name: c.GetName(), Init: c.GetInit(), RestartCount: c.GetRestartCount(),
			WaitingReason: c.GetWaitingReason(), TerminatedReason: c.GetTerminatedReason(),
		}
		if c.ExitCode != nil {
			cs.ExitCode = ptr(c.GetExitCode())
		}
		out.Containers = append(out.Containers, cs)
	}
	return out, nil
}

func podRuntimeToProto(in *model.PodRuntime) *berthv1.PodRuntime {
	if in == nil {
		return nil
	}
	out := &berthv1.PodRuntime{
		Annotations:  maps.Clone(in.Annotations),
		Images:       slices.Clone(in.Images),
		LocalStorage: in.LocalStorage,
		PvcClaims:    slices.Clone(in.PVCClaims),
		QosClass:     qosClasses().proto(in.QOSClass),
		Phase:        podPhases().proto(in.Phase),
		Reason:       in.Reason,
	}
	for _, o := range in.Owners {
		out.Owners = append(out.Owners, &berthv1.OwnerReference{Kind: o.Kind, Name: o.Name, Uid: o.UID, Controller: o.Controller})
	}
	for _, c := range in.Containers {
		pc := &berthv1.ContainerStatus{
			Name: c.Name, Init: c.Init, RestartCount: c.RestartCount,
			WaitingReason: c.WaitingReason, TerminatedReason: c.TerminatedReason,
		}
		if c.ExitCode != nil {
			pc.ExitCode = ptr(*c.ExitCode)
		}
		out.Containers = append(out.Containers, pc)
	}
	return out
}

// runtimeCaps bounds the runtime's lists and annotations, which Berth
// holds with every pod.
func runtimeCaps(p path, in *berthv1.PodRuntime) *FieldError {
	if fe := overCap(p.field("owners"), len(in.GetOwners()), MaxOwners); fe != nil {
		return fe
	}
	if fe := overCap(p.field("images"), len(in.GetImages()), MaxContainers); fe != nil {
		return fe
	}
	if fe := overCap(p.field("pvc_claims"), len(in.GetPvcClaims()), MaxContainers); fe != nil {
		return fe
	}
	if fe := overCap(p.field("containers"), len(in.GetContainers()), 2*MaxContainers); fe != nil {
		return fe
	}
	size := 0
	for k, v := range in.GetAnnotations() {
		size += len(k) + len(v)
	}
	if size > MaxAnnotationBytes {
		return p.field("annotations").errorf("must total at most %d bytes, has %d", MaxAnnotationBytes, size)
	}
	return nil
}
