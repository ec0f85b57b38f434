// Package manifest reads Kubernetes manifests (multi-document YAML or JSON)
// into Berth's model: v1 Node, Pod and Namespace, scheduling.k8s.io/v1
// PriorityClass, policy/v1 PodDisruptionBudget, v1 List, and the pod
// templates of apps/v1 Deployment, ReplicaSet, StatefulSet and batch/v1 Job
// expanded into the pods their controllers would create. A
// kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration document is
// kept raw for the config package.
//
// Objects are decoded with the real Kubernetes API types and then given the
// defaults the API server would apply (container requests from limits, node
// allocatable from capacity, the default scheduler name, the default
// not-ready/unreachable tolerations), so a manifest means here what it
// means in a cluster. Errors name the file, the document and the field.
package manifest
