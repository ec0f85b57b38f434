// Package volume holds Berth's model of persistent storage: Kubernetes'
// PersistentVolumes and PersistentVolumeClaims (k8s.io/api/core/v1) and
// the storage.k8s.io/v1 StorageClasses, CSINodes, CSIDrivers and
// CSIStorageCapacities, their validation (kube-apiserver's rules for the
// fields the scheduler reads, the offending field named by its path
// relative to the object, "spec.accessModes[1]"), and the claims of
// pods' ephemeral volumes, which Berth makes as Kubernetes'
// ephemeral-volume controller does (one claim per pod and volume, named
// "<pod>-<volume>", owned by the pod, deleted with it).
//
// Tracker is a scheduler's storage state. The objects come from the
// orchestrator (server/statesvc, core/manifest) in any order: a pod whose
// claim has not arrived is unschedulable until it does, and the volume
// plugins' queueing hints requeue it then. Objects are not modified once
// added; an update replaces one.
package volume
