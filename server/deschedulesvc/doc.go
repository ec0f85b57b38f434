// Package deschedulesvc is berthd's descheduler: it runs the policy given
// with --descheduler-policy (core/deschedule) over a copy of the live
// cluster, checks each eviction with Berth's own scheduler
// (core/deschedule/simcheck), and, unless asked for a dry run, evicts the
// moves through berthd's one eviction path (server/eviction: durable Evict
// decisions, at most one per pod) with cause DESCHEDULE, each within the
// pod's disruption budgets as the eviction API applies them. It keeps the
// last plan for AdminService.Deschedule(last) and counts evictions as the
// Descheduler does (descheduler_pods_evicted{profile,strategy,result}).
//
// Data comes from the scheduler's read side (View) and the policy; it goes
// out as Evict decisions and the plan. Run holds mu for the whole pass, so
// two passes never interleave their evictions.
package deschedulesvc
