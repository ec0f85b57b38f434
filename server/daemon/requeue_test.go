package daemon

import (
	"context"
	"testing"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// A pod no node fits is reported unschedulable, then bound within seconds
// of a node it fits being added: NodeResourcesFit's hint sends it from the
// unschedulable pods to backoffQ, which an idle scheduler pops at once; it
// does not wait for the five-minute flush.
func TestUnschedulablePodBoundWhenNodeAdded(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("small", podCPU/2))
	e.apply(t, podObj(podWire("big", podCPU)))
	ds := w.waitFor(t, "big reported unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) > 0
	})
	if b := binds(ds); len(b) != 0 {
		t.Fatalf("binds before the node was added: %v", b)
	}

	ctx, cancel := context.WithTimeoutCause(t.Context(), 5*time.Second, context.DeadlineExceeded)
	defer cancel()
	e.apply(t, nodeObj("large", nodeCPU))
	ds = w.waitUntil(ctx, t, "big bound after the node was added", func(ds []*berthv1.Decision) bool {
		return binds(ds)["big"] != ""
	})
	if got := binds(ds)["big"]; got != "large" {
		t.Errorf("big bound to %s, want large", got)
	}
}
