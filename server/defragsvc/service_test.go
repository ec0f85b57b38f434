package defragsvc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// check runs one Check and returns its outcomes by set.
func check(t *testing.T, s *Service) map[string]Outcome {
	t.Helper()
	out, err := s.Check(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Outcome{}
	for _, o := range out {
		if _, dup := by[o.Set]; dup {
			t.Fatalf("two outcomes for %s in one check: %v", o.Set, out)
		}
		by[o.Set] = o
	}
	return by
}

// A large pod stuck for an interval gets one plan: an Evict with cause
// DEFRAGMENT naming it and the target, and its Nomination; the plan is
// followed (no second plan while in flight) and completes when the pod
// binds where planned.
func TestCheckCommitsFollowsCompletes(t *testing.T) {
	f := fragmented()
	clock := &testClock{now: t0}
	f.add(t0, testPod("large", "", 3000))
	s := newService(t, f, clock)

	if got := check(t, s); len(got) != 0 || len(f.submitted()) != 0 {
		t.Fatalf("pending for less than the interval: outcomes %v, plans %d", got, len(f.submitted()))
	}
	clock.advance(time.Minute)
	got := check(t, s)
	if o := got["pod default/large"]; o.Result != Committed || o.Moves != 1 {
		t.Fatalf("outcome %+v, want committed with 1 move", o)
	}
	plans := f.submitted()
	if len(plans) != 1 || len(plans[0].Items) != 2 {
		t.Fatalf("plans %+v: want one of an Evict and a Nomination", plans)
	}
	ev, ok := plans[0].Items[0].(*framework.Eviction)
	if !ok || ev.Cause != framework.EvictDefragment || ev.Victim.Name != "big-1" || ev.Node != "n1" ||
		!strings.Contains(ev.Message, "Defragmented for pod default/large (planned on n1): moved off n1;") || !strings.Contains(ev.Message, "re-places it on n") {
		t.Errorf("item 0 %+v", plans[0].Items[0])
	}
	if nom, ok := plans[0].Items[1].(*framework.Nomination); !ok || nom.Pod.Name != "large" || nom.Node != "n1" {
		t.Errorf("item 1 %+v: want large nominated to n1", plans[0].Items[1])
	}

	clock.advance(time.Minute)
	if got := check(t, s); len(got) != 0 || len(f.submitted()) != 1 {
		t.Fatalf("plan in flight: outcomes %v, %d plans; want nothing new", got, len(f.submitted()))
	}
	f.remove("u-big-1")
	f.bind("u-large", "n1")
	if o := check(t, s)["pod default/large"]; o.Result != Completed {
		t.Fatalf("outcome %+v, want completed", o)
	}
	if got := check(t, s); len(got) != 0 {
		t.Errorf("after completion: %v", got)
	}
}

// A plan ends abandoned, its nominations cleared with the reason, when
// its waiting pod is deleted, binds elsewhere, is nominated elsewhere, or
// the moved pods are not gone within the bound; the set is not searched
// again before the bound.
func TestCheckAbandons(t *testing.T) {
	tests := []struct {
		name string
		// then changes the cluster after the commit.
		then      func(f *fakeCluster, clock *testClock)
		why       string
		wantClear bool
	}{
		{name: "waiting pod deleted", then: func(f *fakeCluster, _ *testClock) { f.remove("u-large") }, why: "the waiting pod default/large was deleted"},
		{name: "bound elsewhere", then: func(f *fakeCluster, _ *testClock) { f.bind("u-large", "n3") }, why: "bound to n3, not where planned (n1)"},
		{name: "nominated elsewhere", then: func(f *fakeCluster, _ *testClock) { f.setNominated("u-large", "n2") }, why: "nominated to n2, not where planned (n1)"},
		{name: "moved pod not gone", then: func(_ *fakeCluster, c *testClock) { c.advance(2 * time.Minute) },
			why: "the moved pods default/big-1 are not gone 2m0s after the plan", wantClear: true},
		{name: "waiting pod not bound", then: func(f *fakeCluster, c *testClock) { f.remove("u-big-1"); c.advance(2 * time.Minute) },
			why: "the waiting pods are not all bound 2m0s after the plan", wantClear: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fragmented()
			clock := &testClock{now: t0.Add(time.Minute)}
			f.add(t0, testPod("large", "", 3000))
			s := newService(t, f, clock)
			if o := check(t, s)["pod default/large"]; o.Result != Committed {
				t.Fatalf("outcome %+v", o)
			}
			tc.then(f, clock)
			o := check(t, s)["pod default/large"]
			if o.Result != Abandoned || !strings.Contains(o.Why, tc.why) {
				t.Fatalf("outcome %+v, want abandoned: ...%s", o, tc.why)
			}
			plans := f.submitted()
			cleared := len(plans) == 2
			if cleared != tc.wantClear {
				t.Fatalf("plans %+v: want a ClearNomination %v", plans, tc.wantClear)
			}
			if cleared {
				c, ok := plans[1].Items[0].(*framework.ClearNomination)
				if !ok || c.Pod.Name != "large" || !strings.Contains(c.Reason, "defragmentation for pod default/large abandoned: "+tc.why) {
					t.Errorf("clear %+v", plans[1].Items[0])
				}
			}
			if p, ok := f.Pod("u-large"); ok && p.NodeName == "" && p.NominatedNodeName == "n1" {
				t.Errorf("large still nominated to n1 after the abandonment")
			}
			clock.advance(time.Minute)
			if o := check(t, s)["pod default/large"]; o.Result != "" {
				t.Errorf("searched again within the bound: %+v", o)
			}
		})
	}
}

// A nomination the scheduler dropped while the moved pods are still
// there is given back.
func TestCheckNominatesAgain(t *testing.T) {
	f := fragmented()
	clock := &testClock{now: t0.Add(time.Minute)}
	f.add(t0, testPod("large", "", 3000))
	s := newService(t, f, clock)
	check(t, s)
	f.setNominated("u-large", "")
	if got := check(t, s); len(got) != 0 {
		t.Fatalf("outcomes %v: want the plan still in flight", got)
	}
	if p, _ := f.Pod("u-large"); p.NominatedNodeName != "n1" {
		t.Errorf("large nominated to %q, want n1 again", p.NominatedNodeName)
	}
}

// What the decision log refuses: a moved pod evicted already leaves all
// the same, so the plan stands; a refused Nomination cannot hold the room,
// so the plan is abandoned at once.
func TestCheckRefusals(t *testing.T) {
	tests := []struct {
		name   string
		refuse func(framework.PlanItem) error
		want   Result
	}{
		{name: "evicted already", want: Committed, refuse: func(it framework.PlanItem) error {
			if _, ok := it.(*framework.Eviction); ok {
				return errTestRefused
			}
			return nil
		}},
		{name: "nomination refused", want: Abandoned, refuse: func(it framework.PlanItem) error {
			if _, ok := it.(*framework.Nomination); ok {
				return errors.New("no such pod")
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := fragmented()
			f.refuse = tc.refuse
			clock := &testClock{now: t0.Add(time.Minute)}
			f.add(t0, testPod("large", "", 3000))
			s := newService(t, f, clock)
			if o := check(t, s)["pod default/large"]; o.Result != tc.want {
				t.Fatalf("outcome %+v, want %s", o, tc.want)
			}
		})
	}
}

// Searches that end without a plan: the pod fits already, nothing is
// movable; held back for the bound after a failed search; nothing while
// the scheduler is held.
func TestCheckWithoutPlan(t *testing.T) {
	f := fragmented()
	clock := &testClock{now: t0.Add(time.Minute)}
	bare := testPod("huge", "", 5000)
	f.add(t0, bare, testPod("small", "", 1000))
	s := newService(t, f, clock)
	got := check(t, s)
	if o := got["pod default/huge"]; o.Result != NoPlan {
		t.Errorf("huge: %+v, want no_plan", o)
	}
	if o := got["pod default/small"]; o.Result != NotNeeded {
		t.Errorf("small: %+v, want not_needed", o)
	}
	clock.advance(time.Minute)
	if o := check(t, s)["pod default/huge"]; o.Result != "" {
		t.Errorf("huge searched again within the bound: %+v", o)
	}
	clock.advance(time.Minute)
	if o := check(t, s)["pod default/huge"]; o.Result != NoPlan {
		t.Errorf("huge after the bound: %+v, want no_plan again", o)
	}
	f.held = true
	clock.advance(5 * time.Minute)
	if got := check(t, s); len(got) != 0 {
		t.Errorf("held: %v", got)
	}
	if len(f.submitted()) != 0 {
		t.Errorf("plans %+v", f.submitted())
	}
}

// A pod group whose members are all there gets one plan for all of them;
// its members are never moved for another plan.
func TestCheckGroup(t *testing.T) {
	f := fragmented()
	for i := 4; i <= 5; i++ {
		n := "n" + string(rune('0'+i))
		f.nodes = append(f.nodes, testNode(n, 4000))
		f.add(time.Time{}, testPod("big-"+n[1:], n, 1500), testPod("small-"+n[1:], n, 1000))
	}
	f.groups = []*model.PodGroup{{Namespace: "default", Name: "train", MinCount: 2}}
	var members []*model.Pod
	for _, name := range []string{"w-1", "w-0"} {
		p := testPod(name, "", 3000)
		p.SchedulingGroup = "train"
		members = append(members, p)
	}
	f.add(t0, members...)
	clock := &testClock{now: t0.Add(time.Minute)}
	s := newService(t, f, clock)
	o := check(t, s)["pod group default/train"]
	if o.Result != Committed || o.Moves < 2 {
		t.Fatalf("outcome %+v, want committed with the members' moves", o)
	}
	plan := f.submitted()[0]
	var noms []string
	for _, it := range plan.Items {
		switch it := it.(type) {
		case *framework.Eviction:
			if !strings.Contains(it.Message, "Defragmented for pod group default/train") {
				t.Errorf("evict message %q", it.Message)
			}
		case *framework.Nomination:
			noms = append(noms, it.Pod.Name+"@"+it.Node)
		}
	}
	if len(noms) != 2 || !strings.HasPrefix(noms[0], "w-0@") || !strings.HasPrefix(noms[1], "w-1@") {
		t.Errorf("nominations %v: want w-0 then w-1", noms)
	}
}
