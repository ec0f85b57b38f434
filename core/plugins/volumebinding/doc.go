// Package volumebinding is kube-scheduler's VolumeBinding plugin. PreFilter
// finds the pod's PersistentVolumeClaims (from the Handle's volume.Tracker)
// with kube's reasons for a claim missing, lost, being deleted or, for an
// ephemeral volume, not made for the pod, and holds back a pod with an
// unbound claim of an Immediate class ("pod has unbound immediate
// PersistentVolumeClaims", until the volume controller binds it). Filter
// checks the bound claims' volumes (they must exist and their node
// affinity admit the node) and, for the unbound claims of
// WaitForFirstConsumer classes, finds on each node the smallest available
// volume that fits or checks that the class can provision one there
// (binder.go). Score is kube 1.37's StorageCapacityScoring of the volumes
// chosen or provisioned; Reserve assumes the bindings in the tracker, and
// the pod's Bind carries them (framework.Bind.Volumes). Pods without claims
// Skip and score 0 everywhere.
//
// Its queueing hints (events.go) are kube's, queueing a little more where
// Berth accepts changes kube refuses (a class's provisioner, a capacity's
// topology) and where kube's hint misses a driver that stops reporting
// capacity.
//
// Where Berth differs from kube: there is no PreBind; the orchestrator
// binds and provisions what the Bind carries (docs/volumes.md).
package volumebinding
