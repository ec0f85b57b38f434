package scheduler

import resourceapi "k8s.io/api/resource/v1"

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
