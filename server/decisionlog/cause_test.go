package decisionlog

import (
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
)

// Every cause the framework knows has its wire cause and its label;
// an unknown one is UNSPECIFIED.
func TestCauses(t *testing.T) {
	tests := []struct {
		cause framework.EvictCause
		wire  berthv1.EvictCause
		label string
	}{
		{framework.EvictPreemption, berthv1.EvictCause_EVICT_CAUSE_PREEMPTION, "preemption"},
		{framework.EvictTaint, berthv1.EvictCause_EVICT_CAUSE_TAINT, "taint"},
		{framework.EvictAPI, berthv1.EvictCause_EVICT_CAUSE_API, "api"},
		{framework.EvictNodePressure, berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE, "node_pressure"},
		{framework.EvictDeschedule, berthv1.EvictCause_EVICT_CAUSE_DESCHEDULE, "deschedule"},
		{framework.EvictDefragment, berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT, "defragment"},
		{framework.EvictCause(99), berthv1.EvictCause_EVICT_CAUSE_UNSPECIFIED, "unspecified"},
	}
	for _, tc := range tests {
		t.Run(tc.label, func(t *testing.T) {
			if got := CauseOf(tc.cause); got != tc.wire {
				t.Errorf("CauseOf(%d) = %v, want %v", tc.cause, got, tc.wire)
			}
			if got := CauseLabel(tc.wire); got != tc.label {
				t.Errorf("CauseLabel(%v) = %q, want %q", tc.wire, got, tc.label)
			}
		})
	}
}
