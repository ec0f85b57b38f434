package daemon

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/server/metrics"
	"github.com/berthsched/berth/store"
)

// damageCounter is a store that skips damaged keyspace values, logging
// each (bboltstore and etcdstore, through store/logstore), and counts them.
type damageCounter interface {
	DamagedValues() map[store.Space]uint64
}

// exportStoreDamage makes the store's count of damaged keyspace values a
// metric (berth_store_damaged_records_total); nothing for a store that
// keeps no count.
func exportStoreDamage(reg prometheus.Registerer, st store.Store) error {
	if dc, ok := st.(damageCounter); ok {
		return metrics.RegisterDamagedRecords(reg, dc.DamagedValues)
	}
	return nil
}
