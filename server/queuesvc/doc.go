// Package queuesvc decides Kueue admission live inside berthd: the
// controller half of issue 31, over core/quota/admission's engine.
//
// Data in: the object store's events (server/daemon subscribes Handle):
// pods labelled kueue.x-k8s.io/queue-name (as sent, before the pod
// mutators), pod groups, namespaces, priority classes and the six Kueue
// kinds of core/quota/holder; the durable admissions of the book
// (server/podbook, store.Admissions), restored after a restart (Restore).
// Workloads are derived as berthctl simulate derives them
// (core/quota/integrations): a pending labelled pod is a one-pod workload,
// the members of a PodGroup labelled with a queue name (or with labelled
// members) one workload, a queued Job's or StatefulSet's pods one workload
// of their owner (owners.go: a partially admitted Job has only its
// admitted count of pods released), a labelled pod found
// bound without an admission a running workload admitted to the queue its
// node's labels match (as Kueue's running pods are), an explicit Workload
// itself.
//
// A round (Run: debounced, at most one per Options.Debounce while events
// arrive, one at a time) runs admission.RunWith over a snapshot with
// NoThrottle and Progress, the workloads admitted carrying their
// Admission, and submits one framework.Plan:
//   - for each workload preempted: its WorkloadEviction and an Evict (cause
//     quota, naming the preemptor) of each of its pods bound or binding; it
//     keeps its quota until those pods are gone, then is pending again
//     (requeued, as Kueue requeues evicted workloads);
//   - an Admit of each workload newly admitted, except those the run
//     reached only after a preemption: evict first, admit once the quota is
//     free, in a later round; when its ClusterQueue wants placement-aware
//     admission, a Nomination of each of its pending pods to the node the
//     round's placement checker (Options.Placement: a copy of the live
//     cluster, asked workload after workload) found, right after the Admit.
//
// Without a ClusterQueue held, pod events schedule no round; with a
// placement-aware one, node events and pod deletions do too.
//
// Data out: the decisions; the pod mutator (Mutate) gates every pod of a
// workload not admitted (admission.AdmissionGate) and releases those of an
// admitted one with their flavors' node labels and tolerations, as
// admission.ApplyToPods does; after an Admit commits, its pods are applied
// again (objstore.Store.RefreshPod) so the scheduler sees them ungated.
// Status is the last round's view of every ClusterQueue and workload, and
// Kueue's metrics are registered under Kueue's names.
//
// Until Start (no restart, or the orchestrator's first re-list, or the
// initial sync timeout) no round runs: admitting before the running pods
// are known would count quota as free that is not. Until Relisted (no
// restart, or a re-list ended) no admission is forgotten: a pod not
// re-sent yet keeps its workload's admission.
package queuesvc
