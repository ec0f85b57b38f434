package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/clients/go"
)

// leaderService is the gRPC health service SERVING only on the leader.
const leaderService = "berth.v1.StateService"

// failover waits for a leader, writes through the Go client given every
// replica, kills the leader abruptly, waits for the next leader and writes
// again: the client follows it. It prints what it sees and how long the
// lead was vacant.
func failover(ctx context.Context, out io.Writer, reps []*replica) error {
	var addrs []string
	for _, r := range reps {
		addrs = append(addrs, r.addr)
	}
	// The client starts at the last replica, which is likely not the leader.
	cl, err := berth.DialEndpoints(ctx, append(addrs[len(addrs)-1:], addrs[:len(addrs)-1]...))
	if err != nil {
		return err
	}
	defer cl.Close()
	first, err := waitLeader(ctx, reps, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "leader: %s (%s)\n", first.name, first.addr)
	if err := applyNode(ctx, out, cl, "ha-node-1"); err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(out, "killing %s (SIGKILL, pid %d)\n", first.name, first.cmd.Process.Pid)
	if err := first.cmd.Process.Kill(); err != nil {
		return err
	}
	<-first.exited
	next, err := waitLeader(ctx, reps, first)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "new leader: %s (%s), %s after the kill\n", next.name, next.addr, time.Since(start).Round(100*time.Millisecond))
	return applyNode(ctx, out, cl, "ha-node-2")
}

// applyNode upserts one node through the client and says which replica
// took it.
func applyNode(ctx context.Context, out io.Writer, cl *berth.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	node := &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{Name: name}}}
	if err := cl.Apply(ctx, node); err != nil {
		return fmt.Errorf("apply node %s: %w", name, err)
	}
	fmt.Fprintf(out, "applied node %s through the client: taken by %s\n", name, cl.Target())
	return nil
}

// waitLeader polls the replicas' health (every 200ms, two minutes at
// most) until one other than skip serves StateService.
func waitLeader(ctx context.Context, reps []*replica, skip *replica) (*replica, error) {
	conns := make([]*grpc.ClientConn, len(reps))
	for i, r := range reps {
		c, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		conns[i] = c
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		for i, r := range reps {
			if r == skip {
				continue
			}
			cctx, ccancel := context.WithTimeout(ctx, time.Second)
			resp, err := healthpb.NewHealthClient(conns[i]).Check(cctx, &healthpb.HealthCheckRequest{Service: leaderService})
			ccancel()
			if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, errors.New("no replica became the leader within two minutes (see berthd-*.log in -dir)")
		case <-time.After(200 * time.Millisecond):
		}
	}
}
