// Package parity measures how closely Berth's decisions match the real
// kube-scheduler's. It generates random clusters (mixed node sizes, zones,
// labels, taints, running pods with priorities and budgets, pending pods
// with every kind of constraint) as Kubernetes YAML, keeps the oracle's
// traces for them under testdata/golden, and compares Berth's simulate
// output decision by decision. The corpus: mixed-* (placement), preempt-*
// (preemption with budgets), varied-* (preemption meeting negative
// priorities, tied start times, percentage and maxUnavailable budgets,
// budgets with disrupted pods or empty selectors, pods being deleted, some
// by preemption, and nominated pods) and crowded-* (the same on two crowded
// nodes, where successive preemptions choose among many equally important
// victims). testdata/dra holds the DRA corpus: random device clusters
// (GenerateDRA) and kubeoracle's DRA examples, whose traces must be
// identical line for line.
//
// Regenerate the clusters and golden traces (needs the oracle, see
// ../../../shared/kubeoracle/README.md):
//
//	go test ./core/parity -run TestParity -update -oracle /tmp/kubeoracle
//	go test ./core/parity -run TestUpdateDRAGolden -update -oracle /tmp/kubeoracle -shared /work/shared
package parity
