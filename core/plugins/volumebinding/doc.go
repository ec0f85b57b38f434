// Package volumebinding is kube-scheduler's VolumeBinding plugin as far as
// Berth binds volumes so far. PreFilter finds the pod's
// PersistentVolumeClaims (from the Handle's volume.Tracker) with kube's
// reasons for a claim missing, lost, being deleted or, for an ephemeral
// volume, not made for the pod, and holds back a pod with an unbound
// claim of an Immediate class ("pod has unbound immediate
// PersistentVolumeClaims", until the volume controller binds it). Filter
// checks the bound claims' volumes: they must exist and their node
// affinity must admit the node. Score is 0, as kube's for claims that are
// all bound (StorageCapacityScoring counts only volumes it chooses or
// provisions); pods without claims Skip and score 0 everywhere.
//
// Where Berth differs from kube, for now: a pod with an unbound claim of
// a WaitForFirstConsumer class is unschedulable (ErrReasonDelayedUnsupported)
// instead of having a volume chosen or provisioned for it at Reserve: Berth
// does not yet carry such bindings in its decisions, and does not bind a
// pod as if it had no claim.
package volumebinding
