package main

import (
	"path/filepath"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestStatsPushAgainstBerthd: the corpus scenario mem-over-request (recorded
// from the real kubelet) applied and its Summary pushed: berthd evicts the
// pod the kubelet evicted, with its grace period and message.
func TestStatsPushAgainstBerthd(t *testing.T) {
	addr, _ := startBerthd(t)
	const corpus = "../../core/pressure/testdata/oracle/"
	run := func(stdin string, args ...string) result {
		t.Helper()
		return berthctl(t, nil, stdin, append([]string{"--server", addr}, args...)...)
	}
	if got := run("", "apply", "-f", corpus+"mem-over-request.yaml"); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
	}
	got := run("", "stats", "push", "-f", corpus+"mem-over-request.stats0.json")
	want := corpus + "mem-over-request.stats0.json: node n1: MemoryPressure (memory.available<100Mi)\n" +
		"  evicted default/web-a (grace 1s): The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container web was using 2Gi, request is 1Gi, has larger consumption of memory.\n"
	if got.code != exitOK || got.stdout != want {
		t.Fatalf("stats push: %+v\nwant stdout %q", got, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"node":{"nodeName":"n1","memry":{}}}`)
	if got := run("", "stats", "push", "-f", bad); got.code != exitFailed || !strings.Contains(got.stderr, `unknown field "memry"`) {
		t.Errorf("malformed Summary: %+v, want exit 1 naming the field", got)
	}
	if got := run(`{"node":{"nodeName":"n9"}}`, "stats", "push", "-f", "-"); got.code != exitNotFound || !strings.Contains(got.stderr, "node n9") {
		t.Errorf("unknown node: %+v, want exit 4 naming it", got)
	}
	if got := run("", "stats", "push"); got.code != exitUsage {
		t.Errorf("no -f: %+v, want exit 2", got)
	}
}

// STATUS spells the conditions as kubectl does, PIDPressure included, and
// names a condition once when the node sent it and its stats set it too.
func TestNodeStatus(t *testing.T) {
	cond := func(typ berthv1.NodeConditionType, st berthv1.ConditionStatus) *berthv1.NodeCondition {
		return &berthv1.NodeCondition{Type: typ, Status: st}
	}
	const isTrue, isFalse, unknown = berthv1.ConditionStatus_CONDITION_STATUS_TRUE, berthv1.ConditionStatus_CONDITION_STATUS_FALSE, berthv1.ConditionStatus_CONDITION_STATUS_UNKNOWN
	tests := []struct {
		name     string
		node     *berthv1.NodeUsage
		pressure []string
		want     string
	}{
		{"no condition sent", &berthv1.NodeUsage{}, nil, "Ready"},
		{"not ready, cordoned", &berthv1.NodeUsage{Unschedulable: true, Conditions: []*berthv1.NodeCondition{cond(berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, isFalse)}}, nil, "NotReady,SchedulingDisabled"},
		{"unknown", &berthv1.NodeUsage{Conditions: []*berthv1.NodeCondition{cond(berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, unknown)}}, nil, "Unknown"},
		{"pid pressure sent and from stats", &berthv1.NodeUsage{Conditions: []*berthv1.NodeCondition{
			cond(berthv1.NodeConditionType_NODE_CONDITION_TYPE_PID_PRESSURE, isTrue), cond(berthv1.NodeConditionType_NODE_CONDITION_TYPE_NETWORK_UNAVAILABLE, isTrue)}},
			[]string{"PIDPressure", "MemoryPressure"}, "Ready,PIDPressure,NetworkUnavailable,MemoryPressure"},
	}
	for _, tt := range tests {
		if got := nodeStatus(tt.node, tt.pressure); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
