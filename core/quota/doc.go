// Package quota is Kueue's (v0.17) admission model as Berth holds it:
// ResourceFlavor, ClusterQueue, Cohort (hierarchical), LocalQueue,
// WorkloadPriorityClass and Workload with its pod sets, in canonical
// integers (cpu in millicores, memory in bytes) like the rest of core.
//
// Objects come from core/manifest (Kueue YAML, kueue.x-k8s.io v1beta1 and
// v1beta2, converted to v1beta2's meaning there) and are checked here by
// Validate* as Kueue's webhooks check them, with field paths and the
// webhooks' messages. The admission cycle that uses them lives in
// core/quota/admission.
package quota
