package queue

import (
	"log/slog"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Defaults, as kube-scheduler's.
const (
	DefaultPodInitialBackoff = 1 * time.Second
	DefaultPodMaxBackoff     = 10 * time.Second
	// DefaultGroupMaxBackoff caps the backoff of pod group members: a
	// group's attempt tries every pending member, so its retries under
	// unrelated churn are spaced further apart than a pod's (KEP-4671 finds
	// kube's 10 s cap too short for groups). Events a rejecting plugin
	// cares about still bring a group back at once.
	DefaultGroupMaxBackoff                   = 2 * time.Minute
	DefaultPodMaxInUnschedulablePodsDuration = 5 * time.Minute

	// unschedulableFlushInterval paces Run's flush of the unschedulable
	// pods; backoffQ is flushed at every backoffWindow.
	unschedulableFlushInterval = 30 * time.Second
	// backoffWindow is the granularity backoff expiries are aligned to when
	// pods may be popped from backoffQ (kube's SchedulerPopFromBackoffQ),
	// and the period of Run's backoff flush, which starts on its boundaries.
	backoffWindow = time.Second
)

// Options configure a PriorityQueue. The zero value gives kube-scheduler's
// defaults with the real clock.
type Options struct {
	// Clock is the time source; tests inject a fake. Default: time.Now.
	// When it implements framework.TimerClock, Run's flush loops wait on
	// its timers (a fake clock drives them); otherwise on real timers.
	Clock framework.Clock
	// PodInitialBackoff and PodMaxBackoff bound the backoff of a failed pod:
	// initial·2^(n−1) capped at max, n the pod's consecutive failures.
	// Zero means the default; a negative PodMaxBackoff disables backoff.
	PodInitialBackoff, PodMaxBackoff time.Duration
	// GroupMaxBackoff replaces PodMaxBackoff for members of a pod group
	// (Pod.SchedulingGroup set); never below PodMaxBackoff. Zero means
	// the default.
	GroupMaxBackoff time.Duration
	// PodMaxInUnschedulablePodsDuration is how long a pod may sit among the
	// unschedulable pods before the periodic flush retries it. Zero means
	// the default.
	PodMaxInUnschedulablePodsDuration time.Duration
	// PreEnqueuePlugins are run, in order, before a pod enters activeQ (or
	// backoffQ), keyed by profile (schedulerName).
	PreEnqueuePlugins map[string][]framework.PreEnqueuePlugin
	// QueueingHints says, per profile, which plugin cares about which
	// cluster event and how to tell whether the event helps a pod.
	QueueingHints map[string]QueueingHintMap
	// Namespaces gives namespace labels for the affinity terms checked by
	// AssignedPodAdded/AssignedPodUpdated; nil means no labels.
	Namespaces framework.NamespaceLister
	// PodLookup, when set, returns the current version of a pod as the
	// caller's state knows it. The queue and the nominator use it as
	// kube-scheduler uses its pod informer: a pod that is gone or already
	// bound is neither requeued after a failure nor nominated. It must not
	// call back into the queue.
	PodLookup func(uid string) (*model.Pod, bool)
	// DisableQueueingHints falls back to the pre-hint behaviour (kube's
	// SchedulerQueueingHints gate off): every registered event moves the
	// pods its plugins rejected, and a pod that fails after a move request
	// in its cycle goes to backoffQ. Hints are the default, as in kube 1.36.
	DisableQueueingHints bool
	// DisablePopFromBackoffQ stops Pop from taking a pod out of backoffQ
	// when activeQ is empty (kube's SchedulerPopFromBackoffQ gate, on by
	// default in kube 1.36).
	DisablePopFromBackoffQ bool
	// Logger receives debug logs. Default: discard.
	Logger *slog.Logger
}

// QueueingHintMap lists, for each cluster event, the plugins interested in
// it with their hint functions.
type QueueingHintMap map[framework.ClusterEvent][]QueueingHintFunction

// QueueingHintFunction is a plugin's hint for one event. A nil Fn always
// answers Queue.
type QueueingHintFunction struct {
	PluginName string
	Fn         framework.QueueingHintFn
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) framework.Timer { return time.AfterFunc(d, f) }

// withRealTimers adds real timers to a clock that has none.
type withRealTimers struct{ framework.Clock }

func (withRealTimers) AfterFunc(d time.Duration, f func()) framework.Timer {
	return time.AfterFunc(d, f)
}

func timersOf(c framework.Clock) framework.TimerClock {
	if tc, ok := c.(framework.TimerClock); ok {
		return tc
	}
	return withRealTimers{c}
}

func (o *Options) withDefaults() Options {
	out := *o
	if out.Clock == nil {
		out.Clock = realClock{}
	}
	if out.PodInitialBackoff == 0 {
		out.PodInitialBackoff = DefaultPodInitialBackoff
	}
	switch {
	case out.PodMaxBackoff == 0:
		out.PodMaxBackoff = DefaultPodMaxBackoff
	case out.PodMaxBackoff < 0:
		out.PodMaxBackoff = 0
	}
	if out.GroupMaxBackoff == 0 {
		out.GroupMaxBackoff = DefaultGroupMaxBackoff
	}
	if out.PodMaxBackoff == 0 || out.GroupMaxBackoff < out.PodMaxBackoff {
		out.GroupMaxBackoff = out.PodMaxBackoff
	}
	if out.PodMaxInUnschedulablePodsDuration == 0 {
		out.PodMaxInUnschedulablePodsDuration = DefaultPodMaxInUnschedulablePodsDuration
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out
}
