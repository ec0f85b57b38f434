package queue

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

func override(node string) *framework.NominatingInfo {
	return &framework.NominatingInfo{NominatedNodeName: node, Mode: framework.ModeOverride}
}

// nominations renders the nominator as node -> pod names.
func nominations(n *Nominator) map[string][]string {
	out := map[string][]string{}
	for _, nom := range n.All() {
		out[nom.NodeName] = append(out[nom.NodeName], nom.PodKey)
	}
	return out
}

func TestNominator(t *testing.T) {
	p := pod("p").Obj()
	tests := []struct {
		name   string
		lookup func(uid string) (*model.Pod, bool)
		ops    func(n *Nominator)
		want   map[string][]string
	}{
		{
			name: "override",
			ops:  func(n *Nominator) { n.AddNominatedPod(framework.MustPodInfo(p), override("n1")) },
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "noop takes the pod's own nomination",
			ops:  func(n *Nominator) { n.AddNominatedPod(framework.MustPodInfo(pod("p").Nominated("n2").Obj()), nil) },
			want: map[string][]string{"n2": {"default/p"}},
		},
		{
			name: "noop without a nomination clears",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(p), nil)
			},
			want: map[string][]string{},
		},
		{
			name: "override to another node moves it",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(p), override("n2"))
			},
			want: map[string][]string{"n2": {"default/p"}},
		},
		{
			name: "override to no node clears",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(p), override(""))
			},
			want: map[string][]string{},
		},
		{
			name: "several pods on a node, in nomination order",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(pod("b").Obj()), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(pod("a").Obj()), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(pod("c").Obj()), override("n2"))
			},
			want: map[string][]string{"n1": {"default/a", "default/b"}, "n2": {"default/c"}},
		},
		{
			name: "delete",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.AddNominatedPod(framework.MustPodInfo(pod("q").Obj()), override("n1"))
				n.DeleteNominatedPodIfExists(p)
				n.DeleteNominatedPodIfExists(pod("never").Obj())
			},
			want: map[string][]string{"n1": {"default/q"}},
		},
		{
			name: "update without nominations keeps the scheduler's",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.UpdateNominatedPod(p, framework.MustPodInfo(pod("p").Label("v", "2").Obj()))
			},
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "update setting a nomination wins",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n1"))
				n.UpdateNominatedPod(p, framework.MustPodInfo(pod("p").Nominated("n2").Obj()))
			},
			want: map[string][]string{"n2": {"default/p"}},
		},
		{
			name: "update changing the nomination wins",
			ops: func(n *Nominator) {
				old := pod("p").Nominated("n1").Obj()
				n.AddNominatedPod(framework.MustPodInfo(old), nil)
				n.UpdateNominatedPod(old, framework.MustPodInfo(pod("p").Nominated("n3").Obj()))
			},
			want: map[string][]string{"n3": {"default/p"}},
		},
		{
			name: "update removing the nomination clears",
			ops: func(n *Nominator) {
				old := pod("p").Nominated("n1").Obj()
				n.AddNominatedPod(framework.MustPodInfo(old), nil)
				n.UpdateNominatedPod(old, framework.MustPodInfo(pod("p").Obj()))
			},
			want: map[string][]string{},
		},
		{
			name: "update of a pod never nominated",
			ops:  func(n *Nominator) { n.UpdateNominatedPod(p, framework.MustPodInfo(pod("p").Label("v", "2").Obj())) },
			want: map[string][]string{},
		},
		{
			name: "bound pod is not nominated",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(pod("p").Node("n1").Obj()), override("n1"))
			},
			want: map[string][]string{},
		},
		{
			name:   "lookup: gone pod is not nominated",
			lookup: func(string) (*model.Pod, bool) { return nil, false },
			ops:    func(n *Nominator) { n.AddNominatedPod(framework.MustPodInfo(p), override("n1")) },
			want:   map[string][]string{},
		},
		{
			name:   "lookup: pod bound meanwhile is not nominated",
			lookup: func(string) (*model.Pod, bool) { return pod("p").Node("n9").Obj(), true },
			ops:    func(n *Nominator) { n.AddNominatedPod(framework.MustPodInfo(p), override("n1")) },
			want:   map[string][]string{},
		},
		{
			name: "restored nomination shows before its pod arrives",
			ops:  func(n *Nominator) { n.Restore([]Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n1"}}) },
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "restored nomination claimed by the pod",
			ops: func(n *Nominator) {
				n.Restore([]Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n1"}})
				n.AddNominatedPod(framework.MustPodInfo(p), nil)
			},
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "restored nomination overridden",
			ops: func(n *Nominator) {
				n.Restore([]Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n1"}})
				n.AddNominatedPod(framework.MustPodInfo(p), override("n2"))
			},
			want: map[string][]string{"n2": {"default/p"}},
		},
		{
			name: "restored nomination dropped with its pod",
			ops: func(n *Nominator) {
				n.Restore([]Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n1"}})
				n.DeleteNominatedPodIfExists(p)
			},
			want: map[string][]string{},
		},
		{
			name: "restore does not replace a live nomination",
			ops: func(n *Nominator) {
				n.AddNominatedPod(framework.MustPodInfo(p), override("n2"))
				n.Restore([]Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n1"}})
			},
			want: map[string][]string{"n2": {"default/p"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := NewNominator(tc.lookup)
			tc.ops(n)
			if diff := cmp.Diff(tc.want, nominations(n)); diff != "" {
				t.Errorf("nominations (-want +got):\n%s", diff)
			}
			// The two indexes agree.
			for _, nom := range n.All() {
				if got, _ := n.NominatedNodeName(nom.PodUID); got != nom.NodeName {
					t.Errorf("NominatedNodeName(%s) = %q, want %q", nom.PodUID, got, nom.NodeName)
				}
			}
		})
	}
}

// TestNominatedPodsForNodeStaysAsReturned: the nominator hands out its
// slice without a copy, so it must never change one it handed out; later
// nominations and deletions make new slices.
func TestNominatedPodsForNodeStaysAsReturned(t *testing.T) {
	n := NewNominator(nil)
	a, b, c := pod("a").Obj(), pod("b").Obj(), pod("c").Obj()
	n.AddNominatedPod(framework.MustPodInfo(a), override("n1"))
	n.AddNominatedPod(framework.MustPodInfo(b), override("n1"))
	before := n.NominatedPodsForNode("n1")
	n.DeleteNominatedPodIfExists(a)
	n.AddNominatedPod(framework.MustPodInfo(c), override("n1"))
	names := func(pis []*framework.PodInfo) []string {
		var out []string
		for _, pi := range pis {
			out = append(out, pi.Pod.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b"}, names(before)); diff != "" {
		t.Errorf("slice returned before (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "c"}, names(n.NominatedPodsForNode("n1"))); diff != "" {
		t.Errorf("now (-want +got):\n%s", diff)
	}
}

func TestAllAndRestoreRoundTrip(t *testing.T) {
	n := NewNominator(nil)
	n.AddNominatedPod(framework.MustPodInfo(pod("b").Obj()), override("n2"))
	n.AddNominatedPod(framework.MustPodInfo(pod("a").Obj()), override("n2"))
	n.AddNominatedPod(framework.MustPodInfo(pod("c").Obj()), override("n1"))
	saved := n.All()
	want := []Nomination{
		{PodUID: "uid-c", PodKey: "default/c", NodeName: "n1"},
		{PodUID: "uid-a", PodKey: "default/a", NodeName: "n2"},
		{PodUID: "uid-b", PodKey: "default/b", NodeName: "n2"},
	}
	if diff := cmp.Diff(want, saved); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	// After a restart the queue gets the pods again; their nominations come
	// back without the pods carrying NominatedNodeName.
	q := newTestQueue(t, nil)
	q.Nominator().Restore(saved)
	q.add(t, pod("a").Obj(), pod("b").Obj(), pod("c").Obj())
	if diff := cmp.Diff(want, q.Nominator().All()); diff != "" {
		t.Errorf("All after restore (-want +got):\n%s", diff)
	}
	if got := len(q.Nominator().NominatedPodsForNode("n2")); got != 2 {
		t.Errorf("n2 has %d nominated pods, want 2", got)
	}
}

// TestQueueKeepsNominations checks the queue's calls into the nominator.
func TestQueueKeepsNominations(t *testing.T) {
	tests := []struct {
		name string
		ops  func(q *testQueue)
		want map[string][]string
	}{
		{
			name: "added pod carrying a nomination",
			ops:  func(q *testQueue) { q.add(t, pod("p").Nominated("n1").Obj()) },
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			// kube 1.37: a gated pod's nomination is recorded too (1.36
			// recorded it only when the pod entered activeQ).
			name: "gated pod keeps its nomination",
			ops:  func(q *testQueue) { q.add(t, pod("p").Gate("g").Nominated("n1").Obj()) },
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "update of a queued pod keeps the scheduler's nomination",
			ops: func(q *testQueue) {
				q.add(t, pod("p").Obj())
				q.Nominator().AddNominatedPod(framework.MustPodInfo(pod("p").Obj()), override("n1"))
				mustUpdate(t, q, pod("p").Obj(), pod("p").Label("v", "2").Obj())
			},
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "update moving an unschedulable pod keeps it too",
			ops: func(q *testQueue) {
				q.add(t, pod("p").Obj())
				q.fail(t, q.pop(t), []string{labels}, nil)
				q.Nominator().AddNominatedPod(framework.MustPodInfo(pod("p").Obj()), override("n1"))
				q.clock.Step(5 * time.Second)
				mustUpdate(t, q, pod("p").Obj(), pod("p").Label("v", "2").Obj())
				if got := q.where("uid-p"); got != Active {
					t.Errorf("pod is in %q, want Active", got)
				}
			},
			want: map[string][]string{"n1": {"default/p"}},
		},
		{
			name: "update to bound drops it",
			ops: func(q *testQueue) {
				q.add(t, pod("p").Nominated("n1").Obj())
				mustUpdate(t, q, nil, pod("p").Node("n1").Obj())
			},
			want: map[string][]string{},
		},
		{
			name: "delete drops it",
			ops: func(q *testQueue) {
				q.add(t, pod("p").Nominated("n1").Obj())
				q.Delete(pod("p").Obj())
			},
			want: map[string][]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			tc.ops(q)
			if diff := cmp.Diff(tc.want, nominations(q.Nominator())); diff != "" {
				t.Errorf("nominations (-want +got):\n%s", diff)
			}
		})
	}
}
