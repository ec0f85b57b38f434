package decisionlog

import (
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store/bboltstore"
)

// A group's binds are one commit: consecutive revisions with one commit
// time, each Bind naming the group, each book record its group and its
// own revision.
func TestBindGroupOneCommit(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	if err := l.Bind(ctx, pod("alone"), "n0"); err != nil {
		t.Fatal(err)
	}
	var members []*model.Pod
	for _, n := range []string{"a", "b", "c"} {
		p := pod(n)
		p.SchedulingGroup = "train"
		members = append(members, p)
	}
	if err := l.BindGroup(ctx, "train", members, []string{"n1", "n2", "n1"}); err != nil {
		t.Fatal(err)
	}
	bind := func(node, group string) *berthv1.Decision_Bind {
		return &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: node, Group: group}}
	}
	want := []*berthv1.Decision{
		{Revision: 1, SchedulerName: model.DefaultSchedulerName, Pod: ref("alone"), Action: bind("n0", "")},
		{Revision: 2, SchedulerName: model.DefaultSchedulerName, Pod: ref("a"), Action: bind("n1", "train")},
		{Revision: 3, SchedulerName: model.DefaultSchedulerName, Pod: ref("b"), Action: bind("n2", "train")},
		{Revision: 4, SchedulerName: model.DefaultSchedulerName, Pod: ref("c"), Action: bind("n1", "train")},
	}
	got := readAll(t, st)
	if diff := diffDecisions(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if len(got) == 4 && (!got[1].GetTime().AsTime().Equal(got[3].GetTime().AsTime())) {
		t.Errorf("the group's binds have different commit times: %v, %v", got[1].GetTime(), got[3].GetTime())
	}
	for i, p := range members {
		r, ok := l.book.Get(podbook.KindBind, p.UID)
		if !ok || r.Group != "train" || r.Revision != uint64(2+i) {
			t.Errorf("book record of %s: %+v, %v", p.Name, r, ok)
		}
	}
}
