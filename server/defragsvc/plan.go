package defragsvc

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/berthsched/berth/core/deschedule/defrag"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// errRefused: the plan found is not committed as the cluster stands now
// (a budget allows no more disruption, a moved pod is gone or being
// evicted already, a waiting pod is gone).
var errRefused = errors.New("plan refused")

// inflight is a committed plan being followed.
type inflight struct {
	set     waitingSet
	waiting []placed // each waiting pod and the node planned for it
	moves   []placed // each moved pod and the node it is expected on
	// committed is when the plan was committed; it must be done within
	// the bound from then.
	committed time.Time
}

// placed is a pod by uid and key, and a node.
type placed struct {
	uid, key, node string
}

// planFor makes the committed form of found for set: an Evict with cause
// DEFRAGMENT per move, then a Nomination per waiting pod, each pod as the
// scheduler holds it now. Every move must be evictable now under the
// eviction API's budget rule, charging each budget once per move of the
// plan; otherwise it returns an error wrapping errRefused saying why.
func planFor(set waitingSet, found *defrag.Plan, live func(uid string) (*model.Pod, bool), budgets func(*model.Pod) []disruption.Budget, evicted func(uid string) bool) (framework.Plan, *inflight, error) {
	var plan framework.Plan
	fl := &inflight{set: set}
	charged := map[string]int32{} // budgets by namespace/name, moves charged so far
	for _, m := range found.Moves {
		pod, ok := live(m.Pod.UID)
		switch {
		case !ok:
			return plan, nil, fmt.Errorf("%w: moved pod %s is gone", errRefused, m.Pod.Key())
		case pod.NodeName != m.From:
			return plan, nil, fmt.Errorf("%w: moved pod %s is on %q now, not %s", errRefused, pod.Key(), pod.NodeName, m.From)
		case pod.Terminating || evicted(pod.UID):
			return plan, nil, fmt.Errorf("%w: moved pod %s is being evicted already", errRefused, pod.Key())
		}
		bs := append([]disruption.Budget(nil), budgets(pod)...)
		for i := range bs {
			bs[i].Status.DisruptionsAllowed -= charged[budgetKey(bs[i].PDB)]
		}
		switch disruption.Check(pod, bs) {
		case disruption.RefuseMultiple:
			return plan, nil, fmt.Errorf("%w: moved pod %s is covered by more than one PodDisruptionBudget", errRefused, pod.Key())
		case disruption.RefuseBudget:
			return plan, nil, fmt.Errorf("%w: the disruption budget %s allows no disruption of %s now", errRefused, budgetKey(bs[0].PDB), pod.Key())
		case disruption.AllowCharged:
			charged[budgetKey(bs[0].PDB)]++
		}
		plan.Add(&framework.Eviction{Victim: pod, Node: m.From, Cause: framework.EvictDefragment, Message: evictMessage(set, found, m)})
		fl.moves = append(fl.moves, placed{uid: pod.UID, key: pod.Key(), node: m.To})
	}
	for _, w := range set.pods {
		node, ok := found.Placements[w.Key()]
		if !ok {
			return plan, nil, fmt.Errorf("%w: the plan places no node for %s", errRefused, w.Key())
		}
		pod, ok := live(w.UID)
		if !ok || pod.NodeName != "" {
			return plan, nil, fmt.Errorf("%w: waiting pod %s is gone or bound", errRefused, w.Key())
		}
		plan.Add(&framework.Nomination{Pod: pod, Node: node})
		fl.waiting = append(fl.waiting, placed{uid: pod.UID, key: pod.Key(), node: node})
	}
	return plan, fl, nil
}

// evictMessage names the waiting pod or group, the node the room is made
// on and the node the moved pod is expected on.
func evictMessage(set waitingSet, found *defrag.Plan, m defrag.Move) string {
	at := found.Placements[m.For]
	if len(set.pods) == 1 && set.pods[0].GroupKey() == "" {
		return fmt.Sprintf("Defragmented for %s (planned on %s): moved off %s; Berth's scheduler re-places it on %s", set.key, at, m.From, m.To)
	}
	return fmt.Sprintf("Defragmented for %s (member %s planned on %s): moved off %s; Berth's scheduler re-places it on %s", set.key, m.For, at, m.From, m.To)
}

func budgetKey(b *model.PodDisruptionBudget) string { return b.Namespace + "/" + b.Name }

// describe is a plan for the log: "a (n1 -> n3), b (n2 -> n4)" and the
// waiting pods' nodes "w-0 on n1".
func describe(found *defrag.Plan) (moves, placements string) {
	var ms, ps []string
	for _, m := range found.Moves {
		ms = append(ms, fmt.Sprintf("%s (%s -> %s)", m.Pod.Key(), m.From, m.To))
	}
	for k, n := range found.Placements {
		ps = append(ps, k+" on "+n)
	}
	sort.Strings(ps)
	return strings.Join(ms, ", "), strings.Join(ps, ", ")
}
