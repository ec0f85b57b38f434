package daemon

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// value returns the value of the series of name whose labels include
// labels, and whether there is one.
func value(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			return sampleValue(m), true
		}
	}
	return 0, false
}

func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return 0
}

// The scheduler's and the log's metrics carry kube-scheduler's names.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := start(t, Config{DataDir: t.TempDir(), Registry: reg})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1000))
	e.apply(t, podObj(podWire("fits", 1000)), podObj(podWire("too-big", 5000)))
	w.waitFor(t, "a bind and an unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_BIND) == 1 &&
			countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) == 1
	})
	profile := "default-scheduler"
	tests := []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"scheduler_schedule_attempts_total", map[string]string{"result": "scheduled", "profile": profile}, 1},
		{"scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable", "profile": profile}, 1},
		{"scheduler_scheduling_attempt_duration_seconds", map[string]string{"result": "scheduled", "profile": profile}, 1},
		{"scheduler_pending_pods", map[string]string{"queue": "unschedulable"}, 0},
		{"scheduler_pending_pods", map[string]string{"queue": "active"}, 0},
		{"scheduler_preemption_attempts_total", nil, 1},
		{"scheduler_framework_extension_point_duration_seconds", map[string]string{"extension_point": "PreFilter", "profile": profile}, 1},
		{"berth_decisions_total", map[string]string{"type": "bind"}, 1},
		{"berth_decisions_total", map[string]string{"type": "unschedulable"}, 1},
		{"berth_store_commit_duration_seconds", nil, 2},
		{"berth_watchers", nil, 1},
		{"grpc_server_handled_total", map[string]string{"grpc_method": "Apply", "grpc_code": "OK"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := value(t, reg, tt.name, tt.labels)
			if !ok || got < tt.min {
				t.Errorf("%s%v = %v (present %v), want at least %v", tt.name, tt.labels, got, ok, tt.min)
			}
		})
	}
	// The binding goroutine observes the bind once its decision is durable,
	// which may be just after the watcher saw it.
	sli := "scheduler_pod_scheduling_sli_duration_seconds"
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Any attempts label: an event may requeue the pod once before
		// it binds; what counts is that its one bind is observed.
		got := total(t, reg, sli)
		if got == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v observations, want one bind observed", sli, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// total sums the samples of every series of the metric name.
func total(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += sampleValue(m)
			}
		}
	}
	return sum
}
