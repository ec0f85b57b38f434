package workload

import (
	"bufio"
	"fmt"
	"math/rand/v2"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// Queueing is issue 31's admission benchmark: every pending pod is a
// one-pod Kueue workload (labelled kueue.x-k8s.io/queue-name) of one of
// many ClusterQueues in cohorts, admitted by berthd's admission
// controller and then placed.
const Queueing = "queueing"

// The Queueing workload's shape: a ClusterQueue per QueueingPodsPerQueue
// pending pods (60,000 pods: 1,000 ClusterQueues), QueueingQueuesPerCohort
// of them per cohort (50 cohorts), each with QueueingNominalCPU of
// nominal cpu quota and unlimited borrowing in its cohort; a pod asks for
// 1 cpu, so about a sixth of the pods wait for quota.
const (
	QueueingPodsPerQueue    = 60
	QueueingQueuesPerCohort = 20
	QueueingNominalCPU      = 50_000 // millicores
	queueingPodCPU          = 1000
	queueName               = "lq"
	queueNameLabel          = "kueue.x-k8s.io/queue-name"
)

// Queues are the Queueing workload's Kueue objects and the namespaces
// their LocalQueues are in, sent after the nodes.
type Queues struct {
	Namespaces []*model.Namespace
	// Objects are *quota.ResourceFlavor, *quota.ClusterQueue and
	// *quota.LocalQueue, in the order they are sent.
	Objects []any
}

// queueing adds the Queueing workload: the flavor, the ClusterQueues and
// their LocalQueues, and the pending pods spread over the queues at
// random (seeded, so every run is the same). No preemption and one cpu
// per workload make the number admitted independent of the order they
// arrive in: each cohort admits as many pods as its quota holds.
func (g *gen) queueing(spec Spec) {
	queues := max(1, spec.Pods/QueueingPodsPerQueue)
	q := &Queues{Objects: []any{&quota.ResourceFlavor{Name: "default"}}}
	for i := range queues {
		ns := fmt.Sprintf("ns-%04d", i)
		cq := &quota.ClusterQueue{
			Name: fmt.Sprintf("cq-%04d", i), Cohort: fmt.Sprintf("cohort-%03d", i/QueueingQueuesPerCohort),
			NamespaceSelector: &model.LabelSelector{}, FairWeight: 1,
			ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{model.ResourceCPU}, Flavors: []quota.FlavorQuotas{{
				Name: "default", Resources: []quota.ResourceEntry{{Name: model.ResourceCPU, ResourceQuota: quota.ResourceQuota{Nominal: QueueingNominalCPU}}},
			}}}},
		}
		quota.DefaultClusterQueue(cq)
		q.Namespaces = append(q.Namespaces, &model.Namespace{Name: ns})
		q.Objects = append(q.Objects, cq, &quota.LocalQueue{Namespace: ns, Name: queueName, ClusterQueue: cq.Name})
	}
	g.w.Queues = q
	r := rand.New(rand.NewPCG(31, 32))
	demand := map[int]int64{} // per cohort
	for i := range spec.Pods {
		cq := r.IntN(queues)
		p := g.pod(fmt.Sprintf("job-%06d", i), "batch", queueingPodCPU, 0)
		p.Namespace, p.UID = fmt.Sprintf("ns-%04d", cq), fmt.Sprintf("pod-ns-%04d-job-%06d", cq, i)
		p.Labels[queueNameLabel] = queueName
		// Only cpu: Kueue refuses a workload asking for a resource its
		// ClusterQueue has no quota of.
		delete(p.Containers[0].Requests, model.ResourceMemory)
		g.pending(p)
		demand[cq/QueueingQueuesPerCohort] += queueingPodCPU
	}
	for c, d := range demand {
		members := min(QueueingQueuesPerCohort, queues-c*QueueingQueuesPerCohort)
		pool := int64(members) * QueueingNominalCPU
		g.w.HeldByQuota += int(max(0, d-pool) / queueingPodCPU)
	}
}

// writeYAML writes the Kueue objects as kueue.x-k8s.io/v1beta2 documents
// (berthctl simulate -f admits the pods with them).
func (q *Queues) writeYAML(w *bufio.Writer) error {
	for _, ns := range q.Namespaces {
		fmt.Fprintf(w, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns.Name)
	}
	for _, o := range q.Objects {
		switch o := o.(type) {
		case *quota.ResourceFlavor:
			fmt.Fprintf(w, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: %s\n", o.Name)
		case *quota.ClusterQueue:
			fmt.Fprintf(w, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: %s\nspec:\n  namespaceSelector: {}\n  cohortName: %s\n"+
				"  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n      - name: cpu\n        nominalQuota: %s\n",
				o.Name, o.Cohort, quantityCPU(o.ResourceGroups[0].Flavors[0].Resources[0].Nominal))
		case *quota.LocalQueue:
			fmt.Fprintf(w, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  clusterQueue: %s\n",
				o.Name, o.Namespace, o.ClusterQueue)
		default:
			return fmt.Errorf("queueing workload: no YAML for %T", o)
		}
	}
	return nil
}

// UnusedQueuesNamespace is where UnusedQueues puts its LocalQueue; no
// workload's pod is in it.
const UnusedQueuesNamespace = "unused-queues"

// UnusedQueues is Kueue configured but used by no pod (issue 32's "unused
// features" check): a ResourceFlavor, a ClusterQueue with cpu quota on it
// and a LocalQueue pointing there, in a namespace of its own. Added to
// another workload, whose pods carry no queue-name label, it measures what
// berthd's admission controller costs the pods it does not admit.
func UnusedQueues() *Queues {
	cq := &quota.ClusterQueue{
		Name: "unused-cq", NamespaceSelector: &model.LabelSelector{}, FairWeight: 1,
		ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{model.ResourceCPU}, Flavors: []quota.FlavorQuotas{{
			Name: "default", Resources: []quota.ResourceEntry{{Name: model.ResourceCPU, ResourceQuota: quota.ResourceQuota{Nominal: QueueingNominalCPU}}},
		}}}},
	}
	quota.DefaultClusterQueue(cq)
	return &Queues{
		Namespaces: []*model.Namespace{{Name: UnusedQueuesNamespace}},
		Objects: []any{
			&quota.ResourceFlavor{Name: "default"}, cq,
			&quota.LocalQueue{Namespace: UnusedQueuesNamespace, Name: queueName, ClusterQueue: cq.Name},
		},
	}
}
