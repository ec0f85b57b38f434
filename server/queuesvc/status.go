package queuesvc

import (
	"maps"
	"slices"
	"time"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
)

// Status is the controller's view after a round, for the admin API and
// the dashboard: every ClusterQueue's quota and usage, every workload's
// state and why.
type Status struct {
	ClusterQueues []ClusterQueueStatus
	Workloads     []WorkloadStatus // by key
}

// ClusterQueueStatus is one ClusterQueue's quota against its usage.
type ClusterQueueStatus struct {
	Name   string
	Cohort string
	// Resources are its quotas, by resource group, flavor and resource
	// in the ClusterQueue's order.
	Resources []ResourceStatus
	// Admitted counts the workloads holding its quota (evicting ones
	// included); Pending those in its queue, Inadmissible those waiting
	// for a change that may make them admissible.
	Admitted, Pending, Inadmissible int
}

// ResourceStatus is the quota of one resource of one flavor, in the
// resource's units (cpu in millicores, memory in bytes, pods in pods).
type ResourceStatus struct {
	Flavor, Resource string
	Nominal          int64
	BorrowingLimit   *int64 // nil: unlimited
	LendingLimit     *int64 // nil: all may be lent
	// Usage is what its admitted workloads use; above Nominal, the
	// ClusterQueue borrows from its cohort.
	Usage int64
}

// WorkloadState is where a workload is in admission.
type WorkloadState string

// The states of a workload.
const (
	StatePending      WorkloadState = "pending"
	StateInadmissible WorkloadState = "inadmissible"
	StateAdmitted     WorkloadState = "admitted"
	// StateEvicting: preempted, it holds its quota until its pods are
	// gone.
	StateEvicting WorkloadState = "evicting"
)

// WorkloadStatus is one workload's state and why.
type WorkloadStatus struct {
	Key          string // namespace/name
	QueueName    string // its LocalQueue
	Created      time.Time
	Origin       Origin
	ClusterQueue string
	State        WorkloadState
	Priority     int32
	// Pods counts the workload's pods (an explicit one's: those Berth
	// holds, Workload.hold_pods); PodKeys
	// names them, namespace/name.
	Pods    int
	PodKeys []string
	// Flavors are the flavors admitted, as "podSet/resource" to flavor;
	// PodSets the same per pod set, with the count admitted.
	Flavors map[string]string
	PodSets []quota.PodSetAssignment
	// Message is Kueue's: why it is pending (with the quota missing) or
	// was preempted.
	Message string
	// Victims are the workloads it preempts, "namespace/name": it is
	// admitted once their quota is released.
	Victims []string
}

// buildStatus is the round's Status, after its commit.
func (c *Controller) buildStatus(s *snapshot, lines map[string]admission.Line, d *decisions) Status {
	c.mu.Lock()
	evicting := maps.Clone(c.evicting)
	c.mu.Unlock()
	var st Status
	usage := map[string]map[quota.FlavorResource]int64{}
	counts := map[string]*ClusterQueueStatus{}
	for _, cq := range s.objs.ClusterQueues {
		counts[cq.Name] = &ClusterQueueStatus{}
	}
	for _, k := range slices.Sorted(maps.Keys(s.workloads)) {
		w, l := s.workloads[k], lines[k]
		ws := WorkloadStatus{Key: k, QueueName: w.wl.QueueName, Created: w.wl.Created, Origin: w.origin, ClusterQueue: l.ClusterQueue,
			Priority: w.wl.Priority, Pods: len(w.pods), Message: l.Message}
		for _, p := range w.pods {
			ws.PodKeys = append(ws.PodKeys, p.Namespace+"/"+p.Name)
		}
		var held *quota.Admission
		switch {
		case evicting[k] != nil:
			ws.State, held = StateEvicting, evicting[k].admission
		case w.evicting:
			// Preempted before a restart: its pods terminating hold it.
			ws.State, held = StateEvicting, w.wl.Admission
		case d.evicted[k] || l.Result == admission.ResultPreempted && w.admitted:
			ws.State = StatePending // its pods were gone already: requeued
		case w.admitted:
			ws.State, held = StateAdmitted, w.wl.Admission
		case d.done[k]:
			ws.State, held = StateAdmitted, d.admissions[k]
		case l.Result == admission.ResultAdmitted:
			// Reached after a preemption: admitted once its victims' quota
			// is released.
			ws.State, ws.Victims = StatePending, l.Victims
			if ws.Message == "" {
				ws.Message = "waiting for the quota of the workloads it preempts to be released"
			}
		case l.Result == admission.ResultPending:
			ws.State = StatePending
		default:
			ws.State = StateInadmissible
		}
		if held != nil {
			ws.ClusterQueue = held.ClusterQueue
			ws.PodSets = held.PodSetAssignments
			ws.Flavors = map[string]string{}
			for _, psa := range held.PodSetAssignments {
				for r, f := range psa.Flavors {
					ws.Flavors[psa.Name+"/"+r] = f
				}
			}
			addUsage(usage, w.wl, held)
		}
		if cq := counts[ws.ClusterQueue]; cq != nil {
			switch ws.State {
			case StateAdmitted, StateEvicting:
				cq.Admitted++
			case StatePending:
				cq.Pending++
			case StateInadmissible:
				cq.Inadmissible++
			}
		}
		st.Workloads = append(st.Workloads, ws)
	}
	for _, cq := range s.objs.ClusterQueues {
		cs := counts[cq.Name]
		cs.Name, cs.Cohort = cq.Name, cq.Cohort
		for _, rg := range cq.ResourceGroups {
			for _, fq := range rg.Flavors {
				for _, r := range fq.Resources {
					cs.Resources = append(cs.Resources, ResourceStatus{
						Flavor: fq.Name, Resource: r.Name, Nominal: r.Nominal,
						BorrowingLimit: r.BorrowingLimit, LendingLimit: r.LendingLimit,
						Usage: usage[cq.Name][quota.FlavorResource{Flavor: fq.Name, Resource: r.Name}],
					})
				}
			}
		}
		st.ClusterQueues = append(st.ClusterQueues, *cs)
	}
	return st
}

// addUsage adds what an admission holds: per pod set, each resource's
// per-pod request times the count admitted, in its flavor (pods count as
// the resource "pods").
func addUsage(usage map[string]map[quota.FlavorResource]int64, wl *quota.Workload, a *quota.Admission) {
	u := usage[a.ClusterQueue]
	if u == nil {
		u = map[quota.FlavorResource]int64{}
		usage[a.ClusterQueue] = u
	}
	for _, psa := range a.PodSetAssignments {
		i := slices.IndexFunc(wl.PodSets, func(ps quota.PodSet) bool { return ps.Name == psa.Name })
		if i < 0 {
			continue
		}
		for r, f := range psa.Flavors {
			per := wl.PodSets[i].Requests[r]
			if r == model.ResourcePods {
				per = 1
			}
			u[quota.FlavorResource{Flavor: f, Resource: r}] += per * int64(psa.Count)
		}
	}
}
