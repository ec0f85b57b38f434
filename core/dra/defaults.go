package dra

import resourceapi "k8s.io/api/resource/v1"

// DefaultClaimSpec applies kube-apiserver's defaults to a claim spec in
// place: a request or subrequest without allocationMode asks for
// ExactCount, and ExactCount without a count asks for one device.
func DefaultClaimSpec(spec *resourceapi.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			defaultMode(&r.Exactly.AllocationMode, &r.Exactly.Count)
		}
		for j := range r.FirstAvailable {
			s := &r.FirstAvailable[j]
			defaultMode(&s.AllocationMode, &s.Count)
		}
	}
}

func defaultMode(mode *resourceapi.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourceapi.DeviceAllocationModeExactCount
	}
	if *mode == resourceapi.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}
