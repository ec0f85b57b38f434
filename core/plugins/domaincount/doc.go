// Package domaincount keeps, per signature, sums of per-node counts over
// a snapshot's nodes, grouped by slot (a constraint or term) and topology
// domain, up to date across scheduling cycles: when the snapshot records
// which nodes changed (framework.NodeJournal), only those nodes are
// recomputed.
//
// It is what lets PodTopologySpread and InterPodAffinity stop walking
// every pod of every node for every pod they schedule. kube-scheduler
// rebuilds the same counts in each PreFilter (podtopologyspread's
// calPreFilterState, interpodaffinity's getExistingAntiAffinityCounts and
// getIncomingAffinityAntiAffinityCounts); here pods with the same
// signature (replicas of one workload) share the counts, which follow the
// cluster by deltas. The plugins copy what they need into their cycle
// state, so the counts a cycle reads are exactly those a full walk of the
// snapshot would give.
package domaincount
