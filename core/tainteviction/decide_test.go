package tainteviction

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

func secs(s int64) *int64 { return &s }

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := model.Taint{Key: "a", Value: "x", Effect: model.TaintEffectNoExecute}
	b := model.Taint{Key: "b", Effect: model.TaintEffectNoExecute}
	noSched := model.Taint{Key: "a", Value: "x", Effect: model.TaintEffectNoSchedule}
	tolA := func(s *int64) model.Toleration {
		return model.Toleration{Key: "a", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: s}
	}
	tolB := func(s *int64) model.Toleration {
		return model.Toleration{Key: "b", Operator: model.TolerationOpExists, TolerationSeconds: s}
	}
	scheduledAt := &Scheduled{Started: t0.Add(-time.Second), At: t0.Add(2 * time.Second)}
	tests := []struct {
		name      string
		taints    []model.Taint
		tols      []model.Toleration
		scheduled *Scheduled
		want      Decision
	}{
		{name: "no taints", want: Decision{Verdict: Leave}},
		{name: "NoSchedule only", taints: []model.Taint{noSched}, want: Decision{Verdict: Leave}},
		{name: "untolerated", taints: []model.Taint{a}, want: Decision{Verdict: EvictNow, Untolerated: &a}},
		{name: "untolerated supersedes a schedule", taints: []model.Taint{a, b}, tols: []model.Toleration{tolA(secs(5))}, scheduled: scheduledAt, want: Decision{Verdict: EvictNow, Untolerated: &b}},
		{name: "tolerated 2s", taints: []model.Taint{a}, tols: []model.Toleration{tolA(secs(2))}, want: Decision{Verdict: Schedule, At: t0.Add(2 * time.Second)}},
		{name: "tolerated forever", taints: []model.Taint{a}, tols: []model.Toleration{tolA(nil)}, want: Decision{Verdict: Leave}},
		{name: "zero seconds", taints: []model.Taint{a}, tols: []model.Toleration{tolA(secs(0))}, want: Decision{Verdict: EvictNow}},
		{name: "negative seconds", taints: []model.Taint{a}, tols: []model.Toleration{tolA(secs(-3))}, want: Decision{Verdict: EvictNow}},
		{name: "smallest of the used", taints: []model.Taint{a, b}, tols: []model.Toleration{tolA(secs(3)), tolB(secs(1))}, want: Decision{Verdict: Schedule, At: t0.Add(time.Second)}},
		{name: "forever and seconds: the seconds", taints: []model.Taint{a, b}, tols: []model.Toleration{tolA(nil), tolB(secs(4))}, want: Decision{Verdict: Schedule, At: t0.Add(4 * time.Second)}},
		{name: "first matching toleration per taint", taints: []model.Taint{a}, tols: []model.Toleration{tolA(secs(9)), tolA(secs(1))}, want: Decision{Verdict: Schedule, At: t0.Add(9 * time.Second)}},
		{name: "scheduled kept on change", taints: []model.Taint{a, b}, tols: []model.Toleration{tolA(secs(3)), tolB(secs(1))}, scheduled: scheduledAt, want: Decision{Verdict: Keep, At: scheduledAt.At}},
		{name: "scheduled cancelled by forever", taints: []model.Taint{a}, tols: []model.Toleration{tolA(nil)}, scheduled: scheduledAt, want: Decision{Verdict: Leave}},
		{name: "scheduled cancelled by removal", scheduled: scheduledAt, want: Decision{Verdict: Leave}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.taints, tt.tols, tt.scheduled, t0)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}
