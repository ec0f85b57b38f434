package defragsvc

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
)

func stuckState(name string) pendingState {
	return pendingState{pod: testPod(name, "", 1000), queued: t0, failed: true,
		queue: scheduler.QueueState{SubQueue: queue.Unschedulable, Attempts: 2}}
}

func TestStuck(t *testing.T) {
	now := t0.Add(time.Minute)
	tests := []struct {
		name   string
		change func(*pendingState)
		want   string
	}{
		{name: "stuck", change: func(*pendingState) {}, want: ""},
		{name: "backing off after a failure", change: func(p *pendingState) { p.queue.SubQueue = queue.Backoff }, want: ""},
		{name: "active", change: func(p *pendingState) { p.queue.SubQueue = queue.Active }, want: "in the Active queue"},
		{name: "in a cycle", change: func(p *pendingState) { p.queue.SubQueue = queue.InFlight }, want: "in the InFlight queue"},
		{name: "gated", change: func(p *pendingState) { p.queue.SubQueue = queue.Gated }, want: "in the Gated queue"},
		{name: "never attempted", change: func(p *pendingState) { p.queue.Attempts, p.failed = 0, false }, want: "not attempted yet"},
		{name: "waiting for a claim", change: func(p *pendingState) { p.queue.PendingPlugins = []string{"DynamicResources"} }, want: "waiting for DynamicResources"},
		{name: "nominated by preemption", change: func(p *pendingState) { p.queue.NominatedNode = "n1" }, want: "nominated"},
		{name: "pending less than the interval", change: func(p *pendingState) { p.queued = now.Add(-59 * time.Second) }, want: "pending for less than the check interval"},
		{name: "being deleted", change: func(p *pendingState) { p.pod.Terminating = true }, want: "being deleted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := stuckState("p")
			tc.change(&p)
			if got := stuck(p, now, time.Minute); got != tc.want {
				t.Errorf("stuck = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWaitingSets(t *testing.T) {
	member := func(group, name string) pendingState {
		p := stuckState(name)
		p.pod.SchedulingGroup = group
		return p
	}
	notYet := member("young", "y-1")
	notYet.queued = t0.Add(30 * time.Second)
	pending := []pendingState{
		member("full", "f-1"), stuckState("solo"), member("full", "f-0"),
		member("short", "s-0"),         // minCount 2, one member
		member("partly", "p-0"),        // a member placed already
		member("unknown", "u-0"),       // no such group
		member("young", "y-0"), notYet, // one member not stuck
		func() pendingState { p := stuckState("active"); p.queue.SubQueue = queue.Active; return p }(),
	}
	groups := []*model.PodGroup{
		{Namespace: "default", Name: "full", MinCount: 2}, {Namespace: "default", Name: "short", MinCount: 2},
		{Namespace: "default", Name: "partly", MinCount: 1}, {Namespace: "default", Name: "young", MinCount: 2},
	}
	placed := testPod("p-1", "n1", 1000)
	placed.SchedulingGroup = "partly"
	sets := waitingSets(pending, groups, []*model.Pod{placed}, t0.Add(time.Minute), time.Minute)
	var got []string
	for _, s := range sets {
		var names []string
		for _, p := range s.pods {
			names = append(names, p.Name)
		}
		got = append(got, s.key+": "+strings.Join(names, " "))
	}
	want := []string{"pod default/solo: solo", "pod group default/full: f-0 f-1"}
	if !slices.Equal(got, want) {
		t.Errorf("sets %q, want %q", got, want)
	}
}
