package plugintest

import (
	"context"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Hint answers as the scheduling queue would for a pod the plugin
// rejected: QueueSkip when the plugin registered no event matching ev,
// otherwise Queue if any matching registration queues (a registration
// without a hint function always does).
func Hint(t testing.TB, pl framework.EnqueueExtensions, ev framework.ClusterEvent, pod *model.Pod, oldObj, newObj any) framework.QueueingHint {
	t.Helper()
	regs, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatalf("%s EventsToRegister: %v", pl.Name(), err)
	}
	for _, r := range regs {
		if !r.Event.Matches(ev) {
			continue
		}
		if r.QueueingHintFn == nil {
			return framework.Queue
		}
		h, err := r.QueueingHintFn(pod, oldObj, newObj)
		if err != nil {
			t.Fatalf("%s hint for %+v: %v", pl.Name(), ev, err)
		}
		if h == framework.Queue {
			return framework.Queue
		}
	}
	return framework.QueueSkip
}
