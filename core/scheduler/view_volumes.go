package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
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

// ClaimVolume is one of a pod's volumes that uses a PersistentVolumeClaim,
// as it stands now, for Explain.
type ClaimVolume struct {
	// Name is the volume's name in the pod; Claim the claim's
	// namespace/name; Ephemeral says Berth makes it for the pod.
	Name, Claim string
	Ephemeral   bool
	// Found: the claim exists. Class and RequestBytes are its class and
	// requested size.
	Found        bool
	Class        string
	RequestBytes int64
	// BoundTo is the volume the claim is bound to (its volumeName).
	BoundTo string
	// Chosen is the volume the pod's Bind chose for the unbound claim, and
	// SelectedNode the node its volume is to be provisioned for: what
	// VolumeBinding's Reserve assumed, until the orchestrator binds it.
	Chosen, SelectedNode string
}

// explainVolumes lists the pod's claims, in the order of its volumes.
func (s *Scheduler) explainVolumes(pod *model.Pod) []ClaimVolume {
	var out []ClaimVolume
	assumed := map[string]volume.Binding{}
	for _, b := range s.volumes.PodBindings(pod.UID) {
		assumed[b.Claim.Name] = b
	}
	for _, v := range pod.Volumes {
		if v.ClaimName == "" {
			continue
		}
		cv := ClaimVolume{Name: v.Name, Claim: volume.Key(pod.Namespace, v.ClaimName), Ephemeral: v.Ephemeral != nil}
		if c, ok := s.volumes.Claim(pod.Namespace, v.ClaimName); ok {
			cv.Found, cv.Class, cv.BoundTo = true, volume.ClaimClass(c), c.Spec.VolumeName
			if q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
				cv.RequestBytes = q.Value()
			}
			if cv.BoundTo == "" {
				cv.SelectedNode = c.Annotations[volume.AnnSelectedNode]
			}
		}
		if b, ok := assumed[v.ClaimName]; ok {
			cv.Chosen, cv.SelectedNode = b.Volume, b.SelectedNode
		}
		out = append(out, cv)
	}
	return out
}
