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
// Cluster default constraints (args defaultConstraints with defaultingType
// List, or the built-in System defaults) are decoded and validated but
// never apply in Berth: kube-scheduler builds their selector from the
// Services, ReplicationControllers, ReplicaSets and StatefulSets that
// select the pod, and Berth has none of those objects, so kube would
// derive an empty selector and skip them too.
package podtopologyspread
