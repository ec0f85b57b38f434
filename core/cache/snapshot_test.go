package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestUpdateSnapshotCopiesOnlyChanged marks every NodeInfo of a snapshot,
// changes one node in the cache, and checks that only that node's NodeInfo
// was copied again.
func TestUpdateSnapshotCopiesOnlyChanged(t *testing.T) {
	tests := []struct {
		name    string
		change  func(c *Cache)
		recopy  []string // nodes whose NodeInfo must be fresh copies
		wantErr bool
	}{
		{name: "nothing changed"},
		{name: "pod added", change: func(c *Cache) { _ = c.AddPod(bound(mt.MakePod("p").Obj(), "n2")) }, recopy: []string{"n2"}},
		{name: "pod assumed", change: func(c *Cache) { _ = c.AssumePod(framework.MustPodInfo(bound(mt.MakePod("p").Obj(), "n3"))) }, recopy: []string{"n3"}},
		{name: "node updated", change: func(c *Cache) { c.UpdateNode(mt.MakeNode("n1").Zone("a").Label("x", "y").Obj()) }, recopy: []string{"n1"}},
		{name: "node added", change: func(c *Cache) { c.AddNode(zoned("n4", "b")) }, recopy: []string{"n4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			c.AddNode(zoned("n1", "a"))
			c.AddNode(zoned("n2", "a"))
			c.AddNode(zoned("n3", "b"))
			s := NewEmptySnapshot()
			if err := c.UpdateSnapshot(s); err != nil {
				t.Fatal(err)
			}
			const mark = int64(-424242)
			for _, ni := range s.List() {
				ni.Requested.Pods = mark
			}
			if tc.change != nil {
				tc.change(c)
			}
			if err := c.UpdateSnapshot(s); err != nil {
				t.Fatal(err)
			}
			var fresh []string
			for _, ni := range s.List() {
				if ni.Requested.Pods != mark {
					fresh = append(fresh, ni.Name())
				}
			}
			if diff := cmp.Diff(tc.recopy, fresh, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("copied again (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnapshotAffinityLists(t *testing.T) {
	anti := mt.MakePod("anti").PodAntiAffinity(0, antiTerm).Obj()
	pref := mt.MakePod("pref").PodAffinity(10, antiTerm).Obj()
	c := New()
	for _, n := range []string{"n1", "n2", "n3"} {
		c.AddNode(mt.MakeNode(n).Obj())
	}
	s := NewEmptySnapshot()
	steps := []struct {
		name string
		do   func()
		want snapView
	}{
		{
			name: "required anti-affinity pod on n2",
			do:   func() { _ = c.AddPod(bound(anti, "n2")) },
			want: snapView{WithAffinity: []string{"n2"}, WithRequiredAnti: []string{"n2"}},
		},
		{
			name: "preferred affinity pod on n1",
			do:   func() { _ = c.AddPod(bound(pref, "n1")) },
			want: snapView{WithAffinity: []string{"n1", "n2"}, WithRequiredAnti: []string{"n2"}},
		},
		{
			name: "anti pod removed",
			do:   func() { _ = c.RemovePod(anti) },
			want: snapView{WithAffinity: []string{"n1"}},
		},
		{
			name: "node n1 deleted",
			do:   func() { _ = c.RemoveNode("n1") },
			want: snapView{},
		},
	}
	for _, st := range steps {
		st.do()
		if err := c.UpdateSnapshot(s); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := viewSnapshot(s)
		got.Nodes = nil
		if diff := cmp.Diff(st.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
}

func TestSnapshotGet(t *testing.T) {
	s, err := NewSnapshot(
		[]*model.Node{zoned("n1", "a"), zoned("n2", "b"), zoned("n3", "a")},
		[]*model.Pod{bound(mt.MakePod("p").Req(mt.Res(100, 0)).Obj(), "n3"), bound(mt.MakePod("q").Obj(), "gone")},
	)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, names(s.List())); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if ni, err := s.Get("n3"); err != nil || ni.Requested.MilliCPU != 100 {
		t.Errorf("Get(n3) = %v, %v; want the node with 100m requested", ni, err)
	}
	if _, err := s.Get("gone"); err == nil {
		t.Error("Get of a node known only through its pods succeeded")
	}
	if s.NumNodes() != 3 {
		t.Errorf("NumNodes = %d", s.NumNodes())
	}
}
