package defragsvc

import (
	"sort"
	"time"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
)

// pendingState is what the trigger reads of one pending pod.
type pendingState struct {
	pod   *model.Pod
	queue scheduler.QueueState
	// queued is when the pod was queued; failed says its last attempt
	// failed (the scheduler holds a diagnosis of it).
	queued time.Time
	failed bool
}

// waitingSet is one pod, or the pending members of one pod group, to
// make room for: all of them or none.
type waitingSet struct {
	// key tells sets apart ("pod ns/name", "pod group ns/name"); it also
	// names the set in messages.
	key  string
	pods []*model.Pod // a group's members by name
}

// stuck says why the pod is not waiting for defragmentation, "" when it
// is: pending at least wait, its last attempt failed, and nothing else
// is under way for it (no nomination: preemption found no victims or may
// not preempt; not in the active queue or in a cycle; no plugin waiting
// for something other than room, such as a claim).
func stuck(p pendingState, now time.Time, wait time.Duration) string {
	if why := ruledOutByQueue(p.pod, p.queue); why != "" {
		return why
	}
	switch {
	case !p.failed:
		return "not attempted yet"
	case p.queued.IsZero() || now.Sub(p.queued) < wait:
		return "pending for less than the check interval"
	}
	return ""
}

// ruledOutByQueue is the part of stuck the pod and its queue state alone
// decide.
func ruledOutByQueue(pod *model.Pod, q scheduler.QueueState) string {
	switch {
	case pod.Terminating:
		return "being deleted"
	case q.SubQueue != queue.Unschedulable && q.SubQueue != queue.Backoff:
		return "in the " + string(q.SubQueue) + " queue"
	case q.Attempts == 0:
		return "not attempted yet"
	case len(q.PendingPlugins) > 0:
		return "waiting for " + q.PendingPlugins[0]
	case q.NominatedNode != "" || pod.NominatedNodeName != "":
		return "nominated"
	}
	return ""
}

// waitingSets are the pods and groups to defragment for: the stuck pods of
// no group in the order of pending, then the groups in the order of their
// first pending member. A group counts when the scheduler holds it
// with none of its members placed, at least minCount members pending, and
// every pending member stuck. A member of a group the scheduler does
// not hold waits for its group, not for room, and is left alone.
func waitingSets(pending []pendingState, groups []*model.PodGroup, pods []*model.Pod, now time.Time, wait time.Duration) []waitingSet {
	groupOf := map[string]*model.PodGroup{}
	for _, g := range groups {
		groupOf[g.Namespace+"/"+g.Name] = g
	}
	placed := map[string]int{}
	for _, p := range pods {
		if k := p.GroupKey(); k != "" && p.NodeName != "" {
			placed[k]++
		}
	}
	members := map[string][]pendingState{}
	var order []string
	var out []waitingSet
	for _, p := range pending {
		k := p.pod.GroupKey()
		if k == "" {
			if stuck(p, now, wait) == "" {
				out = append(out, waitingSet{key: "pod " + p.pod.Key(), pods: []*model.Pod{p.pod}})
			}
			continue
		}
		if _, seen := members[k]; !seen {
			order = append(order, k)
		}
		members[k] = append(members[k], p)
	}
	for _, k := range order {
		g, ok := groupOf[k]
		ms := members[k]
		if !ok || placed[k] > 0 || int32(len(ms)) < g.MinCount {
			continue
		}
		set := waitingSet{key: "pod group " + k}
		for _, m := range ms {
			if stuck(m, now, wait) != "" {
				set.pods = nil
				break
			}
			set.pods = append(set.pods, m.pod)
		}
		if set.pods == nil {
			continue
		}
		sort.Slice(set.pods, func(i, j int) bool { return set.pods[i].Name < set.pods[j].Name })
		out = append(out, set)
	}
	return out
}
