package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	mt "github.com/berthsched/berth/core/model/modeltest"
)

// gangWorld is the randomized test's view of what it sent.
type gangWorld struct {
	e      *env
	rng    *rand.Rand
	slots  map[string]int64 // node -> capacity in millicores
	groups map[string]gangSpec
	next   int
}

type gangSpec struct {
	min, size int
	req       int64 // millicores per member
}

func (w *gangWorld) addGroup() {
	name := fmt.Sprintf("g%03d", w.next)
	w.next++
	size := 1 + w.rng.IntN(5)
	spec := gangSpec{size: size, min: 1 + w.rng.IntN(size), req: int64(1+w.rng.IntN(2)) * 1000}
	w.groups[name] = spec
	w.e.setGroup(name, int32(spec.min))
	prio := int32(w.rng.IntN(4))
	for i := range spec.size {
		w.e.addPods(mt.MakePod(fmt.Sprintf("%s-%d", name, i)).Group(name).Priority(prio).Req(mt.Res(spec.req, mt.Gi)).Obj())
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

func (w *gangWorld) deleteGroup(g string) {
	for i := range w.groups[g].size {
		if p, ok := w.e.s.state.find("default", fmt.Sprintf("%s-%d", g, i)); ok {
			if err := w.e.s.DeletePod(context.Background(), p); err != nil {
				w.e.t.Fatal(err)
			}
		}
	}
	if err := w.e.s.DeletePodGroup(context.Background(), "default", g); err != nil {
		w.e.t.Fatal(err)
	}
	delete(w.groups, g)
}

// TestGangRandomized runs many competing groups of random sizes, requests
// and priorities on random capacities, adding and deleting groups: after
// every attempt each group is bound all-or-nothing (at least min_count or
// none) and no node is overcommitted; whenever the queue runs dry, no
// group without bound members would fit in the free capacity.
func TestGangRandomized(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			e, _ := newGangEnv(t)
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
