package volume

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Kinds of storage objects, as Kubernetes names them.
const (
	KindPersistentVolume      = "PersistentVolume"
	KindPersistentVolumeClaim = "PersistentVolumeClaim"
	KindStorageClass          = "StorageClass"
	KindCSINode               = "CSINode"
	KindCSIDriver             = "CSIDriver"
	KindCSIStorageCapacity    = "CSIStorageCapacity"
)

// Annotations Kubernetes' volume controller and scheduler use on claims
// and classes.
const (
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	AnnSelectedNode  = "volume.kubernetes.io/selected-node"
	AnnDefaultClass  = "storageclass.kubernetes.io/is-default-class"
)

// NoProvisioner is the provisioner of classes whose volumes are made by
// hand (local volumes): nothing can be provisioned for their claims.
const NoProvisioner = "kubernetes.io/no-provisioner"

// Objects is a set of storage objects.
type Objects struct {
	Volumes    map[string]*corev1.PersistentVolume      // by name
	Claims     map[string]*corev1.PersistentVolumeClaim // by namespace/name
	Classes    map[string]*storagev1.StorageClass       // by name
	CSINodes   map[string]*storagev1.CSINode            // by name (the node's)
	Drivers    map[string]*storagev1.CSIDriver          // by name
	Capacities map[string]*storagev1.CSIStorageCapacity // by namespace/name
}

// NewObjects returns an empty set.
func NewObjects() *Objects {
	return &Objects{
		Volumes:    map[string]*corev1.PersistentVolume{},
		Claims:     map[string]*corev1.PersistentVolumeClaim{},
		Classes:    map[string]*storagev1.StorageClass{},
		CSINodes:   map[string]*storagev1.CSINode{},
		Drivers:    map[string]*storagev1.CSIDriver{},
		Capacities: map[string]*storagev1.CSIStorageCapacity{},
	}
}

// Key is the namespace/name key of a namespaced object.
func Key(namespace, name string) string { return namespace + "/" + name }

// sortedValues returns m's values ordered by key.
func sortedValues[T any](m map[string]T) []T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

// ClaimClass is the class a claim asks for ("" for none).
func ClaimClass(c *corev1.PersistentVolumeClaim) string {
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// IsDefaultClass reports whether a class is marked as the default.
func IsDefaultClass(c *storagev1.StorageClass) bool {
	v := c.Annotations[AnnDefaultClass]
	return v == "true"
}
