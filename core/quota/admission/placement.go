package admission

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// PlacementChecker is the seam of Berth's placement-aware admission
// (quota.ClusterQueue.AdmissionPlacement): the placement layer says
// whether every pod of a workload that fits its quota also fits on the
// nodes now, by the scheduler's own filters.
type PlacementChecker interface {
	// Place finds a node for every pod of w, keeping them (later calls
	// see those pods placed), and returns pod name -> node; or, when not
	// all fit, places none and returns why, as the scheduler says it
	// ("0/3 nodes are available: ...").
	Place(ctx context.Context, w PlacementRequest) (nodes map[string]string, unplaced string, err error)
	// Release gives back the nodes of a workload placed earlier (it was
	// preempted).
	Release(ctx context.Context, workload string) error
}

// PlacementRequest is a workload's pods as they would run once admitted:
// each pod set's count, per-pod requests, and its node selector and
// tolerations with its flavors' node labels and tolerations applied, as
// Kueue injects them.
type PlacementRequest struct {
	Workload  string // namespace/name
	Namespace string
	Priority  int32
	PodSets   []PlacementPodSet
}

// PlacementPodSet is one pod set of a PlacementRequest.
type PlacementPodSet struct {
	Name         string
	Count        int32
	Requests     model.ResourceList // per pod
	NodeSelector map[string]string
	Tolerations  []model.Toleration
}

// PodName is the name a checker gives the i-th pod of a pod set, so
// placements read the same everywhere.
func (r *PlacementRequest) PodName(ps PlacementPodSet, i int) string {
	name := r.Workload[strings.IndexByte(r.Workload, '/')+1:]
	return fmt.Sprintf("%s-%s-%d", name, ps.Name, i)
}

// placementRequest is en's admission as pods.
func (e *engine) placementRequest(en *entry) PlacementRequest {
	w := en.w
	r := PlacementRequest{Workload: w.key, Namespace: w.src.Namespace, Priority: w.priority}
	for i, psa := range en.a.podSets {
		spec := w.podSets[i]
		ps := PlacementPodSet{Name: spec.name, Count: psa.count, Requests: maps.Clone(spec.perPod), NodeSelector: maps.Clone(spec.nodeSelector), Tolerations: slices.Clone(spec.tolerations)}
		for _, res := range sortedKeys(psa.flavors) {
			f := e.flavors[psa.flavors[res].flavor]
			if f == nil {
				continue
			}
			for k, v := range f.NodeLabels {
				if ps.NodeSelector == nil {
					ps.NodeSelector = map[string]string{}
				}
				ps.NodeSelector[k] = v
			}
			ps.Tolerations = addTolerations(ps.Tolerations, f.Tolerations)
		}
		r.PodSets = append(r.PodSets, ps)
	}
	return r
}

// place asks the checker for en's placement when its ClusterQueue wants
// one; false means en is not admitted this cycle, as if it did not fit
// its quota, with a message naming placement.
func (e *engine) place(ctx context.Context, en *entry) bool {
	if !en.cq.spec.AdmissionPlacement || e.opts.Placement == nil {
		return true
	}
	nodes, unplaced, err := e.opts.Placement.Place(ctx, e.placementRequest(en))
	switch {
	case err != nil:
		if e.err == nil {
			e.err = fmt.Errorf("placing %s: %w", en.w.key, err)
		}
		en.msg = fmt.Sprintf("couldn't place the workload on the nodes: %v", err)
	case unplaced != "":
		en.msg = "couldn't place the workload on the nodes: " + unplaced
	default:
		en.w.placement = nodes
		return true
	}
	en.last = nil
	return false
}

// unplace gives back a preempted workload's placement.
func (e *engine) unplace(ctx context.Context, w *workload) error {
	if w.placement == nil || e.opts.Placement == nil {
		return nil
	}
	w.placement = nil
	return e.opts.Placement.Release(ctx, w.key)
}

// addTolerations appends to tols those of more it does not hold (by
// value: a toleration's seconds are compared, not their pointers).
func addTolerations(tols, more []model.Toleration) []model.Toleration {
	for _, t := range more {
		if !slices.ContainsFunc(tols, func(have model.Toleration) bool { return sameToleration(have, t) }) {
			tols = append(tols, t)
		}
	}
	return tols
}

func sameToleration(a, b model.Toleration) bool {
	if (a.TolerationSeconds == nil) != (b.TolerationSeconds == nil) {
		return false
	}
	if a.TolerationSeconds != nil && *a.TolerationSeconds != *b.TolerationSeconds {
		return false
	}
	a.TolerationSeconds, b.TolerationSeconds = nil, nil
	return a == b
}
