package gang

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// Node is one group of a tree cycle: a composite group and its children,
// or a leaf, a PodGroup with the members pending in the cycle.
type Node struct {
	Composite *model.CompositePodGroup
	Children  []*Node
	// Group, Need and Members are a leaf's: Need is its MinCount less its
	// members placed before the cycle.
	Group   *model.PodGroup
	Need    int
	Members []*model.Pod
}

// Leaves lists the leaves under n, in tree order.
func (n *Node) Leaves() []*Node {
	if n.Group != nil {
		return []*Node{n}
	}
	var out []*Node
	for _, c := range n.Children {
		out = append(out, c.Leaves()...)
	}
	return out
}

// LeafPlacer is what a tree cycle needs from the scheduling loop.
type LeafPlacer interface {
	// PlaceLeaf runs a leaf's group cycle (Place) on the state the leaves
	// placed before it left; when it does not fit it has undone its own
	// placements.
	PlaceLeaf(ctx context.Context, leaf *Node) *Result
	// UndoLeaf forgets the placements of a leaf that fit, when a composite
	// group above it falls short.
	UndoLeaf(ctx context.Context, r *Result)
}

// TreeResult is the outcome of one tree cycle.
type TreeResult struct {
	Root *model.CompositePodGroup
	// Leaves are every leaf's result, by group key; a leaf is kept (to be
	// bound) when it is in Kept.
	Leaves map[string]*Result
	// Kept are the leaves whose placements stand, in tree order: empty
	// unless Scheduled.
	Kept []*Result
	// Short are the composite groups that fell short, each with why, in
	// the order they were decided (deepest first).
	Short []string
	// Scheduled: the root's min_group_count of children were placed and at
	// least one pod was.
	Scheduled bool
}

// PlaceTree runs one cycle of a tree of groups, as kube 1.37 places a
// CompositePodGroup: the children of a composite group are placed in turn,
// each on the state the ones before it left; a leaf counts when its group
// fits as a gang (Place: Need of its members fit, or it needed none), a
// composite child when MinGroupCount of its own children count. A child
// that does not count leaves nothing behind; a composite group that falls
// short undoes its children that counted. The tree is placed when its root
// counts and at least one pod was placed; otherwise every placement is
// undone, so nothing is held between cycles.
func PlaceTree(ctx context.Context, root *Node, p LeafPlacer) *TreeResult {
	tr := &TreeResult{Root: root.Composite, Leaves: map[string]*Result{}}
	ok, kept := tr.place(ctx, root, p)
	placed := 0
	for _, r := range kept {
		placed += len(r.Placed)
	}
	if ok && placed == 0 {
		tr.Short = append(tr.Short, fmt.Sprintf("composite pod group %s: no pod was placed", root.Composite.Key()))
		ok = false
	}
	if !ok {
		undo(ctx, kept, p)
		return tr
	}
	tr.Kept, tr.Scheduled = kept, true
	return tr
}

// place places n and returns whether it counts and the leaves kept under
// it.
func (tr *TreeResult) place(ctx context.Context, n *Node, p LeafPlacer) (bool, []*Result) {
	if n.Group != nil {
		r := p.PlaceLeaf(ctx, n)
		tr.Leaves[n.Group.Key()] = r
		switch {
		case r.Scheduled:
			return true, []*Result{r}
		case n.Need <= 0:
			return true, nil // placed before: it counts with no member now
		}
		return false, nil
	}
	need, remaining, counted := int(n.Composite.MinGroupCount), len(n.Children), 0
	var kept []*Result
	for _, c := range n.Children {
		if counted+remaining < need {
			break // as kube's PlacementFeasible: it can no longer count
		}
		ok, k := tr.place(ctx, c, p)
		remaining--
		if ok {
			counted++
			kept = append(kept, k...)
		}
	}
	if counted >= need {
		return true, kept
	}
	tr.Short = append(tr.Short, fmt.Sprintf("composite pod group %s: %d of %d child groups placed, %d needed (min_group_count)",
		n.Composite.Key(), counted, len(n.Children), need))
	undo(ctx, kept, p)
	return false, nil
}

// undo forgets kept leaves in reverse, the state each saw restored in turn.
func undo(ctx context.Context, kept []*Result, p LeafPlacer) {
	for i := len(kept) - 1; i >= 0; i-- {
		p.UndoLeaf(ctx, kept[i])
		kept[i].Placed, kept[i].Scheduled = nil, false
	}
}

// Message says why the tree was not placed (its composite groups that fell
// short, then its leaves that did not fit), or which leaves were left out.
func (tr *TreeResult) Message() string {
	var b strings.Builder
	if tr.Scheduled {
		fmt.Fprintf(&b, "composite pod group %s: placed %d pod groups", tr.Root.Key(), len(tr.Kept))
	} else {
		b.WriteString(strings.Join(tr.Short, "; "))
	}
	keys := make([]string, 0, len(tr.Leaves))
	for k := range tr.Leaves {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if r := tr.Leaves[k]; !r.Scheduled && len(r.Misses) > 0 {
			fmt.Fprintf(&b, "; %s", r.Message())
		}
	}
	return b.String()
}
