package workload

import (
	"testing"

	"github.com/berthsched/berth/core/model"

	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/integrations"
)

// HeldByQuota is what Kueue's admission leaves waiting: the engine,
// given the workload's objects and a one-pod workload per pending pod,
// admits exactly the others, whatever their order.
func TestQueueingHeldByQuota(t *testing.T) {
	for _, pods := range []int{0, 59, 600, 2500} {
		w, err := Generate(Queueing, Spec{Nodes: 10, Pods: pods})
		if err != nil {
			t.Fatal(err)
		}
		objs := &quota.Objects{}
		for _, o := range w.Queues.Objects {
			switch o := o.(type) {
			case *quota.ResourceFlavor:
				objs.Flavors = append(objs.Flavors, o)
			case *quota.ClusterQueue:
				objs.ClusterQueues = append(objs.ClusterQueues, o)
			case *quota.LocalQueue:
				objs.LocalQueues = append(objs.LocalQueues, o)
			}
		}
		for _, p := range w.Pending {
			objs.Workloads = append(objs.Workloads, integrations.ForPod(p, p.Labels[integrations.QueueNameLabel], integrations.Priorities{}))
		}
		lines, _, err := admission.RunWith(t.Context(), objs, w.Queues.Namespaces, admission.Options{NoThrottle: true, Progress: true})
		if err != nil {
			t.Fatal(err)
		}
		admitted := 0
		for _, l := range lines {
			if l.Result == admission.ResultAdmitted {
				admitted++
			}
		}
		if want := len(w.Pending) - w.HeldByQuota; admitted != want {
			t.Errorf("%d pods: the engine admits %d, want %d (%d held by quota)", pods, admitted, want, w.HeldByQuota)
		}
		if pods >= 600 && w.HeldByQuota == 0 {
			t.Errorf("%d pods: none held by quota; the workload should leave some waiting", pods)
		}
	}
}

// UnusedQueues is a working Kueue configuration no workload uses: a pod
// labelled with its LocalQueue is admitted, and no pod of the workloads it
// is added to carries a queue label.
func TestUnusedQueues(t *testing.T) {
	q := UnusedQueues()
	objs := &quota.Objects{}
	for _, o := range q.Objects {
		switch o := o.(type) {
		case *quota.ResourceFlavor:
			objs.Flavors = append(objs.Flavors, o)
		case *quota.ClusterQueue:
			objs.ClusterQueues = append(objs.ClusterQueues, o)
		case *quota.LocalQueue:
			objs.LocalQueues = append(objs.LocalQueues, o)
		default:
			t.Fatalf("unexpected object %T", o)
		}
	}
	w, err := Generate(Basic, Spec{Nodes: 4, Pods: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w.Pending {
		if _, ok := p.Labels[integrations.QueueNameLabel]; ok {
			t.Errorf("pod %s is labelled with a queue; UnusedQueues must stay unused", p.Name)
		}
	}
	p := w.Pending[0] // the workload is this test's own
	p.Namespace = UnusedQueuesNamespace
	delete(p.Containers[0].Requests, model.ResourceMemory) // the ClusterQueue covers cpu only
	objs.Workloads = append(objs.Workloads, integrations.ForPod(p, queueName, integrations.Priorities{}))
	lines, _, err := admission.RunWith(t.Context(), objs, q.Namespaces, admission.Options{NoThrottle: true, Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Result != admission.ResultAdmitted {
		t.Errorf("a pod labelled with the unused LocalQueue: got %+v, want it admitted", lines)
	}
}
