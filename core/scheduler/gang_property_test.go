package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// gangWorld is the randomized test's view of what it sent.
type gangWorld struct {
	e      *env
	rng    *rand.Rand
	slots  map[string]int64 // node -> capacity in millicores
	groups map[string]gangSpec
	next   int
	seen   int // decisions acted on
}

type gangSpec struct {
	min, size int
	req       int64 // millicores per member
	// all is disruptionMode all: preempted as a whole.
	all bool
}

func (w *gangWorld) addGroup() {
	name := fmt.Sprintf("g%03d", w.next)
	w.next++
	size := 1 + w.rng.IntN(5)
	spec := gangSpec{size: size, min: 1 + w.rng.IntN(size), req: int64(1+w.rng.IntN(2)) * 1000, all: w.rng.IntN(2) == 0}
	w.groups[name] = spec
	prio := int32(w.rng.IntN(4))
	// The group's priority is its own, and its members must have it
	// (kube 1.37).
	if err := w.e.s.Upsert(context.Background(), &model.PodGroup{Namespace: "default", Name: name, MinCount: int32(spec.min), RequestedPriority: &prio, DisruptionAll: spec.all}); err != nil {
		w.e.t.Fatal(err)
	}
	for i := range spec.size {
		p := mt.MakePod(fmt.Sprintf("%s-%d", name, i)).Group(name).Req(mt.Res(spec.req, mt.Gi)).Obj()
		p.RequestedPriority = &prio // admission keeps a priority the caller gave
		w.e.addPods(p)
	}
}

// bound counts each group's bound members and each node's use.
func (w *gangWorld) bound() (perGroup map[string]int, used map[string]int64) {
	perGroup, used = map[string]int{}, map[string]int64{}
	for _, p := range w.e.s.state.podList() {
		if p.NodeName == "" {
			continue
		}
		perGroup[p.SchedulingGroup]++
		used[p.NodeName] += w.groups[p.SchedulingGroup].req
	}
	return perGroup, used
}

// check asserts all-or-nothing per group and no overcommitted node.
func (w *gangWorld) check(step int) {
	w.e.t.Helper()
	perGroup, used := w.bound()
	for g, spec := range w.groups {
		if n := perGroup[g]; n != 0 && n < spec.min {
			w.e.t.Fatalf("step %d: group %s has %d bound, min_count %d", step, g, n, spec.min)
		}
	}
	for n, u := range used {
		if u > w.slots[n] {
			w.e.t.Fatalf("step %d: node %s uses %d of %d", step, n, u, w.slots[n])
		}
	}
	if a := w.e.s.cache.Counts().AssumedPods; a != 0 {
		w.e.t.Fatalf("step %d: %d pods assumed after every bind was confirmed", step, a)
	}
}

// drain schedules until nothing can be popped, confirming binds and
// checking after every attempt.
func (w *gangWorld) drain(step int) {
	for range 1000 {
		w.e.expireBackoff()
		if st := w.e.s.queue.Stats(); st.Active+st.Backoff == 0 {
			return
		}
		w.e.scheduleOne()
		w.evictions()
		w.e.confirmBinds()
		w.check(step)
	}
	w.e.t.Fatalf("step %d: the queue never ran dry", step)
}

// stuck names a group none of whose members is bound although MinCount of
// them fit in the free capacity now.
func (w *gangWorld) stuck() string {
	perGroup, used := w.bound()
	for g, spec := range w.groups {
		if perGroup[g] != 0 {
			continue
		}
		fits := int64(0)
		for n, c := range w.slots {
			fits += (c - used[n]) / spec.req
		}
		if fits >= int64(spec.min) {
			return fmt.Sprintf("%s (min_count %d, %d free slots of %dm)", g, spec.min, fits, spec.req)
		}
	}
	return ""
}

// evictions acts on the Evicts not seen yet as an orchestrator does: the
// job of an evicted pod ends, so its whole group goes.
// A group with disruption mode all is evicted whole: every bound member of
// such a group with an evicted pod is evicted by the same attempt (mode
// single lets members go one by one, kube 1.37).
func (w *gangWorld) evictions() {
	ds := w.e.sink.decisions()
	evicted := map[string]int{}
	for _, d := range ds[w.seen:] {
		if d.Kind == "evict" {
			g, _, _ := strings.Cut(strings.TrimPrefix(d.Pod, "default/"), "-")
			evicted[g]++
		}
	}
	w.seen = len(ds)
	perGroup, _ := w.bound()
	for g, n := range evicted {
		if spec, ok := w.groups[g]; ok && spec.all && n != perGroup[g] {
			w.e.t.Fatalf("group %s: %d of its %d bound members evicted", g, n, perGroup[g])
		}
		if _, ok := w.groups[g]; ok {
			w.deleteGroup(g)
		}
	}
}

func (w *gangWorld) deleteGroup(g string) {
	for i := range w.groups[g].size {
		if p, ok := w.e.s.state.find("default", fmt.Sprintf("%s-%d", g, i)); ok {
			if err := w.e.s.DeletePod(context.Background(), p); err != nil {
				w.e.t.Fatal(err)
			}
		}
	}
	if err := w.e.s.deletePodGroup(context.Background(), "default", g); err != nil {
		w.e.t.Fatal(err)
	}
	delete(w.groups, g)
}

// TestGangRandomized runs many competing groups of random sizes, requests
// and priorities on random capacities, adding and deleting groups, without
// and with preemption (an evicted pod's whole group is deleted, as its job
// ends): after every attempt each group is bound all-or-nothing (at least
// min_count or none) and no node is overcommitted; whenever the queue runs
// dry, no group without bound members would fit in the free capacity.
func TestGangRandomized(t *testing.T) {
	for _, preempt := range []bool{false, true} {
		t.Run(fmt.Sprintf("preemption=%v", preempt), func(t *testing.T) { gangRandomized(t, preempt) })
	}
}

func gangRandomized(t *testing.T, preempt bool) {
	evictions := 0
	defer func() {
		if preempt && evictions == 0 && !t.Failed() {
			t.Errorf("no run preempted: the test does not exercise group preemption")
		}
	}()
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			e, _ := newGangEnv(t)
			if preempt {
				e, _ = newPreemptEnv(t, 0)
			}
			defer func() { evictions += countKind(e.sink.decisions(), "evict") }()
			w := &gangWorld{e: e, rng: rand.New(rand.NewPCG(seed, 19)), slots: map[string]int64{}, groups: map[string]gangSpec{}}
			for i := range 3 + w.rng.IntN(4) {
				milli := int64(1+w.rng.IntN(4)) * 1000
				n := mt.MakeNode(fmt.Sprintf("n%d", i)).Capacity(mt.Res(milli, 64*mt.Gi)).Obj()
				w.slots[n.Name] = milli
				e.addNodes(n)
			}
			for range 4 + w.rng.IntN(6) {
				w.addGroup()
			}
			for step := range 40 {
				w.drain(step)
				if g := w.stuck(); g != "" {
					t.Fatalf("step %d: group %s fits in free capacity but is not bound", step, g)
				}
				if w.rng.IntN(3) == 0 || len(w.groups) == 0 {
					w.addGroup()
					continue
				}
				perGroup, _ := w.bound()
				for g := range w.groups {
					if perGroup[g] > 0 {
						w.deleteGroup(g)
						break
					}
				}
			}
		})
	}
}
