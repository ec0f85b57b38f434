package scheduler

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// fakeBatcher stages decisions as "kind pod [node]" and commits them as
// one group, or fails to when fail is set.
type fakeBatcher struct {
	fail      bool
	committed [][]string
}

func (f *fakeBatcher) NewBatch() DecisionBatch { return &fakeBatch{f: f} }

type fakeBatch struct {
	f      *fakeBatcher
	staged []string
}

func (b *fakeBatch) Evict(_ context.Context, victim *model.Pod, node string, _ *model.Pod, _ string) error {
	b.staged = append(b.staged, "evict "+victim.Name+" "+node)
	return nil
}

func (b *fakeBatch) Nominate(_ context.Context, pod *model.Pod, node string) error {
	b.staged = append(b.staged, "nominate "+pod.Name+" "+node)
	return nil
}

func (b *fakeBatch) ClearNomination(_ context.Context, pod *model.Pod, _ string) error {
	b.staged = append(b.staged, "clear "+pod.Name)
	return nil
}

func (b *fakeBatch) Unschedulable(_ context.Context, pod *model.Pod, _ string, _ *framework.FitError) error {
	b.staged = append(b.staged, "unschedulable "+pod.Name)
	return nil
}

func (b *fakeBatch) Commit(context.Context) error {
	if b.f.fail {
		return errors.New("disk on fire")
	}
	b.f.committed = append(b.f.committed, b.staged)
	return nil
}

// TestDecisionBatch: with a Batcher, a preemption's Evict, the pod's
// Nominate and its report are committed as one group at the end of the
// cycle, and nothing goes through the sink one by one; when the group
// fails, the victim is no longer held as evicted (its Evict failed).
func TestDecisionBatch(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "committed", true: "failed"}[fail], func(t *testing.T) {
			batcher := &fakeBatcher{fail: fail}
			f := &fakeFilter{name: "F", reject: map[string]reject{}}
			pf := &fakePostFilter{name: "PF", nominate: "n1"}
			e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, postFilter: pf}, func(o *Options) { o.Batcher = batcher })
			e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(1000, mt.Gi)).Obj())
			victim := mt.MakePod("victim").Req(mt.Res(100, 0)).Node("n1").Obj()
			e.addPods(victim)
			f.reject["n1"] = reject{framework.Unschedulable, "full"}
			pf.victims = []*model.Pod{victim}
			e.addPods(mt.MakePod("p").RequestedPriority(10).Obj())
			if att := e.scheduleOne(); att.Evictions != 1 {
				t.Fatalf("p: %d evictions: %s", att.Evictions, att.Message)
			}
			if got := e.sink.decisions(); len(got) != 0 {
				t.Errorf("decisions through the sink: %+v, want none", got)
			}
			want := [][]string{{"evict victim n1", "nominate p n1", "unschedulable p"}}
			if fail {
				want = nil
			}
			if diff := cmp.Diff(want, batcher.committed); diff != "" {
				t.Errorf("committed groups (-want +got):\n%s", diff)
			}
			p, _ := e.s.View().Pod("uid-victim")
			st, _ := e.s.cache.Pod("uid-victim")
			marked := []bool{p.TerminatingByPreemption(), st.Pod.TerminatingByPreemption(), len(e.s.View().Evicted()) == 1}
			if diff := cmp.Diff([]bool{!fail, !fail, !fail}, marked); diff != "" {
				t.Errorf("victim marked evicted (view, cache, evicted set) (-want +got):\n%s", diff)
			}
		})
	}
}
