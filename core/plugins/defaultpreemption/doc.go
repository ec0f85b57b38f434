// Package defaultpreemption is the DefaultPreemption PostFilter plugin:
// when no node fits a pod it asks core/preemption to evict lower-priority
// pods from the best node and returns that node for the pod's nomination.
// Its args (DefaultPreemptionArgs: minCandidateNodesPercentage,
// minCandidateNodesAbsolute) bound the dry run. In a deterministic run
// (the framework handle's Deterministic method, set by the scheduler's
// Options.Deterministic) the dry run starts at the first node and ties go
// to the smallest node name.
package defaultpreemption
