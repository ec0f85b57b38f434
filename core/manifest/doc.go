// Package manifest reads Kubernetes manifests (multi-document YAML or JSON)
// into Berth's model: v1 Node, Pod and Namespace, scheduling.k8s.io/v1
// PriorityClass, policy/v1 PodDisruptionBudget, v1 List, v1 Service, and
// the workloads apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet,
// v1 ReplicationController and batch/v1 Job, expanded into the pods their
// controllers would create (workloads.go, daemonset.go). A
// kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration document (at
// most one) is kept raw, with its location, for the config package.
// Kueue's objects (kueue.x-k8s.io v1beta1 and v1beta2 ResourceFlavor,
// ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, Workload, and
// config.kueue.x-k8s.io Configuration) become core/quota's, validated as
// Kueue's webhooks validate them (kueue.go), in Cluster.Queueing; pending
// pods and Jobs labelled kueue.x-k8s.io/queue-name become Workloads too,
// as Kueue's pod and Job integrations make them.
// Documents of kinds that do not affect scheduling (ConfigMap, Secret,
// ...), Services selecting no pod, suspended Jobs and Deployments whose
// ReplicaSet is given are listed in Cluster.Ignored. Documents still read
// but written in an API Kubernetes no longer serves (1.36's
// scheduling.k8s.io/v1alpha2 PodGroup and Workload) are listed in
// Cluster.Warnings, each naming the version to write instead.
//
// Objects are decoded with the real Kubernetes API types and then given the
// defaults and checks the API server would apply (container requests from
// limits, pod-level requests from pod-level limits, node allocatable from
// capacity, the default scheduler name, the default not-ready/unreachable
// tolerations; label keys and values, selectors matching templates), so a
// manifest means here what it means in a cluster. A running pod resized in
// place counts the larger of its spec and status requests, as
// kube-scheduler counts it. Pods get the selectors of their controller
// and of the Services matching them as WorkloadSelectors, from which
// PodTopologySpread's cluster default constraints are built.
//
// All documents of all files are read before any is converted, so objects
// may refer to each other across documents and files. Errors name the
// file, the document (and the List item) and the field.
package manifest
