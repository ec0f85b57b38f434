package convert

import (
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// The DRA objects back to the wire: what ObjectFromProto reads, so that a
// converted object converts back to the same Kubernetes object (the
// fields the proto does not carry, such as a template claim's owner, are
// left out).

// DeviceClassToProto is the wire form of a class.
func DeviceClassToProto(in *resourceapi.DeviceClass) *berthv1.DeviceClass {
	return &berthv1.DeviceClass{Name: in.Name, Selectors: selectorsToProto(in.Spec.Selectors)}
}

// ResourceSliceToProto is the wire form of a slice.
func ResourceSliceToProto(in *resourceapi.ResourceSlice) *berthv1.ResourceSlice {
	spec := &in.Spec
	out := &berthv1.ResourceSlice{
		Name: in.Name, Driver: spec.Driver,
		Pool:         &berthv1.ResourcePool{Name: spec.Pool.Name, Generation: spec.Pool.Generation, ResourceSliceCount: spec.Pool.ResourceSliceCount},
		NodeSelector: kubeNodeSelectorToProto(spec.NodeSelector),
	}
	if spec.NodeName != nil {
		out.NodeName = *spec.NodeName
	}
	if spec.AllNodes != nil {
		out.AllNodes = *spec.AllNodes
	}
	for _, d := range spec.Devices {
		out.Devices = append(out.Devices, deviceToProto(&d))
	}
	return out
}

func deviceToProto(in *resourceapi.Device) *berthv1.Device {
	out := &berthv1.Device{Name: in.Name, Taints: deviceTaintsToProto(in.Taints)}
	for name, a := range in.Attributes {
		if out.Attributes == nil {
			out.Attributes = map[string]*berthv1.DeviceAttribute{}
		}
		v := &berthv1.DeviceAttribute{}
		switch {
		case a.IntValue != nil:
			v.Value = &berthv1.DeviceAttribute_Int{Int: *a.IntValue}
		case a.BoolValue != nil:
			v.Value = &berthv1.DeviceAttribute_Bool{Bool: *a.BoolValue}
		case a.StringValue != nil:
			v.Value = &berthv1.DeviceAttribute_String_{String_: *a.StringValue}
		case a.VersionValue != nil:
			v.Value = &berthv1.DeviceAttribute_Version{Version: *a.VersionValue}
		}
		out.Attributes[string(name)] = v
	}
	for name, c := range in.Capacity {
		if out.Capacity == nil {
			out.Capacity = map[string]string{}
		}
		out.Capacity[string(name)] = c.Value.String()
	}
	return out
}

// ResourceClaimToProto is the wire form of a claim with its status: its
// allocation and the pods it is reserved for.
func ResourceClaimToProto(in *resourceapi.ResourceClaim) *berthv1.ResourceClaim {
	out := &berthv1.ResourceClaim{
		Namespace: in.Namespace, Name: in.Name, Uid: string(in.UID),
		Spec: claimSpecToProto(&in.Spec),
	}
	if in.Status.Allocation != nil || len(in.Status.ReservedFor) > 0 {
		out.Status = &berthv1.ResourceClaimStatus{
			Allocation:  AllocationToProto(in.Status.Allocation),
			ReservedFor: ConsumersToProto(in.Status.ReservedFor),
		}
	}
	return out
}

// ResourceClaimTemplateToProto is the wire form of a template.
func ResourceClaimTemplateToProto(in *resourceapi.ResourceClaimTemplate) *berthv1.ResourceClaimTemplate {
	return &berthv1.ResourceClaimTemplate{Namespace: in.Namespace, Name: in.Name, Spec: claimSpecToProto(&in.Spec.Spec)}
}

// AllocationToProto is the wire form of an allocation; nil for none.
func AllocationToProto(in *resourceapi.AllocationResult) *berthv1.AllocationResult {
	if in == nil {
		return nil
	}
	out := &berthv1.AllocationResult{NodeSelector: kubeNodeSelectorToProto(in.NodeSelector)}
	for _, r := range in.Devices.Results {
		out.Devices = append(out.Devices, &berthv1.DeviceRequestAllocationResult{
			Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device,
			AdminAccess: r.AdminAccess != nil && *r.AdminAccess,
		})
	}
	return out
}

// ConsumersToProto is the wire form of a claim's reservedFor.
func ConsumersToProto(in []resourceapi.ResourceClaimConsumerReference) []*berthv1.ResourceClaimConsumer {
	var out []*berthv1.ResourceClaimConsumer
	for _, r := range in {
		out = append(out, &berthv1.ResourceClaimConsumer{Name: r.Name, Uid: string(r.UID)})
	}
	return out
}

// ClaimAllocationToProto is claim as a Bind of pod carries it: the
// allocation, the consumers and the entries of pod that use the claim.
func ClaimAllocationToProto(pod *model.Pod, claim *resourceapi.ResourceClaim) *berthv1.ClaimAllocation {
	out := &berthv1.ClaimAllocation{
		Namespace: claim.Namespace, Name: claim.Name, Uid: string(claim.UID),
		Allocation:  AllocationToProto(claim.Status.Allocation),
		ReservedFor: ConsumersToProto(claim.Status.ReservedFor),
	}
	for _, e := range pod.ResourceClaims {
		if e.ClaimName == claim.Name {
			out.PodClaimNames = append(out.PodClaimNames, e.Name)
		}
	}
	return out
}

func claimSpecToProto(in *resourceapi.ResourceClaimSpec) *berthv1.ResourceClaimSpec {
	out := &berthv1.ResourceClaimSpec{}
	for _, r := range in.Devices.Requests {
		req := &berthv1.DeviceRequest{Name: r.Name}
		if e := r.Exactly; e != nil {
			req.Exactly = &berthv1.ExactDeviceRequest{
				DeviceClassName: e.DeviceClassName, Selectors: selectorsToProto(e.Selectors),
				AllocationMode: allocationModeToProto(e.AllocationMode), Count: e.Count,
				AdminAccess: e.AdminAccess != nil && *e.AdminAccess, Tolerations: deviceTolerationsToProto(e.Tolerations),
			}
		}
		for _, s := range r.FirstAvailable {
			req.FirstAvailable = append(req.FirstAvailable, &berthv1.DeviceSubRequest{
				Name: s.Name, DeviceClassName: s.DeviceClassName, Selectors: selectorsToProto(s.Selectors),
				AllocationMode: allocationModeToProto(s.AllocationMode), Count: s.Count, Tolerations: deviceTolerationsToProto(s.Tolerations),
			})
		}
		out.Requests = append(out.Requests, req)
	}
	for _, c := range in.Devices.Constraints {
		dc := &berthv1.DeviceConstraint{Requests: c.Requests}
		if c.MatchAttribute != nil {
			dc.MatchAttribute = string(*c.MatchAttribute)
		}
		out.Constraints = append(out.Constraints, dc)
	}
	return out
}

func allocationModeToProto(m resourceapi.DeviceAllocationMode) berthv1.DeviceAllocationMode {
	switch m {
	case resourceapi.DeviceAllocationModeExactCount:
		return berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT
	case resourceapi.DeviceAllocationModeAll:
		return berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_ALL
	}
	return berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_UNSPECIFIED
}

func selectorsToProto(in []resourceapi.DeviceSelector) []*berthv1.DeviceSelector {
	var out []*berthv1.DeviceSelector
	for _, s := range in {
		if s.CEL != nil {
			out = append(out, &berthv1.DeviceSelector{Cel: s.CEL.Expression})
		}
	}
	return out
}

// kubeNodeSelectorToProto is the wire form of a Kubernetes node selector
// (the operators have the same names as the model's).
func kubeNodeSelectorToProto(in *corev1.NodeSelector) *berthv1.NodeSelector {
	if in == nil {
		return nil
	}
	conv := func(rs []corev1.NodeSelectorRequirement) []model.NodeSelectorRequirement {
		var out []model.NodeSelectorRequirement
		for _, r := range rs {
			out = append(out, model.NodeSelectorRequirement{Key: r.Key, Operator: model.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		return out
	}
	sel := &model.NodeSelector{}
	for _, t := range in.NodeSelectorTerms {
		sel.Terms = append(sel.Terms, model.NodeSelectorTerm{MatchExpressions: conv(t.MatchExpressions), MatchFields: conv(t.MatchFields)})
	}
	return nodeSelectorToProto(sel)
}
