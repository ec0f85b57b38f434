// Package model holds Berth's internal representation of the cluster objects the
// scheduler reasons about: nodes, pods, priority classes, disruption budgets and
// namespaces, plus the small value types they are built from (resources, label
// selectors, node selectors, taints, tolerations, affinity and topology spread).
//
// The types mirror the Kubernetes fields the scheduler reads, with resources
// already converted to canonical integers (cpu in millicores, memory and
// storage in bytes, everything else as a count). Objects arrive here from the
// server's protobuf conversion or from the manifest importer; the scheduler
// treats them as immutable once they are handed over: an update replaces the
// whole object.
package model
