package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// LogState is what the decision log's watch feed says of the log and its
// watches (*watch.Feed).
type LogState interface {
	Revisions() (first, last uint64)
	WatchLag() uint64
}

// RegisterLogState registers the decision log's gauges: its first and last
// revisions, the records its retention keeps (maxRecords; 0: no count
// limit), and how far behind the slowest open watch is. Alerts compare them
// (deploy/monitoring): a log whose records near maxRecords compacts what a
// lagging watcher has yet to read.
func RegisterLogState(reg prometheus.Registerer, log LogState, maxRecords int) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "berth_decision_log_first_revision",
			Help: "The oldest revision the decision log keeps (compaction removes older ones); 1 + last when it is empty.",
		}, func() float64 { first, _ := log.Revisions(); return float64(first) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "berth_decision_log_last_revision",
			Help: "The newest revision in the decision log; 0 before the first decision.",
		}, func() float64 { _, last := log.Revisions(); return float64(last) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "berth_decision_log_retention_records",
			Help: "The most records the decision log keeps (--retain-decisions); 0: no count limit.",
		}, func() float64 { return float64(maxRecords) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "berth_watch_lag_revisions",
			Help: "Revisions the furthest-behind open DecisionService.Watch has yet to be sent; 0 with every watch caught up or none open.",
		}, func() float64 { return float64(log.WatchLag()) }),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// RegisterStoreWritable registers berth_store_writable: 1 while the store
// can write, 0 while it cannot (a full disk, an I/O error: berthd then
// holds scheduling and reports NOT_SERVING). health is the store's
// (bboltstore.Store.Health).
func RegisterStoreWritable(reg prometheus.Registerer, health func() error) error {
	return reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "berth_store_writable",
		Help: "1 while the store can write, 0 while it cannot (a full disk, an I/O error); berthd then holds scheduling and reports NOT_SERVING.",
	}, func() float64 {
		if health() != nil {
			return 0
		}
		return 1
	}))
}
