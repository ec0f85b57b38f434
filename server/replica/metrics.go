package replica

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics outlive a term: each term's registry (the daemon's metrics start
// again with each term, as after a restart) gets them too.
type metrics struct {
	leader      prometheus.Gauge
	termChanges prometheus.Counter
	etcd        *prometheus.HistogramVec
}

func newMetrics() *metrics {
	return &metrics{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name:        "leader_election_master_status",
			Help:        "1 while this replica is the leader of its etcd group, 0 otherwise (kube's name).",
			ConstLabels: prometheus.Labels{"name": "berthd"},
		}),
		termChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "berth_leader_term_changes_total",
			Help: "Times this replica saw the leader's term change (a new leader, or none), since it started.",
		}),
		etcd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "berth_etcd_request_duration_seconds",
			Help:    "Latency of the store's etcd requests, by kind (txn: commits, range: reads, compact).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}, []string{"kind"}),
	}
}

func (m *metrics) observeEtcd(kind string, d time.Duration) {
	m.etcd.WithLabelValues(kind).Observe(d.Seconds())
}

// registry returns a new registry holding the lasting metrics.
func (m *metrics) registry() (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{m.leader, m.termChanges, m.etcd} {
		if err := reg.Register(c); err != nil && !errors.As(err, &prometheus.AlreadyRegisteredError{}) {
			return nil, err
		}
	}
	return reg, nil
}
