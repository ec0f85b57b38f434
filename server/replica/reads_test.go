package replica

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/emptypb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestFollowerListsNominations: after preemptions on the leader, a
// follower lists the same nominations as the leader (same pods and nodes,
// same order, same page tokens, each marked restored without priority or
// revision), refuses the same malformed requests, and follows the
// leader's changes; every call outside followerServes stays NOT_LEADER.
func TestFollowerListsNominations(t *testing.T) {
	g := newGroup(t, 2, time.Second)
	lead := g.leader()
	follower := g.nodes[0]
	if follower == lead {
		follower = g.nodes[1]
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	// Three full nodes, and three pods of higher priority that each need
	// one node's victim gone, and a node to themselves: three
	// nominations, one a node, which last while the victims run.
	var objs []*berthv1.Object
	for _, n := range []string{"n1", "n2", "n3"} {
		objs = append(objs, nodeObj(n, 4000), prioPod("victim-"+n, 3000, n, 0))
	}
	for _, p := range []string{"c", "a", "b"} {
		objs = append(objs, prioPod("hi-"+p, 3000, "", 1000))
	}
	if err := apply(ctx, lead.conn, objs...); err != nil {
		t.Fatalf("Apply on the leader: %v", err)
	}
	watchFor(ctx, t, lead, func(ds []*berthv1.Decision) bool {
		return countNominates(ds) >= 3
	})

	leaderAdmin := berthv1.NewAdminServiceClient(lead.conn)
	followerAdmin := berthv1.NewAdminServiceClient(follower.conn)
	// A grouped commit records its nominations' revisions just after the
	// store made them durable, which may be after a watcher saw them.
	want := listAll(ctx, t, leaderAdmin, &berthv1.ListNominationsRequest{})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !allRevised(want); time.Sleep(10 * time.Millisecond) {
		want = listAll(ctx, t, leaderAdmin, &berthv1.ListNominationsRequest{})
	}
	if len(want) != 3 {
		t.Fatalf("the leader lists %d nominations, want 3: %v", len(want), want)
	}
	for _, n := range want {
		if n.GetRestored() || n.GetPriority() != 1000 || n.GetRevision() == 0 {
			t.Errorf("the leader lists %v; want its pod's priority and revision, not restored", n)
		}
	}
	got := listAll(ctx, t, followerAdmin, &berthv1.ListNominationsRequest{})
	if diff := cmp.Diff(asRestored(want), got, protocmp.Transform()); diff != "" {
		t.Errorf("the follower's nominations differ from the leader's, as restored (-leader +follower):\n%s", diff)
	}

	t.Run("pages", func(t *testing.T) {
		var leaderTokens, followerTokens []string
		for _, tc := range []struct {
			admin  berthv1.AdminServiceClient
			tokens *[]string
		}{{leaderAdmin, &leaderTokens}, {followerAdmin, &followerTokens}} {
			req := &berthv1.ListNominationsRequest{PageSize: 2}
			for {
				resp, err := tc.admin.ListNominations(ctx, req)
				if err != nil {
					t.Fatalf("ListNominations: %v", err)
				}
				*tc.tokens = append(*tc.tokens, resp.GetNextPageToken())
				if req.PageToken = resp.GetNextPageToken(); req.PageToken == "" {
					break
				}
			}
		}
		if diff := cmp.Diff(leaderTokens, followerTokens); diff != "" || len(leaderTokens) != 2 {
			t.Errorf("page tokens of 2-entry pages (-leader +follower):\n%s", diff)
		}
		// A token of the leader's pages the follower's next page.
		resp, err := followerAdmin.ListNominations(ctx, &berthv1.ListNominationsRequest{PageSize: 2, PageToken: leaderTokens[0]})
		if err != nil {
			t.Fatalf("ListNominations on the follower with the leader's token: %v", err)
		}
		if diff := cmp.Diff(asRestored(want[2:]), resp.GetNominations(), protocmp.Transform()); diff != "" {
			t.Errorf("the follower's page after the leader's token (-want +got):\n%s", diff)
		}
		node := want[1].GetNode()
		byNode := listAll(ctx, t, followerAdmin, &berthv1.ListNominationsRequest{Node: node})
		if diff := cmp.Diff(asRestored(want[1:2]), byNode, protocmp.Transform()); diff != "" {
			t.Errorf("the follower's nominations on %s (-want +got):\n%s", node, diff)
		}
	})

	t.Run("invalid requests", func(t *testing.T) {
		for _, req := range []*berthv1.ListNominationsRequest{
			{PageSize: -1},
			{PageToken: "not base64!"},
			{PageToken: pageTokenOf("no-slash")},
		} {
			_, lerr := leaderAdmin.ListNominations(ctx, req)
			_, ferr := followerAdmin.ListNominations(ctx, req)
			if status.Code(ferr) != codes.InvalidArgument {
				t.Errorf("ListNominations(%v) on the follower = %v; want INVALID_ARGUMENT", req, ferr)
			}
			if diff := cmp.Diff(status.Convert(lerr).Proto(), status.Convert(ferr).Proto(), protocmp.Transform()); diff != "" {
				t.Errorf("ListNominations(%v) refused differently (-leader +follower):\n%s", req, diff)
			}
		}
	})

	t.Run("follows the leader", func(t *testing.T) {
		// The first victim goes: its node's nominee is bound there, and
		// that Bind ends the nomination in the same commit, so once the
		// follower's own log has the Bind its list has lost the entry.
		gone := want[0]
		victim := "victim-" + gone.GetNode()
		if _, err := berthv1.NewStateServiceClient(lead.conn).Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{
			{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: victim},
		}}); err != nil {
			t.Fatalf("Delete %s on the leader: %v", victim, err)
		}
		watchFor(ctx, t, follower, func(ds []*berthv1.Decision) bool {
			return slices.ContainsFunc(ds, func(d *berthv1.Decision) bool {
				return d.GetBind() != nil && d.GetPod().GetName() == gone.GetPod().GetName()
			})
		})
		got := listAll(ctx, t, followerAdmin, &berthv1.ListNominationsRequest{})
		if diff := cmp.Diff(asRestored(want[1:]), got, protocmp.Transform()); diff != "" {
			t.Errorf("the follower's nominations after %s was bound (-want +got):\n%s", gone.GetPod().GetName(), diff)
		}
		if diff := cmp.Diff(asRestored(listAll(ctx, t, leaderAdmin, &berthv1.ListNominationsRequest{})), got, protocmp.Transform()); diff != "" {
			t.Errorf("the follower's nominations differ from the leader's (-leader +follower):\n%s", diff)
		}

		// The orchestrator places the next nominee itself: no decision
		// marks it, and the store loses the nomination in the leader's
		// background removals, so the follower is asked until it has.
		placed := want[1]
		if err := apply(ctx, lead.conn, prioPod(placed.GetPod().GetName(), 3000, placed.GetNode(), 1000)); err != nil {
			t.Fatalf("Apply %s bound on the leader: %v", placed.GetPod().GetName(), err)
		}
		if got := listAll(ctx, t, leaderAdmin, &berthv1.ListNominationsRequest{}); len(got) != 1 {
			t.Errorf("the leader lists %v once %s is bound; want only %s", got, placed.GetPod().GetName(), want[2].GetPod().GetName())
		}
		for {
			got := listAll(ctx, t, followerAdmin, &berthv1.ListNominationsRequest{})
			if cmp.Equal(asRestored(want[2:]), got, protocmp.Transform()) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the follower still lists %v once %s is bound", got, placed.GetPod().GetName())
			case <-time.After(10 * time.Millisecond):
			}
		}
	})

	t.Run("the rest stays NOT_LEADER", func(t *testing.T) {
		waitLeaderKnown(ctx, t, followerAdmin, lead.addr)
		var served []string
		for _, desc := range []*grpc.ServiceDesc{
			&berthv1.StateService_ServiceDesc, &berthv1.DecisionService_ServiceDesc, &berthv1.AdminService_ServiceDesc,
			&berthv1.EvictionService_ServiceDesc, &berthv1.StatsService_ServiceDesc,
		} {
			for _, m := range methodsOf(desc) {
				if followerServes(m.name) {
					served = append(served, m.name)
					continue
				}
				err := call(ctx, follower.conn, m)
				if addr, ok := notLeader(err); !ok || addr != lead.addr {
					t.Errorf("%s on a follower = %v; want NOT_LEADER naming %s", m.name, err, lead.addr)
				}
			}
		}
		wantServed := []string{
			berthv1.DecisionService_Watch_FullMethodName,
			berthv1.AdminService_ListNominations_FullMethodName,
			berthv1.AdminService_ServerInfo_FullMethodName,
		}
		if diff := cmp.Diff(wantServed, served); diff != "" {
			t.Errorf("berth.v1 calls a follower serves (-want +got):\n%s", diff)
		}
	})
}

func prioPod(name string, cpu int64, node string, prio int32) *berthv1.Object {
	o := podObj(name, cpu, node)
	o.GetPod().Priority = proto.Int32(prio)
	return o
}

func countNominates(ds []*berthv1.Decision) int {
	n := 0
	for _, d := range ds {
		if d.GetNominate() != nil {
			n++
		}
	}
	return n
}

// watchFor watches nd from revision 1 until done holds for the decisions
// received, and returns them.
func watchFor(ctx context.Context, t *testing.T, nd *node, done func([]*berthv1.Decision) bool) []*berthv1.Decision {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := berthv1.NewDecisionServiceClient(nd.conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: 1}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Watch on %s: %v", nd.addr, err)
	}
	var ds []*berthv1.Decision
	for !done(ds) {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("Watch on %s after %d decisions: %v", nd.addr, len(ds), err)
		}
		ds = append(ds, resp.GetDecisions()...)
	}
	return ds
}

// listAll lists every page of nominations, one entry a page.
func listAll(ctx context.Context, t *testing.T, admin berthv1.AdminServiceClient, req *berthv1.ListNominationsRequest) []*berthv1.Nomination {
	t.Helper()
	req = proto.CloneOf(req)
	req.PageSize = 1
	var out []*berthv1.Nomination
	for {
		resp, err := admin.ListNominations(ctx, req)
		if err != nil {
			t.Fatalf("ListNominations(%v): %v", req, err)
		}
		out = append(out, resp.GetNominations()...)
		if req.PageToken = resp.GetNextPageToken(); req.PageToken == "" {
			return out
		}
	}
}

// asRestored is the leader's nominations as a follower lists them: it
// holds no pods, so it knows neither their priority nor the revision.
func asRestored(noms []*berthv1.Nomination) []*berthv1.Nomination {
	out := make([]*berthv1.Nomination, 0, len(noms))
	for _, n := range noms {
		out = append(out, &berthv1.Nomination{Pod: n.GetPod(), Node: n.GetNode(), Restored: true})
	}
	return out
}

// pageTokenOf is a well-encoded token holding key.
func pageTokenOf(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }

// waitLeaderKnown waits for the follower's ServerInfo to name leader, so
// that its NOT_LEADER answers name it too.
func waitLeaderKnown(ctx context.Context, t *testing.T, admin berthv1.AdminServiceClient, leader string) {
	t.Helper()
	for {
		info, err := admin.ServerInfo(ctx, &berthv1.ServerInfoRequest{})
		if err != nil {
			t.Fatalf("ServerInfo on the follower: %v", err)
		}
		if info.GetLeader() == leader {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the follower names leader %q, want %s", info.GetLeader(), leader)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// method is one RPC of a service.
type method struct {
	name                  string
	stream, clientStreams bool
}

func methodsOf(desc *grpc.ServiceDesc) []method {
	var out []method
	for _, m := range desc.Methods {
		out = append(out, method{name: "/" + desc.ServiceName + "/" + m.MethodName})
	}
	for _, s := range desc.Streams {
		out = append(out, method{name: "/" + desc.ServiceName + "/" + s.StreamName, stream: true, clientStreams: s.ClientStreams})
	}
	slices.SortFunc(out, func(a, b method) int { return strings.Compare(a.name, b.name) })
	return out
}

// call calls m with an empty request (every request message decodes from
// no bytes) and returns its error.
func call(ctx context.Context, conn *grpc.ClientConn, m method) error {
	if !m.stream {
		return conn.Invoke(ctx, m.name, &emptypb.Empty{}, &emptypb.Empty{})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: m.clientStreams}, m.name)
	if err != nil {
		return err
	}
	_ = cs.SendMsg(&emptypb.Empty{}) // the refusal may come first
	_ = cs.CloseSend()
	return cs.RecvMsg(&emptypb.Empty{})
}

// allRevised reports whether every nomination carries its revision.
func allRevised(ns []*berthv1.Nomination) bool {
	for _, n := range ns {
		if n.GetRevision() == 0 {
			return false
		}
	}
	return true
}
