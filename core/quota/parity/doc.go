// Package parity measures how closely Berth's admission (core/quota/
// admission) matches the real Kueue v0.17 scheduler's. It generates random
// Kueue scenarios (Generate: flavors with labels and taints, cohort forests
// and trees with cohort quota, ClusterQueues with random quotas,
// borrowing and lending limits, queueing strategies, fungibility and
// preemption policies, priorities, partial admission, workloads already
// admitted), keeps them under testdata/scenarios and kueueoracle's output
// for them under testdata/golden, and TestParity compares Berth's lines
// with the oracle's, workload by workload.
//
// A scenario enters the corpus only if five oracle runs print the same
// lines: Kueue iterates Go maps in places where the iteration order shows
// in its messages (two resources of one group that both do not fit), and
// such scenarios have no single right answer.
//
// The goldens are regenerated with the oracle built from
// ../../../../shared/kueueoracle (see its README):
//
//	go test ./core/quota/parity -run TestUpdateGolden -update -oracle /tmp/kueueoracle
//
// (add -only PREFIX to regenerate only the scenarios named so).
package parity
