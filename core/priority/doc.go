// Package priority admits pods the way Kubernetes' priority admission does:
// it resolves a pod's priority and preemption policy from its PriorityClass
// or the global default class, trusts a priority the caller gave (the
// value an earlier admission gave the pod), and keeps the set of known
// classes. Classes change only future admissions: a pod keeps the priority
// it was admitted with.
package priority
