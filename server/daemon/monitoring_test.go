package daemon

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// The gauges deploy/monitoring's alerts read: serving, the store writable,
// the log's revisions and retention, the watch lag.
func TestMonitoringGauges(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := start(t, Config{DataDir: t.TempDir(), Registry: reg, Bbolt: bboltstore.Options{Retention: store.Retention{MaxRecords: 1000}}})
	w := e.startWatch(t, &berthv1.WatchRequest{FromRevision: 1})
	if _, err := e.state.Apply(t.Context(), &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n1", 1000), podObj(podWire("p1", 100))}}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "p1's bind", func(ds []*berthv1.Decision) bool { return len(ds) > 0 })
	for name, want := range map[string]float64{
		"berth_serving":                        1,
		"berth_store_writable":                 1,
		"berth_decision_log_first_revision":    1,
		"berth_decision_log_last_revision":     1,
		"berth_decision_log_retention_records": 1000,
	} {
		if got := gauge(t, reg, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// The lag is of the watch's sends, which may trail the decision just
	// received; it is at most that one.
	if got := gauge(t, reg, "berth_watch_lag_revisions"); got > 1 {
		t.Errorf("berth_watch_lag_revisions = %v, want at most 1", got)
	}
}

func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no single series of %s", name)
	return 0
}

// TestRetentionGaugeFromStore: a store handed in (an etcd leader's, whose
// retention the replica sets) exports its own retention, not
// Config.Bbolt's (which was 0 then).
func TestRetentionGaugeFromStore(t *testing.T) {
	st, err := bboltstore.Open(t.Context(), t.TempDir(), bboltstore.Options{Retention: store.Retention{MaxRecords: 250}})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	start(t, Config{Store: st, Registry: reg})
	if got := gauge(t, reg, "berth_decision_log_retention_records"); got != 250 {
		t.Errorf("berth_decision_log_retention_records = %v, want the store's 250", got)
	}
}
