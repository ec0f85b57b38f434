package gang_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// leafSlots is a LeafPlacer over slots: each leaf is a gang.Place.
type leafSlots struct{ *slots }

func (l leafSlots) PlaceLeaf(ctx context.Context, n *gang.Node) *gang.Result {
	return gang.Place(ctx, n.Group, n.Need, n.Members, l.slots)
}

func (l leafSlots) UndoLeaf(ctx context.Context, r *gang.Result) {
	for i := len(r.Placed) - 1; i >= 0; i-- {
		l.Undo(ctx, r.Placed[i].Pod, r.Placed[i].Node)
	}
}

// leaf is a PodGroup of min count pods named NAME-0..NAME-(pods-1), none
// placed before.
func leaf(name string, min, pods int) *gang.Node {
	n := &gang.Node{Group: &model.PodGroup{Namespace: "default", Name: name, MinCount: int32(min)}, Need: min}
	for i := range pods {
		n.Members = append(n.Members, mt.MakePod(fmt.Sprintf("%s-%d", name, i)).Obj())
	}
	return n
}

func composite(name string, min int, children ...*gang.Node) *gang.Node {
	return &gang.Node{Composite: &model.CompositePodGroup{Namespace: "default", Name: name, MinGroupCount: int32(min)}, Children: children}
}

func TestPlaceTree(t *testing.T) {
	for _, tc := range []struct {
		name      string
		free      int // slots, on node a
		tree      *gang.Node
		scheduled bool
		kept      []string // leaves bound
		message   string
	}{
		{name: "every child fits", free: 4, tree: composite("root", 2, leaf("x", 2, 2), leaf("y", 2, 2)),
			scheduled: true, kept: []string{"x", "y"}, message: "composite pod group default/root: placed 2 pod groups"},
		{name: "one child short: all or nothing", free: 3, tree: composite("root", 2, leaf("x", 2, 2), leaf("y", 2, 2)),
			message: "composite pod group default/root: 1 of 2 child groups placed, 2 needed (min_group_count); " +
				"pod group default/y: 1 of 2 pending members fit, 2 needed (min_count 2); y-1: 0/2 nodes are available: 2 full."},
		{name: "min_group_count of children is enough", free: 3, tree: composite("root", 1, leaf("x", 2, 2), leaf("y", 2, 2)),
			scheduled: true, kept: []string{"x"},
			message: "composite pod group default/root: placed 1 pod groups; pod group default/y: 1 of 2 pending members fit, 2 needed (min_count 2); y-1: 0/2 nodes are available: 2 full."},
		{name: "a nested composite short undoes its children", free: 3,
			tree:      composite("root", 1, composite("mid", 2, leaf("x", 2, 2), leaf("y", 2, 4)), leaf("z", 1, 1)),
			scheduled: true, kept: []string{"z"},
			message: "composite pod group default/root: placed 1 pod groups; pod group default/y: 1 of 4 pending members fit, 2 needed (min_count 2); y-1, y-2, y-3: 0/2 nodes are available: 2 full."},
		{name: "too few children to ever count", free: 9, tree: composite("root", 3, leaf("x", 1, 1), leaf("y", 1, 1)),
			message: "composite pod group default/root: 0 of 2 child groups placed, 3 needed (min_group_count)"},
		{name: "no pod placed", free: 0, tree: composite("root", 1, &gang.Node{Group: &model.PodGroup{Namespace: "default", Name: "done", MinCount: 1}, Need: 0}),
			message: "composite pod group default/root: no pod was placed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &slots{free: map[string]int{"a": tc.free}}
			r := gang.PlaceTree(context.Background(), tc.tree, leafSlots{s})
			if r.Scheduled != tc.scheduled {
				t.Errorf("scheduled %v, want %v", r.Scheduled, tc.scheduled)
			}
			var kept []string
			placed := 0
			for _, k := range r.Kept {
				kept = append(kept, k.Group.Name)
				placed += len(k.Placed)
			}
			if diff := cmp.Diff(tc.kept, kept); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if got := tc.free - s.free["a"]; got != placed {
				t.Errorf("%d slots taken, %d pods kept: the cycle left placements behind", got, placed)
			}
			if r.Message() != tc.message {
				t.Errorf("message\n%q, want\n%q", r.Message(), tc.message)
			}
		})
	}
}

func TestRegistryComposites(t *testing.T) {
	r := gang.NewRegistry()
	must := func(_ bool, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Set(&model.PodGroup{Namespace: "ns", Name: "x", MinCount: 2, Parent: "mid"}))
	must(r.Set(&model.PodGroup{Namespace: "ns", Name: "y", MinCount: 1, Parent: "root"}))
	px := mt.MakePod("px").Namespace("ns").Group("x").Obj()
	if st := gang.GateStatus(r, px); st == nil || st.Message() != "waiting for composite pod group ns/mid, the parent of pod group ns/x: it does not exist" {
		t.Errorf("gate without the parent: %v", st)
	}
	must(r.SetComposite(&model.CompositePodGroup{Namespace: "ns", Name: "mid", Parent: "root", MinGroupCount: 1}))
	must(r.SetComposite(&model.CompositePodGroup{Namespace: "ns", Name: "root", MinGroupCount: 2}))
	if _, err := r.SetComposite(&model.CompositePodGroup{Namespace: "ns", Name: "root", MinGroupCount: 1}); !errors.Is(err, gang.ErrSpecImmutable) {
		t.Errorf("changing min_group_count: %v", err)
	}
	if _, err := r.SetComposite(&model.CompositePodGroup{Namespace: "ns", Name: "bad", MinGroupCount: 0}); !errors.Is(err, gang.ErrInvalid) {
		t.Errorf("min_group_count 0: %v", err)
	}
	if _, err := r.Set(&model.PodGroup{Namespace: "ns", Name: "x", MinCount: 2}); !errors.Is(err, gang.ErrSpecImmutable) {
		t.Errorf("dropping the parent: %v", err)
	}
	if root, _, ok := r.Root("ns/x"); !ok || root == nil || root.Name != "root" {
		t.Errorf("Root(ns/x) = %v, %v", root, ok)
	}
	r.AddMember(px)
	if st := gang.GateStatus(r, px); st == nil || st.Message() != "waiting for composite pod group ns/root: 0 of its min_group_count 2 child groups have their pods" {
		t.Errorf("gate of an empty tree: %v", st)
	}
	r.AddMember(mt.MakePod("qx").Namespace("ns").Group("x").Obj())
	py := mt.MakePod("py").Namespace("ns").Group("y").Obj()
	if st := gang.GateStatus(r, py); st == nil || st.Message() != "waiting for composite pod group ns/root: 1 of its min_group_count 2 child groups have their pods" {
		t.Errorf("gate with one child ready: %v", st)
	}
	r.AddMember(py)
	if st := gang.GateStatus(r, py); st != nil {
		t.Errorf("gate of a ready tree: %v", st)
	}
	var leaves []string
	for _, g := range r.TreeGroups("ns/root") {
		leaves = append(leaves, g.Name)
	}
	if diff := cmp.Diff([]string{"x", "y"}, leaves); diff != "" {
		t.Errorf("tree's groups (-want +got):\n%s", diff)
	}
}
