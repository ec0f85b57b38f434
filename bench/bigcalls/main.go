// Command bigcalls sends concurrent large Apply calls to a berthd and
// reports how each ended, to measure what large requests cost berthd
// (its peak RSS: VmHWM in /proc/<pid>/status). See the figures in
// docs/reliability.md.
//
//	go run ./bench/bigcalls --server 127.0.0.1:7070 --calls 16 --bytes 15000000 [--token T]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func main() {
	server := flag.String("server", "127.0.0.1:7070", "berthd's gRPC address")
	calls := flag.Int("calls", 16, "concurrent Apply calls")
	size := flag.Int("bytes", 15_000_000, "approximate size of each request")
	token := flag.String("token", "", "bearer token; empty sends none")
	conns := flag.Int("conns", 1, "connections to spread the calls over")
	flag.Parse()
	if err := run(*server, *calls, *size, *conns, *token); err != nil {
		fmt.Fprintln(os.Stderr, "bigcalls:", err)
		os.Exit(1)
	}
}

// request is an Apply of nodes with a few labels each, about size bytes:
// many small objects, as an orchestrator's re-list is.
func request(size int) *berthv1.ApplyRequest {
	req := &berthv1.ApplyRequest{}
	for i, total := 0, 0; total < size; i++ {
		labels := map[string]string{}
		for j := range 8 {
			labels[fmt.Sprintf("example.com/label-%d", j)] = fmt.Sprintf("value-%d-%d", i, j)
		}
		o := &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
			Name: fmt.Sprintf("node-%07d", i), Labels: labels,
			Allocatable: map[string]int64{"cpu": 64000, "memory": 256 << 30, "pods": 110},
		}}}
		total += proto.Size(o) + 3 // its tag and length in the request
		req.Objects = append(req.Objects, o)
	}
	return req
}

func run(server string, calls, size, nconns int, token string) error {
	req := request(size)
	var clients []berthv1.StateServiceClient
	for range nconns {
		conn, err := grpc.NewClient(server, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(32<<20)))
		if err != nil {
			return err
		}
		defer conn.Close()
		clients = append(clients, berthv1.NewStateServiceClient(conn))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	var (
		mu    sync.Mutex
		codes = map[string]int{}
		wg    sync.WaitGroup
	)
	start := time.Now()
	for i := range calls {
		wg.Go(func() {
			_, err := clients[i%nconns].Apply(ctx, req)
			mu.Lock()
			codes[status.Code(err).String()]++
			mu.Unlock()
		})
	}
	wg.Wait()
	var out []string
	for c, n := range codes {
		out = append(out, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(out)
	fmt.Printf("%d calls of %d bytes (%d objects) in %v: %s\n", calls, proto.Size(req), len(req.Objects), time.Since(start).Round(time.Millisecond), strings.Join(out, " "))
	return nil
}
