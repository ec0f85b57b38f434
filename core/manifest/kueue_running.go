package manifest

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// runningPodWorkloads makes an admitted Workload of every bound pod
// labelled with a queue name (not a queued Job's, StatefulSet's or
// PodGroup's): Kueue admitted it, so it holds its ClusterQueue's quota
// (Kueue's cache counts admitted workloads' usage) and can be preempted.
// Its flavors are, per resource group of the ClusterQueue, the first
// flavor whose node labels its node has (the pod's node selector when the
// node is not in the manifests), as Kueue injected them when it admitted
// it. A pod whose LocalQueue, ClusterQueue or flavor cannot be found is
// reported as an error line naming what is missing.
func (b *builder) runningPodWorkloads() []*quota.Workload {
	lqs := map[string]*quota.LocalQueue{}
	for _, q := range b.kueue.objs.LocalQueues {
		lqs[q.Key()] = q
	}
	cqs := map[string]*quota.ClusterQueue{}
	for _, q := range b.kueue.objs.ClusterQueues {
		cqs[q.Name] = q
	}
	flavors := map[string]*quota.ResourceFlavor{}
	for _, f := range b.kueue.objs.Flavors {
		flavors[f.Name] = f
	}
	nodes := map[string]*model.Node{}
	for _, n := range b.cluster.Nodes {
		nodes[n.Name] = n
	}
	var out []*quota.Workload
	for _, p := range b.cluster.Pods {
		q, ok := p.Labels[QueueNameLabel]
		if !ok || p.NodeName == "" || b.kueue.jobPods[p.Key()] || b.queuedGroupOf(p) {
			continue
		}
		req := workloadPodRequests(p)
		w := &quota.Workload{
			Namespace: p.Namespace, Name: workloadName("Pod", "", p.Name, p.UID), QueueName: q, Active: true, Created: p.CreationTime,
			PodSets: []quota.PodSet{{Name: "main", Count: 1, Requests: req, NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}},
		}
		w.UID = "wl-" + w.Namespace + "-" + w.Name
		if p.RequestedPriority != nil {
			w.Priority, w.HasPriority = *p.RequestedPriority, true
		} else if err := b.resolveWorkloadPriority(w, p.PriorityClassName, "PriorityClass"); err != nil {
			w.Error = err.Error()
		}
		w.PriorityClass = p.PriorityClassName
		labels := p.NodeSelector
		if n := nodes[p.NodeName]; n != nil {
			labels = n.Labels
		}
		if w.Error == "" {
			a, err := runningAdmission(lqs[p.Namespace+"/"+q], cqs, flavors, req, labels)
			if err != nil {
				w.Error = fmt.Sprintf("running pod %s on node %s: %v", p.Key(), p.NodeName, err)
			} else {
				a.Reserved = p.CreationTime
				w.Admission, w.Running = a, []string{p.Key()}
			}
		}
		out = append(out, w)
	}
	return out
}

// runningAdmission is the admission a running pod of lq holds.
func runningAdmission(lq *quota.LocalQueue, cqs map[string]*quota.ClusterQueue, flavors map[string]*quota.ResourceFlavor, req model.ResourceList, nodeLabels map[string]string) (*quota.Admission, error) {
	if lq == nil {
		return nil, fmt.Errorf("its LocalQueue does not exist")
	}
	cq := cqs[lq.ClusterQueue]
	if cq == nil {
		return nil, fmt.Errorf("ClusterQueue %s (of LocalQueue %s) does not exist", lq.ClusterQueue, lq.Key())
	}
	psa := quota.PodSetAssignment{Name: "main", Count: 1, Flavors: map[string]string{}}
	for _, rg := range cq.ResourceGroups {
		used := slices.ContainsFunc(rg.CoveredResources, func(r string) bool { return req[r] > 0 || r == model.ResourcePods })
		if !used {
			continue
		}
		i := slices.IndexFunc(rg.Flavors, func(fq quota.FlavorQuotas) bool {
			f := flavors[fq.Name]
			return f != nil && labelsHave(nodeLabels, f.NodeLabels)
		})
		if i < 0 {
			return nil, fmt.Errorf("no flavor of ClusterQueue %s for %v has the node's labels", cq.Name, rg.CoveredResources)
		}
		for _, r := range rg.CoveredResources {
			if req[r] > 0 || r == model.ResourcePods {
				psa.Flavors[r] = rg.Flavors[i].Name
			}
		}
	}
	return &quota.Admission{ClusterQueue: cq.Name, PodSetAssignments: []quota.PodSetAssignment{psa}}, nil
}

// labelsHave says whether have holds every label of want.
func labelsHave(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
