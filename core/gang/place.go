package gang

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// Placer is what a group cycle needs from the scheduling loop.
type Placer interface {
	// Place runs one member's filters and scores on the state including
	// the members placed before it in this cycle and, on success, assumes
	// the member on the node it returns. Otherwise it returns why no node
	// fit (kube's FitError message).
	Place(ctx context.Context, member *model.Pod) (node string, ok bool, why string)
	// Undo forgets a member Place assumed.
	Undo(ctx context.Context, member *model.Pod, node string)
}

// Placement is a member and the node it got.
type Placement struct {
	Pod  *model.Pod
	Node string
}

// Miss is a member that got no node, and why.
type Miss struct {
	Pod *model.Pod
	Why string
}

// Result is the outcome of one group cycle.
type Result struct {
	Group *model.PodGroup
	// Need is how many members had to fit: MinCount less the members
	// placed before this cycle.
	Need int
	// Placed are the members kept (and to be bound together) when
	// Scheduled; empty otherwise (every placement was undone).
	Placed []Placement
	// Fit is how many members fit in the cycle.
	Fit    int
	Misses []Miss
	// Scheduled: at least Need members fit.
	Scheduled bool
	// Domain is the value of the group's topology key the members were
	// placed in (the best one tried when not Scheduled); empty without a
	// topology key.
	Domain string
}

// Message says why a group was not placed, or which members were left
// out: how many members fit against how many were needed, then each
// member's reason (members with the same reason folded).
func (r *Result) Message() string {
	var b strings.Builder
	if r.Scheduled {
		fmt.Fprintf(&b, "pod group %s: placed %d members; %d did not fit", r.Group.Key(), len(r.Placed), len(r.Misses))
	} else {
		fmt.Fprintf(&b, "pod group %s: %d of %d pending members fit, %d needed (min_count %d)", r.Group.Key(), r.Fit, r.Fit+len(r.Misses), r.Need, r.Group.MinCount)
	}
	if k := r.Group.TopologyKey; k != "" {
		if r.Domain == "" {
			fmt.Fprintf(&b, "; no node has label %s", k)
		} else {
			fmt.Fprintf(&b, " in %s=%s", k, r.Domain)
		}
		if !r.Scheduled {
			b.WriteString(", the best of its domains")
		}
	}
	byWhy := map[string][]string{}
	var whys []string
	for _, m := range r.Misses {
		if _, ok := byWhy[m.Why]; !ok {
			whys = append(whys, m.Why)
		}
		byWhy[m.Why] = append(byWhy[m.Why], m.Pod.Name)
	}
	for _, why := range whys {
		fmt.Fprintf(&b, "; %s: %s", strings.Join(byWhy[why], ", "), why)
	}
	return b.String()
}

// Order sorts members as the queue orders pods: higher priority first,
// then older, then by name, so a group's cycle is reproducible.
func Order(members []*model.Pod) {
	slices.SortStableFunc(members, func(a, b *model.Pod) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), a.CreationTime.Compare(b.CreationTime), cmp.Compare(a.Name, b.Name))
	})
}

// Place runs one group cycle over the pending members (in Order): each
// member is placed on the state the ones before it left. With at least
// need fitting, the placements stand; otherwise all are undone, so the
// cycle leaves nothing behind.
func Place(ctx context.Context, grp *model.PodGroup, need int, members []*model.Pod, p Placer) *Result {
	r := &Result{Group: grp, Need: need}
	for _, m := range members {
		node, ok, why := p.Place(ctx, m)
		if !ok {
			r.Misses = append(r.Misses, Miss{Pod: m, Why: why})
			continue
		}
		r.Placed = append(r.Placed, Placement{Pod: m, Node: node})
	}
	r.Fit = len(r.Placed)
	r.Scheduled = r.Fit >= need && r.Fit > 0
	if !r.Scheduled {
		// Undo in reverse, the state each Place saw restored in turn.
		for i := len(r.Placed) - 1; i >= 0; i-- {
			p.Undo(ctx, r.Placed[i].Pod, r.Placed[i].Node)
		}
		r.Placed = nil
	}
	return r
}
