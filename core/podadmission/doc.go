// Package podadmission is what Kubernetes' API server does to a pod or a
// pod group before any scheduler sees it, as the admission stage of the
// object store (core/objstore's Type.Admit) runs it: the API defaulting
// of the scheduler name, the Priority admission plugin's resolution of a
// priority from its PriorityClass (core/priority), and the immutability
// of what is fixed at creation (priority, preemption policy, class,
// group membership).
//
// Data in: the PriorityClass kind's upserts and deletions (SetClass,
// DeleteClass; the scheduler's kinds feed it and raise the class events
// themselves), and each pod or pod group upserted with the version held
// before (nil for a new one). Data out: the object to apply, or the
// refusal (*priority.UnknownClassError for a pending pod naming a class
// that does not exist) that the object store returns to its caller as it
// is, so a Sync acknowledgement names it for the object.
//
// It keeps no pods: whoever holds them says which version is held. The
// eviction marks (a pod the scheduler evicted held terminating) are not
// admission: they are set by the scheduling cycle and must be applied in
// the same critical section as the pod they mark (core/scheduler's
// evictions.go).
//
// Locks: Admission.mu guards the classes; it is a leaf.
package podadmission
