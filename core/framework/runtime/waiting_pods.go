package runtime

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// WaitingPods holds the pods a Permit plugin asked to wait, by UID. One
// map may be shared by the frameworks of several profiles
// (WithWaitingPods). Safe for concurrent use.
//
// Lock order: WaitingPods.mu, then a waitingPod's mu. Callbacks given to
// iterate run under WaitingPods.mu (read) and may take a waitingPod's mu
// (Allow, Reject) but must not add or remove waiting pods.
type WaitingPods struct {
	mu   sync.RWMutex
	pods map[string]*waitingPod
}

// NewWaitingPods returns an empty map.
func NewWaitingPods() *WaitingPods {
	return &WaitingPods{pods: make(map[string]*waitingPod)}
}

func (w *WaitingPods) add(wp *waitingPod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pods[wp.pod.UID] = wp
}

func (w *WaitingPods) remove(uid string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pods, uid)
}

func (w *WaitingPods) get(uid string) *waitingPod {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.pods[uid]
}

func (w *WaitingPods) iterate(fn func(framework.WaitingPod)) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, wp := range w.pods {
		fn(wp)
	}
}

// Len returns the number of waiting pods.
func (w *WaitingPods) Len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.pods)
}

// waitingPod is a pod held by Permit plugins until each of them allows it,
// one rejects it, or one's timeout expires.
type waitingPod struct {
	pod *model.Pod
	// result receives the outcome once; buffered so Allow and Reject never
	// block.
	result chan *framework.Status

	mu sync.Mutex
	// pending maps the plugins still to allow the pod to their timeout
	// timers (nil until started).
	pending map[string]Timer
	done    bool
}

var _ framework.WaitingPod = (*waitingPod)(nil)

func newWaitingPod(pod *model.Pod, timeouts map[string]time.Duration) *waitingPod {
	wp := &waitingPod{pod: pod, result: make(chan *framework.Status, 1), pending: make(map[string]Timer, len(timeouts))}
	for name := range timeouts {
		wp.pending[name] = nil
	}
	return wp
}

// startTimers rejects the pod when a plugin's timeout expires before it
// allows the pod. Timers are started without holding wp.mu, so a clock
// that fires at once cannot deadlock.
func (wp *waitingPod) startTimers(clock TimerClock, timeouts map[string]time.Duration) {
	for _, name := range slices.Sorted(maps.Keys(timeouts)) {
		d := timeouts[name]
		t := clock.AfterFunc(d, func() {
			wp.reject(name, fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", d, name))
		})
		wp.mu.Lock()
		if _, ok := wp.pending[name]; ok && !wp.done {
			wp.pending[name] = t
		} else {
			t.Stop()
		}
		wp.mu.Unlock()
	}
}

// Pod returns the waiting pod.
func (wp *waitingPod) Pod() *model.Pod { return wp.pod }

// PendingPlugins returns the plugins still to allow the pod, sorted.
func (wp *waitingPod) PendingPlugins() []string {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	return slices.Sorted(maps.Keys(wp.pending))
}

// Allow records that pluginName allows the pod; the last one lets it go.
func (wp *waitingPod) Allow(pluginName string) {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if t, ok := wp.pending[pluginName]; ok {
		if t != nil {
			t.Stop()
		}
		delete(wp.pending, pluginName)
	}
	if len(wp.pending) > 0 || wp.done {
		return
	}
	wp.done = true
	wp.result <- nil
}

// Reject fails the pod's Permit with an Unschedulable status naming
// pluginName.
func (wp *waitingPod) Reject(pluginName, msg string) { wp.reject(pluginName, msg) }

// reject is Reject reporting whether it decided the outcome.
func (wp *waitingPod) reject(pluginName, msg string) bool {
	return wp.finish(framework.NewStatus(framework.Unschedulable, msg).WithPlugin(pluginName))
}

// finish ends the wait with s unless it has ended; it stops the timers.
func (wp *waitingPod) finish(s *framework.Status) bool {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	for _, t := range wp.pending {
		if t != nil {
			t.Stop()
		}
	}
	if wp.done {
		return false
	}
	wp.done = true
	wp.result <- s
	return true
}
