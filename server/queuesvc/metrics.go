package queuesvc

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are Kueue's, under Kueue's names and labels, so that dashboards
// made for Kueue read berthd's.
type metrics struct {
	pending   *prometheus.GaugeVec
	admitted  *prometheus.CounterVec
	waitTime  *prometheus.HistogramVec
	usage     *prometheus.GaugeVec
	evicted   *prometheus.CounterVec
	usageSeen map[[3]string]bool
}

// Kueue's values of kueue_pending_workloads' status label.
const (
	pendingActive       = "active"
	pendingInadmissible = "inadmissible"
)

// evictedPreempted is Kueue's reason label for a workload evicted by
// preemption (kueue_evicted_workloads_total{reason}).
const evictedPreempted = "Preempted"

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kueue_pending_workloads",
			Help: "The number of pending workloads, per cluster_queue and status (active: in the queue; inadmissible: waiting for a change that may make them admissible).",
		}, []string{"cluster_queue", "status"}),
		admitted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_admitted_workloads_total",
			Help: "The number of workloads admitted, per cluster_queue (durable Admit decisions).",
		}, []string{"cluster_queue"}),
		waitTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_admission_wait_time_seconds",
			Help:    "The time from a workload's creation to its admission, per cluster_queue.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 12),
		}, []string{"cluster_queue"}),
		usage: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kueue_cluster_queue_resource_usage",
			Help: "The quota the admitted workloads of a cluster_queue use, per flavor and resource (cpu in millicores, memory in bytes, others in units).",
		}, []string{"cluster_queue", "flavor", "resource"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_evicted_workloads_total",
			Help: "The number of workloads evicted, per cluster_queue and reason.",
		}, []string{"cluster_queue", "reason"}),
		usageSeen: map[[3]string]bool{},
	}
	if reg == nil {
		return m, nil
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.pending, m.admitted, m.waitTime, m.usage, m.evicted} {
		errs = append(errs, reg.Register(c))
	}
	return m, errors.Join(errs...)
}

// observeAdmitted counts an admission and its wait since created; a
// workload sent without a creation time has no wait to observe.
func (m *metrics) observeAdmitted(cq string, created, now time.Time) {
	m.admitted.WithLabelValues(cq).Inc()
	if !created.IsZero() {
		m.waitTime.WithLabelValues(cq).Observe(max(now.Sub(created), 0).Seconds())
	}
}

func (m *metrics) observeEvicted(cq string) { m.evicted.WithLabelValues(cq, evictedPreempted).Inc() }

// setStatus sets the gauges from a round's status: every ClusterQueue's
// pending counts and usage; usage series of quota no longer used go to 0.
func (m *metrics) setStatus(st Status) {
	m.pending.Reset()
	seen := map[[3]string]bool{}
	for _, cq := range st.ClusterQueues {
		m.pending.WithLabelValues(cq.Name, pendingActive).Set(float64(cq.Pending))
		m.pending.WithLabelValues(cq.Name, pendingInadmissible).Set(float64(cq.Inadmissible))
		for _, r := range cq.Resources {
			k := [3]string{cq.Name, r.Flavor, r.Resource}
			seen[k] = true
			m.usage.WithLabelValues(k[:]...).Set(float64(r.Usage))
		}
	}
	for k := range m.usageSeen {
		if !seen[k] {
			m.usage.DeleteLabelValues(k[:]...)
		}
	}
	m.usageSeen = seen
}
