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
// victims). testdata/images holds the ImageLocality corpus (GenOptions.Images:
// nodes holding images under the names kubelets report, pods spelling
// them in every way). testdata/dra holds the DRA corpus: random device clusters
// (GenerateDRA) and kubeoracle's DRA examples, whose traces must be
// identical line for line; testdata/volumes the storage corpus
// (GenerateVolumes: local and zonal volumes, both binding modes, attach
// limits, ReadWriteOncePod, shared and missing claims), likewise.
//
// The traces are kube-scheduler v1.37.2's (kubeoracle). A later release is
// one regeneration away (needs the oracle built from
// ../../../shared/kubeoracle, see its README):
//
//	go test ./core/parity -run 'TestUpdateGolden$|TestUpdateImagesGolden|TestUpdateDRAGolden|TestUpdateVolumeGolden' -update -oracle /tmp/kubeoracle -shared /work/shared
//	for f in core/parity/testdata/extended/clusters/*.yaml; do
//	  /tmp/kubeoracle place -f $f > core/parity/testdata/extended/golden/$(basename $f .yaml).jsonl; done
//	go test ./core/simulate -run TestOracleGolden -update -oracle /tmp/kubeoracle
//	go test ./cmd/berthctl -run TestSimulateGolden -update -oracle /tmp/kubeoracle
//	go test ./core/gang -run Parity -oracle /tmp/kubeoracle
//
// then TestParity* (and the others) say what differs. Nothing of the
// oracle's traces is normalised or dropped.
package parity
