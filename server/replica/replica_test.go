package replica

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestFollowerServesReadsAndRefusesWrites: the leader schedules; a
// follower streams the same decisions with the same log id, answers
// writes NOT_LEADER naming the leader, and reports NOT_SERVING for
// berth.v1.StateService while SERVING overall.
func TestFollowerServesReadsAndRefusesWrites(t *testing.T) {
	g := newGroup(t, 2, time.Second)
	lead := g.leader()
	follower := g.nodes[0]
	if follower == lead {
		follower = g.nodes[1]
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	if err := apply(ctx, lead.conn, nodeObj("n1", 4000), podObj("p1", 1000, "")); err != nil {
		t.Fatalf("Apply on the leader %s (leading %v): %v", lead.addr, lead.rep.Leading(), err)
	}
	// The follower learns the leader's address from its own observation
	// of the election: NOT_LEADER names no leader until then.
	for {
		err := apply(ctx, follower.conn, podObj("p2", 1000, ""))
		addr, ok := notLeader(err)
		if !ok || (addr != "" && addr != lead.addr) {
			t.Fatalf("Apply on a follower = %v; want UNAVAILABLE NOT_LEADER naming %s or no one", err, lead.addr)
		}
		if addr == lead.addr {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := berthv1.NewAdminServiceClient(follower.conn).ListNodes(ctx, &berthv1.ListNodesRequest{})
	if _, ok := notLeader(err); !ok {
		t.Errorf("ListNodes on a follower = %v; want NOT_LEADER", err)
	}
	leaderInfo, err := berthv1.NewAdminServiceClient(lead.conn).ServerInfo(ctx, &berthv1.ServerInfoRequest{})
	if err != nil {
		t.Fatalf("ServerInfo on the leader: %v", err)
	}
	followerInfo, err := berthv1.NewAdminServiceClient(follower.conn).ServerInfo(ctx, &berthv1.ServerInfoRequest{})
	if err != nil {
		t.Fatalf("ServerInfo on a follower: %v", err)
	}
	term := leaderInfo.GetTerm()
	for _, tc := range []struct {
		got, want *berthv1.ServerInfoResponse
	}{
		{leaderInfo, &berthv1.ServerInfoResponse{Version: "test", Role: berthv1.ReplicaRole_REPLICA_ROLE_LEADER, Leader: lead.addr, Term: term}},
		{followerInfo, &berthv1.ServerInfoResponse{Version: "test", Role: berthv1.ReplicaRole_REPLICA_ROLE_FOLLOWER, Leader: lead.addr, Term: term}},
	} {
		if diff := cmp.Diff(tc.want, tc.got, protocmp.Transform()); diff != "" {
			t.Errorf("ServerInfo (-want +got):\n%s", diff)
		}
	}
	if term == 0 {
		t.Error("the leader reports term 0")
	}

	want := watchUntil(ctx, t, lead, 1)
	got := watchUntil(ctx, t, follower, 1)
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("follower's watch differs from the leader's (-leader +follower):\n%s", diff)
	}
	if want[0].GetLogId() == "" {
		t.Error("empty log id")
	}

	for _, tc := range []struct {
		nd   *node
		want float64
	}{{lead, 1}, {follower, 0}} {
		if got := testutil.ToFloat64(tc.nd.rep.metrics.leader); got != tc.want {
			t.Errorf("leader_election_master_status on %s = %v, want %v", tc.nd.addr, got, tc.want)
		}
	}
	if n := testutil.ToFloat64(follower.rep.metrics.termChanges); n < 1 {
		t.Errorf("the follower counted %v term changes; want at least the first leader", n)
	}
	if n := testutil.CollectAndCount(lead.rep.metrics.etcd); n == 0 {
		t.Error("no etcd request latency observed on the leader")
	}

	for _, tc := range []struct {
		nd      *node
		service string
		want    healthpb.HealthCheckResponse_ServingStatus
	}{
		{lead, "", healthpb.HealthCheckResponse_SERVING},
		{lead, "berth.v1.StateService", healthpb.HealthCheckResponse_SERVING},
		{follower, "", healthpb.HealthCheckResponse_SERVING},
		{follower, "berth.v1.DecisionService", healthpb.HealthCheckResponse_SERVING},
		{follower, "berth.v1.StateService", healthpb.HealthCheckResponse_NOT_SERVING},
		{follower, "berth.v1.StatsService", healthpb.HealthCheckResponse_NOT_SERVING},
	} {
		resp, err := healthpb.NewHealthClient(tc.nd.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: tc.service})
		if err != nil || resp.GetStatus() != tc.want {
			t.Errorf("health of %q on %s = %v, %v; want %v", tc.service, tc.nd.addr, resp.GetStatus(), err, tc.want)
		}
	}
}

// watchUntil watches from revision 1 until it has n decisions and returns
// the responses' decisions with the log id, one WatchResponse.
func watchUntil(ctx context.Context, t *testing.T, nd *node, n int) []*berthv1.WatchResponse {
	t.Helper()
	stream, err := berthv1.NewDecisionServiceClient(nd.conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: 1}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Watch on %s: %v", nd.addr, err)
	}
	out := &berthv1.WatchResponse{}
	for len(out.Decisions) < n {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("Watch on %s: %v", nd.addr, err)
		}
		out.LogId = resp.GetLogId()
		out.Decisions = append(out.Decisions, resp.GetDecisions()...)
	}
	out.Decisions = out.Decisions[:n]
	return []*berthv1.WatchResponse{out}
}
