// Command bigsimulate sends one large AdminService.Simulate to a berthd
// (issue 28's: nodes in cluster_delta, pods with required hostname
// anti-affinity against each other) and reports how it ended, to measure
// what a large simulation costs berthd: its peak RSS (VmHWM in
// /proc/<pid>/status) and whether it stops with its caller. See the
// figures in docs/reliability.md.
//
//	go run ./bench/bigsimulate --server 127.0.0.1:7070 --nodes 2000 --pods 2000 --deadline 30s [--summary]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func main() {
	server := flag.String("server", "127.0.0.1:7070", "berthd's gRPC address")
	nodes := flag.Int("nodes", 2000, "nodes in cluster_delta")
	pods := flag.Int("pods", 2000, "pods to simulate")
	deadline := flag.Duration("deadline", 30*time.Second, "the call's deadline")
	summary := flag.Bool("summary", false, "ask for a summary (no per-node verdicts)")
	flag.Parse()
	if err := run(*server, *nodes, *pods, *deadline, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "bigsimulate:", err)
		os.Exit(1)
	}
}

// request is the simulation of issue 28: every pod refuses to share a
// hostname with another, so each attempt looks at every node and pod.
func request(nodes, pods int, summary bool) *berthv1.SimulateRequest {
	req := &berthv1.SimulateRequest{Summary: summary}
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		req.ClusterDelta = append(req.ClusterDelta, &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
			Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
			Allocatable: map[string]int64{"cpu": 64000, "memory": 256 << 30, "pods": 110},
		}}})
	}
	term := &berthv1.PodAffinityTerm{
		LabelSelector: &berthv1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
		TopologyKey:   "kubernetes.io/hostname",
	}
	for i := range pods {
		req.Pods = append(req.Pods, &berthv1.Pod{
			Uid: fmt.Sprintf("uid-%05d", i), Namespace: "default", Name: fmt.Sprintf("pod-%05d", i),
			Labels:     map[string]string{"app": "spread"},
			Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 100, "memory": 64 << 20}}},
			Affinity:   &berthv1.Affinity{PodAntiAffinity: &berthv1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []*berthv1.PodAffinityTerm{term}}},
		})
	}
	return req
}

func run(server string, nodes, pods int, deadline time.Duration, summary bool) error {
	conn, err := grpc.NewClient(server, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(32<<20)))
	if err != nil {
		return err
	}
	defer conn.Close()
	req := request(nodes, pods, summary)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	resp, err := berthv1.NewAdminServiceClient(conn).Simulate(ctx, req)
	fmt.Printf("request %d bytes; after %s: %s", proto.Size(req), time.Since(start).Round(time.Millisecond), status.Code(err))
	if err != nil {
		fmt.Printf(": %s\n", status.Convert(err).Message())
		return nil
	}
	fmt.Printf(", %d attempts, response %d bytes\n", len(resp.GetAttempts()), proto.Size(resp))
	return nil
}
