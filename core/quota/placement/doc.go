// Package placement is the scheduler's side of Berth's placement-aware
// admission: an admission.PlacementChecker over core/simulate's engine
// (the scheduler's own profiles, filters and scores), so that admission
// asks the same code that will place the pods.
//
// Data in: a simulate.Input of the cluster as it is now (berthctl
// simulate: the manifests' nodes and running pods; berthd: a copy of the
// live scheduler's nodes, bound and binding pods and nominations, built
// once per admission round). Data out: for each workload admission asks
// about, a node per pod, or the scheduler's reasons why not all fit. A
// placed workload's pods stay on their nodes in the copy, so the next
// workload of the same round meets them; a preempted one's are taken
// back out (Release).
package placement
