// Package eviction is the one way berthd evicts a pod for a cause other
// than preemption (a NoExecute taint, the eviction API, node pressure):
// Evictor writes the Evict decision durably through the decision log
// (which refuses a second Evict of a pod, whatever its cause, and counts
// evictions by cause), then marks the pod terminating in the scheduler
// until the orchestrator deletes it. Preemption's evictions take the
// scheduler's own path (its decision sink), to the same log.
package eviction
