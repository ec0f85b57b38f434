package queue

import (
	"container/list"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// SubQueue names where a pending pod waits.
type SubQueue string

const (
	// Active: ready to be popped, ordered by the profile's QueueSort.
	Active SubQueue = "Active"
	// Backoff: failed recently and waiting out its backoff.
	Backoff SubQueue = "Backoff"
	// Unschedulable: rejected; waits for a cluster event a rejecting plugin
	// cares about, or for the periodic flush.
	Unschedulable SubQueue = "Unschedulable"
	// Gated: held by a PreEnqueue plugin (scheduling gates); kept with the
	// unschedulable pods and re-checked when the pod or a relevant event
	// changes.
	Gated SubQueue = "Gated"
	// InFlight: popped, its scheduling attempt not finished.
	InFlight SubQueue = "InFlight"
)

// state is where an entry is; gated pods are in stateUnschedulable with
// info.GatingPlugin set.
type state uint8

const (
	stateNew state = iota // in no container yet (or just taken out of one)
	stateActive
	stateBackoff
	stateErrorBackoff // backoff after an internal error: never popped early
	stateUnschedulable
	stateInFlight
)

// entry is the queue's record of one pod. Every known pod has exactly one
// entry, in exactly one container chosen by state.
type entry struct {
	info *framework.QueuedPodInfo
	// index is the position in the heap or in the unschedulable slice.
	index int
	// backoffUntil (Unix ns) is the backoff expiry of a pod in backoffQ,
	// fixed when it enters: the backoff heaps compare it often.
	backoffUntil int64
	// seq was taken when info.Timestamp was last set: among pods the
	// ordering otherwise ties, the lower seq goes first.
	seq uint64
	// flight is set while the pod is in flight.
	flight *flight
	// For unschedulable pods, set when they enter: the bits of the plugins
	// that rejected the pod (see hintIndex.pluginBit), whether there are
	// any, and the profile's hint index, so most events skip the pod
	// without reading it.
	rejectors uint64
	profile   int32
	rejected  bool
	state     state
}

// flight is what the queue keeps about a pod while the scheduler owns its
// QueuedPodInfo: a snapshot for Lookup (the scheduler may write the original
// at any time), the pod's mark in the in-flight event log, and what happened
// to the pod meanwhile.
type flight struct {
	snapshot framework.QueuedPodInfo
	mark     *list.Element
	// latest is the newest version of the pod seen by Update, if any.
	latest *model.Pod
	// gone is set when the pod was deleted or bound during the attempt.
	gone bool
}

func (e *entry) key() string { return e.info.Pod.Key() }

// subQueue is the public name of the entry's state.
func (e *entry) subQueue() SubQueue {
	switch e.state {
	case stateActive:
		return Active
	case stateBackoff, stateErrorBackoff:
		return Backoff
	case stateInFlight:
		return InFlight
	}
	if e.info.Gated() {
		return Gated
	}
	return Unschedulable
}

func profileOf(pod *model.Pod) string {
	if pod.SchedulerName == "" {
		return model.DefaultSchedulerName
	}
	return pod.SchedulerName
}

// hasRejectors reports whether some plugin rejected the pod in its last
// attempt; without one the pod failed on an internal error.
func hasRejectors(info *framework.QueuedPodInfo) bool {
	return len(info.UnschedulablePlugins) != 0 || len(info.PendingPlugins) != 0
}

func rejectedBy(info *framework.QueuedPodInfo, plugin string) bool {
	if _, ok := info.UnschedulablePlugins[plugin]; ok {
		return true
	}
	_, ok := info.PendingPlugins[plugin]
	return ok
}
