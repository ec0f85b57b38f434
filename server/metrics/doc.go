// Package metrics is Berth's Prometheus instrumentation: the scheduler's
// measurements under kube-scheduler's metric names (scheduler.Metrics) and
// the decision log's and its watches' (decisionlog.Metrics, watch.Metrics),
// registered on a registry the server serves on /metrics.
package metrics
