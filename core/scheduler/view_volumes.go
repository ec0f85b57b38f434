package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// PersistentVolumes lists the persistent volumes by name.
func (v View) PersistentVolumes() []*corev1.PersistentVolume { return v.s.volumes.Volumes() }

// PersistentVolumeClaims lists the claims by namespace/name, those made
// for pods' ephemeral volumes included.
func (v View) PersistentVolumeClaims() []*corev1.PersistentVolumeClaim {
	return v.s.volumes.Claims()
}

// StorageClasses lists the storage classes by name.
func (v View) StorageClasses() []*storagev1.StorageClass { return v.s.volumes.Classes() }

// CSINodes lists the CSINodes by name.
func (v View) CSINodes() []*storagev1.CSINode { return v.s.volumes.CSINodes() }

// CSIDrivers lists the CSI drivers by name.
func (v View) CSIDrivers() []*storagev1.CSIDriver { return v.s.volumes.Drivers() }

// CSIStorageCapacities lists the storage capacities by namespace/name.
func (v View) CSIStorageCapacities() []*storagev1.CSIStorageCapacity {
	return v.s.volumes.Capacities()
}
