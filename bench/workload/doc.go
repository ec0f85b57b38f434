// Package workload generates the synthetic clusters of Berth's benchmark
// suite (issue 8), modelled on kube-scheduler's scheduler_perf and on
// kubeoracle's throughput mode, so the same cluster can be scheduled by
// Berth (in process or through berthd) and by the real kube-scheduler.
//
// Generate returns a Workload as core/model objects: the nodes, the
// priority classes, the pods already running, the pending pods (the ones
// whose decisions are measured) and the Stream of state changes a driver
// sends once the clock starts (the pending pods, interleaved with node and
// pod churn for MixedChurn). WriteYAML writes the initial cluster as
// Kubernetes manifests; for the workloads kubeoracle also generates
// (basic, spread, affinity, preemption) the bytes are those of
// `kubeoracle gen` with the same sizes, so both schedulers see the
// identical input. The DRA workload (dra.go) adds Devices: a DeviceClass,
// a ResourceSlice of GPUsPerNode GPUs per node and ResourceClaimTemplates
// its pods claim 1-4 GPUs of a model through; WriteYAML writes them as
// resource.k8s.io/v1 documents kubeoracle's `throughput -f` reads. The
// volumes workload (volumes.go) adds Storage: a StorageClass, a CSIDriver,
// a CSINode per node and a CSIStorageCapacity per zone, and a claim for
// every other pending pod, which scheduling provisions; volumes-bound is
// the same with every claim already bound to a zonal volume of its own,
// which kube-scheduler, lacking a volume controller in kubeoracle,
// finishes too.
//
// Every workload uses kubeoracle's node shape: nodes node-NNNNN with 32 cpu,
// 128Gi and 110 pods, labelled with their hostname, one of 10 zones
// (round-robin), region-1, linux/amd64 and pool "default".
package workload
