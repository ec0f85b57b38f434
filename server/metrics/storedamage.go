package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/store"
)

// RegisterDamagedRecords registers berth_store_damaged_records_total, by
// keyspace: the damaged keyspace values the store skipped since it opened
// (damaged reports them; every keyspace is listed, 0 when none).
func RegisterDamagedRecords(reg prometheus.Registerer, damaged func() map[store.Space]uint64) error {
	return reg.Register(&damagedRecords{
		desc: prometheus.NewDesc("berth_store_damaged_records_total",
			"Keyspace records (nominations, binds awaiting their outcome, unschedulable messages, ...) found damaged, failing their checksum, "+
				"since the store opened, by keyspace. Each was skipped as absent and is rebuilt when next written; 'berthd verify --repair' drops them.",
			[]string{"keyspace"}, nil),
		damaged: damaged,
	})
}

type damagedRecords struct {
	desc    *prometheus.Desc
	damaged func() map[store.Space]uint64
}

func (d *damagedRecords) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d *damagedRecords) Collect(ch chan<- prometheus.Metric) {
	counts := d.damaged()
	for _, sp := range store.Spaces() {
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.CounterValue, float64(counts[sp]), string(sp))
	}
}
