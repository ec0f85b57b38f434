// Package disruption is the arithmetic of PodDisruptionBudgets and the
// Eviction API's rule, as Kubernetes' disruption controller and its
// pods/eviction subresource apply them. It is pure: the scheduler computes
// budget statuses over the pods it holds (Compute; core/preemption weighs
// victims with them), and the eviction service (server/evictionsvc) asks
// Check whether a pod may go.
//
// Where Berth differs: the expected pod count is the number of pods the
// budget selects (kube asks the pods' controller for its scale, which
// Berth does not know; kubeoracle approximates the same way).
package disruption
