// Package deschedule is Kubernetes' Descheduler (v0.36) as pure logic over
// a cluster snapshot: one pass of a policy's profiles — the Deschedule
// strategies of every profile, then their Balance strategies — with the
// DefaultEvictor's filters, the pass's eviction limits
// (maxNoOfPodsToEvictPerNode/PerNamespace/Total) and the eviction API's
// disruption-budget rule, giving the evictions in the order the
// Descheduler makes them.
//
// Data comes in as a Cluster (nodes, every pod with its Runtime, budgets,
// namespaces) and a policy.Policy (core/deschedule/policy); what comes out
// is a Result. Nothing here stores, keeps time or talks to anyone: the
// caller gives the time of the pass.
//
// Semantics follow the Descheduler's code: nodes in name order and each
// node's pods in namespace/name order (the order descheduleroracle feeds
// it); candidates ordered the way each strategy orders them; an evicted
// pod is gone for the rest of the pass (the Descheduler's dry-run sandbox
// deletes it); a budget's allowance is computed once per pass and charged
// per eviction; node fit is the Descheduler's own predicate set
// (schedulable, node selector and required affinity, NoSchedule and
// NoExecute taints, the candidate's required anti-affinity, requests).
//
// Where Berth differs: utilization is request-based only (no metrics
// sources); RemoveFailedPods is refused by the policy reader, not run;
// PodLifeTime's pod-condition filters are refused (the Pod API carries no
// conditions). Where the Descheduler iterates a Go map (namespaces and
// chosen pods of RemovePodsViolatingTopologySpreadConstraint, owners of
// RemoveDuplicates) Berth takes name order.
package deschedule
