// Package podtopologyspread is the PodTopologySpread plugin: it spreads the
// pods selected by a pod's topologySpreadConstraints evenly across the
// domains of each constraint's topologyKey (the nodes sharing a value of
// that node label).
//
// DoNotSchedule constraints filter. PreFilter counts, per constraint and
// domain, the pods in the pod's namespace (terminating pods aside) that the
// constraint's selector matches, over the nodes that have every
// constraint's key and pass the constraint's node inclusion policies
// (nodeAffinityPolicy Honor by default: the pod's nodeSelector and
// required node affinity; nodeTaintsPolicy Ignore by default, Honor: the
// taints the pod must tolerate). Filter rejects a node lacking a key
// (UnschedulableAndUnresolvable, "... (missing required label)"), or whose
// domain would exceed maxSkew over the least populated domain
// (Unschedulable); the least count is taken as 0 while there are fewer
// domains than minDomains. AddPod and RemovePod keep the counts in step
// for nominated pods and preemption victims.
//
// ScheduleAnyway constraints score. PreScore counts matching pods per
// domain of the feasible nodes, over all nodes that pass the inclusion
// policies; Score gives each node sum(count * log(domains + 2) + maxSkew -
// 1) rounded, per-node counts for the hostname key, and NormalizeScore
// maps the lowest to 100 and the highest to 100*lowest/highest. Nodes
// lacking a key score 0.
//
// matchLabelKeys are merged into each constraint's selector with the pod's
// own label values, as kube-scheduler 1.36 does.
//
// A pod without constraints of its own gets the cluster default
// constraints: the built-in System ones (hostname maxSkew 3 and zone
// maxSkew 5, both ScheduleAnyway) or, with defaultingType List, the args'
// defaultConstraints. Their selector is the AND of the pod's
// WorkloadSelectors: the selectors of its controller (ReplicaSet,
// StatefulSet, ReplicationController) and of the Services matching it,
// which kube-scheduler merges into one selector the same way. A pod
// without workload selectors (or only empty ones) gets no defaults. Under
// System defaulting, scoring keeps the nodes lacking a topology key (they
// form the domain "" and get no score for that key) instead of ignoring
// them, so nodes without a zone label still get hostname spreading.
package podtopologyspread
