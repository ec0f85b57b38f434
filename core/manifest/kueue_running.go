package manifest

import (
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// runningPodWorkloads makes an admitted Workload of every bound pod
// labelled with a queue name (not a queued Job's, StatefulSet's or
// PodGroup's), as integrations.ForRunningPod does: its flavors read from its
// node's labels (the pod's node selector when the node is not in the
// manifests).
func (b *builder) runningPodWorkloads() []*quota.Workload {
	queues := integrations.NewQueues(&b.kueue.objs)
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
		labels := p.NodeSelector
		if n := nodes[p.NodeName]; n != nil {
			labels = n.Labels
		}
		out = append(out, integrations.ForRunningPod(p, q, labels, queues, b.priorities()))
	}
	return out
}
