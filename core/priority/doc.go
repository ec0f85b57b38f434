// Package priority admits pods the way Kubernetes' priority admission does:
// it resolves a pod's priority and preemption policy from its PriorityClass,
// the global default class, or the priority the caller gave, and keeps the
// set of known classes. Classes change only future admissions: a pod keeps
// the priority it was admitted with.
package priority
