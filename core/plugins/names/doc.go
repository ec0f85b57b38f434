// Package names lists the names of kube-scheduler's default plugins as they
// appear in a KubeSchedulerConfiguration. Each plugin package exports its own
// Name constant equal to one of these; this package lets the configuration
// and the registry name every plugin without importing them all.
package names
