package daemon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// ServerInfo says when berthd restarted and waits for the orchestrator's
// re-list, and when the first re-list of pods ends it.
func TestServerInfoAwaitsFirstRelist(t *testing.T) {
	dir := t.TempDir()
	info := func(e *env) *berthv1.ServerInfoResponse {
		t.Helper()
		resp, err := e.admin().ServerInfo(t.Context(), &berthv1.ServerInfoRequest{})
		if err != nil {
			t.Fatalf("ServerInfo: %v", err)
		}
		return resp
	}
	check := func(what string, got, want *berthv1.ServerInfoResponse) {
		t.Helper()
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: ServerInfo (-want +got):\n%s", what, diff)
		}
	}

	e := start(t, Config{DataDir: dir, Version: "v-test", InitialSyncTimeout: time.Hour})
	check("a fresh data directory", info(e), &berthv1.ServerInfoResponse{Version: "v-test"})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("web", 1000)))
	w.waitFor(t, "web bound", func(ds []*berthv1.Decision) bool { return binds(ds)["web"] != "" })
	e.shutdown(t)

	e = start(t, Config{DataDir: dir, Version: "v-test", InitialSyncTimeout: time.Hour})
	check("restarted, before the re-list", info(e), &berthv1.ServerInfoResponse{Version: "v-test", AwaitingRelist: true, SchedulingHeld: true})
	_, send := e.syncStream(t)
	send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_NODE}})
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(nodeObj("n1", 4000))})
	check("after a re-list of nodes only", info(e), &berthv1.ServerInfoResponse{Version: "v-test", AwaitingRelist: true, SchedulingHeld: true})
	send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_POD}})
	send(&berthv1.SyncRequest{BatchId: 4, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(podObj(podWire("web", 1000, withNode("n1"))))})
	check("after the re-list of pods", info(e), &berthv1.ServerInfoResponse{Version: "v-test"})
	e.shutdown(t)

	// Without an initial sync timeout nothing is held, but the re-list is
	// still awaited.
	e = start(t, Config{DataDir: dir})
	check("restarted without a hold", info(e), &berthv1.ServerInfoResponse{AwaitingRelist: true})
}
