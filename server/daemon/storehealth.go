package daemon

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/server/metrics"
	"github.com/berthsched/berth/store"
)

// healthReporter is a store that says whether it can write
// (bboltstore.Store).
type healthReporter interface {
	Health() (changed <-chan struct{}, err error)
}

// followStoreHealth holds the scheduling loop and reports NOT_SERVING (gRPC
// health and /healthz) while the store cannot write (a full disk, an I/O
// error), and undoes both when it can again; the store retries with backoff
// by itself and logs the condition, rate limited. State writes are still
// accepted: they change memory only, and the orchestrator, the source of
// truth for objects, need not re-list after the disk recovers. Decisions are
// what need the log, and a held loop makes none, instead of failing binds
// by the thousand. It returns when ctx ends, at once for a store that
// reports no health (etcdstore: etcd's failures end the leader's term).
func (d *Daemon) followStoreHealth(ctx context.Context) {
	st, ok := d.store.(healthReporter)
	if !ok {
		return
	}
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	for {
		changed, err := st.Health()
		switch {
		case err != nil && release == nil:
			d.srv.SetServing(false)
			r, herr := d.sched.Hold(ctx)
			if herr != nil {
				return // ctx ended
			}
			release = r
			d.logger.Error("berthd stopped scheduling and reports NOT_SERVING until the store can write again", "err", err)
		case err == nil && release != nil:
			release()
			release = nil
			d.srv.SetServing(true)
			d.logger.Warn("the store can write again: berthd schedules and reports SERVING")
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// retentionReporter is a store that says which records its compaction
// keeps (bboltstore and etcdstore).
type retentionReporter interface {
	Retention() store.Retention
}

// exportLogState registers the decision log's gauges and, for a store that
// reports its health, berth_store_writable. The retention is the store's
// own, so that an etcd replica's (set by the replica, not by
// Config.Bbolt) is the one exported.
func (d *Daemon) exportLogState(reg prometheus.Registerer) error {
	maxRecords := d.cfg.Bbolt.Retention.MaxRecords
	if st, ok := d.store.(retentionReporter); ok {
		maxRecords = st.Retention().MaxRecords
	}
	if err := metrics.RegisterLogState(reg, d.feed, maxRecords); err != nil {
		return err
	}
	st, ok := d.store.(healthReporter)
	if !ok {
		return nil
	}
	return metrics.RegisterStoreWritable(reg, func() error { _, err := st.Health(); return err })
}
