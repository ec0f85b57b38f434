package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func zoned(name, zone string) *model.Node { return mt.MakeNode(name).Zone(zone).Obj() }

func TestNodeTreeOrder(t *testing.T) {
	tests := []struct {
		name string
		ops  func(t *nodeTree)
		want []string
	}{
		{
			// Doc 003 §9: zones {1,2,3,4} and {5,6}.
			name: "doc 003 example",
			ops: func(t *nodeTree) {
				for _, n := range []string{"1", "2", "3", "4"} {
					t.add(zoned(n, "a"))
				}
				t.add(zoned("5", "b"))
				t.add(zoned("6", "b"))
			},
			want: []string{"1", "5", "2", "6", "3", "4"},
		},
		{
			name: "zones in order of first appearance, nodes in insertion order",
			ops: func(t *nodeTree) {
				t.add(zoned("b1", "b"))
				t.add(zoned("a1", "a"))
				t.add(zoned("b2", "b"))
				t.add(zoned("c1", "c"))
				t.add(zoned("a2", "a"))
			},
			want: []string{"b1", "a1", "c1", "b2", "a2"},
		},
		{
			name: "nodes without zone share the empty zone",
			ops: func(t *nodeTree) {
				t.add(mt.MakeNode("x").Obj())
				t.add(zoned("a1", "a"))
				t.add(mt.MakeNode("y").Obj())
			},
			want: []string{"x", "a1", "y"},
		},
		{
			name: "adding twice is a no-op",
			ops: func(t *nodeTree) {
				t.add(zoned("a1", "a"))
				t.add(zoned("a1", "a"))
			},
			want: []string{"a1"},
		},
		{
			name: "an emptied zone loses its place",
			ops: func(t *nodeTree) {
				t.add(zoned("a1", "a"))
				t.add(zoned("b1", "b"))
				t.remove(zoned("a1", "a"))
				t.add(zoned("a2", "a"))
			},
			want: []string{"b1", "a2"},
		},
		{
			name: "zone change moves the node to the end of its new zone",
			ops: func(t *nodeTree) {
				t.add(zoned("a1", "a"))
				t.add(zoned("a2", "a"))
				t.add(zoned("b1", "b"))
				t.update(zoned("a1", "a"), zoned("a1", "b"))
			},
			want: []string{"a2", "b1", "a1"},
		},
		{
			name: "region and zone together form the key",
			ops: func(t *nodeTree) {
				t.add(mt.MakeNode("r1").Zone("z").Label(model.LabelRegion, "r1").Obj())
				t.add(mt.MakeNode("r2").Zone("z").Label(model.LabelRegion, "r2").Obj())
				t.add(mt.MakeNode("r1b").Zone("z").Label(model.LabelRegion, "r1").Obj())
			},
			want: []string{"r1", "r2", "r1b"},
		},
		{
			name: "beta zone label wins",
			ops: func(t *nodeTree) {
				t.add(mt.MakeNode("n1").Zone("ga").Label(labelZoneBeta, "beta").Obj())
				t.add(mt.MakeNode("n2").Label(labelZoneBeta, "beta").Obj())
				t.add(zoned("n3", "ga"))
			},
			want: []string{"n1", "n3", "n2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := newNodeTree()
			tc.ops(&tree)
			if diff := cmp.Diff(tc.want, tree.list()); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
			if tree.numNodes != len(tc.want) {
				t.Errorf("numNodes = %d, want %d", tree.numNodes, len(tc.want))
			}
		})
	}
}

func TestNodeTreeRemoveUnknown(t *testing.T) {
	tree := newNodeTree()
	tree.add(zoned("a1", "a"))
	if tree.remove(zoned("a1", "b")) {
		t.Error("removing a node from the wrong zone succeeded")
	}
	if tree.remove(zoned("zz", "a")) {
		t.Error("removing an unknown node succeeded")
	}
	if !tree.remove(zoned("a1", "a")) || tree.numNodes != 0 || len(tree.zones) != 0 {
		t.Errorf("after removing the last node: %+v", tree)
	}
}
