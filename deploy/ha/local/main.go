// Command local runs Berth highly available on one machine, without
// containers: three etcd members embedded in this process
// (go.etcd.io/etcd/server/v3/embed) and three berthd processes with
// --store etcd, all on loopback. It is deploy/ha/compose.yaml for a machine
// without docker. From the repository root:
//
//	go run ./deploy/ha/local            # runs until Ctrl-C
//	go run ./deploy/ha/local -failover  # elects, kills the leader, waits for the next, exits
//
// It builds berthd (or takes -berthd), keeps etcd's data, the replicas'
// data directories and their logs under -dir (a temporary directory,
// removed at exit, by default), and prints the addresses to give berthctl
// and the clients. The replicas listen on 127.0.0.1:7071-7073 (metrics
// 9091-9093), etcd on 127.0.0.1:23791-23793 (peers 23801-23803); -port-offset
// moves them all.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

type options struct {
	berthd     string
	dir        string
	portOffset int
	leaseTTL   time.Duration
	failover   bool
}

// members is how many etcd members and berthd replicas run.
const members = 3

func main() {
	var o options
	fs := flag.NewFlagSet("local", flag.ExitOnError)
	fs.StringVar(&o.berthd, "berthd", "", "berthd binary to run (default: go build ./cmd/berthd into -dir)")
	fs.StringVar(&o.dir, "dir", "", "where etcd's data, the replicas' data and logs go (default: a temporary directory, removed at exit)")
	fs.IntVar(&o.portOffset, "port-offset", 0, "added to every port (7071.., 9091.., 23791.., 23801..)")
	fs.DurationVar(&o.leaseTTL, "lease-ttl", 10*time.Second, "berthd --etcd-lease-ttl: how long a dead leader keeps the lead")
	fs.BoolVar(&o.failover, "failover", false, "wait for a leader, kill it (SIGKILL), wait for the next one, print how long it took, and exit")
	_ = fs.Parse(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	dir := o.dir
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	} else {
		tmp, err := os.MkdirTemp("", "berth-ha-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	bin := o.berthd
	if bin == "" {
		bin = filepath.Join(dir, "berthd")
		fmt.Fprintln(out, "building berthd ...")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/berthd")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/berthd (run from the repository root, or pass -berthd): %w", err)
		}
	}
	etcds, err := startEtcd(ctx, dir, o.portOffset)
	defer func() {
		for _, e := range etcds {
			e.Close()
		}
	}()
	if err != nil {
		return err
	}
	var endpoints []string
	for _, e := range etcds {
		endpoints = append(endpoints, e.Config().AdvertiseClientUrls[0].String())
	}
	var reps []*replica
	defer func() {
		for _, r := range reps {
			r.stop()
		}
	}()
	for i := range members {
		r, err := startReplica(bin, dir, i, o, endpoints)
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	printSummary(out, dir, endpoints, reps)
	if o.failover {
		return failover(ctx, out, reps)
	}
	<-ctx.Done()
	fmt.Fprintln(out, "stopping")
	return nil
}

// startEtcd starts the members of one etcd cluster in this process and
// waits until they serve (a quorum formed). It returns those started even
// on error, for the caller to close.
func startEtcd(ctx context.Context, dir string, offset int) ([]*embed.Etcd, error) {
	peer := func(i int) url.URL { return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", 23801+offset+i)} }
	client := func(i int) url.URL { return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", 23791+offset+i)} }
	var initial []string
	for i := range members {
		p := peer(i)
		initial = append(initial, fmt.Sprintf("etcd-%d=%s", i+1, p.String()))
	}
	var out []*embed.Etcd
	for i := range members {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("etcd-%d", i+1)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer(i)}, []url.URL{peer(i)}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client(i)}, []url.URL{client(i)}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "berth-ha-local"
		cfg.ClusterState = embed.ClusterStateFlagNew
		cfg.LogLevel = "warn"
		cfg.LogOutputs = []string{filepath.Join(dir, cfg.Name+".log")}
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			return out, fmt.Errorf("etcd member %s: %w", cfg.Name, err)
		}
		out = append(out, e)
	}
	timeout := time.After(time.Minute)
	for _, e := range out {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			return out, fmt.Errorf("etcd member %s: %w", e.Config().Name, err)
		case <-timeout:
			return out, errors.New("etcd did not form a quorum within a minute (see etcd-*.log in -dir)")
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	return out, nil
}

// replica is one berthd process.
type replica struct {
	name    string
	addr    string // gRPC, the address it advertises
	metrics string
	log     string
	cmd     *exec.Cmd
	exited  chan struct{}
}

func startReplica(bin, dir string, i int, o options, etcdEndpoints []string) (*replica, error) {
	r := &replica{
		name:    fmt.Sprintf("berthd-%d", i+1),
		addr:    fmt.Sprintf("127.0.0.1:%d", 7071+o.portOffset+i),
		metrics: fmt.Sprintf("127.0.0.1:%d", 9091+o.portOffset+i),
		exited:  make(chan struct{}),
	}
	r.log = filepath.Join(dir, r.name+".log")
	logFile, err := os.Create(r.log)
	if err != nil {
		return nil, err
	}
	r.cmd = exec.Command(bin,
		"--listen="+r.addr, "--metrics-listen="+r.metrics, "--data-dir="+filepath.Join(dir, r.name),
		"--store=etcd", "--etcd-endpoints="+strings.Join(etcdEndpoints, ","), "--etcd-prefix=/berth/",
		"--etcd-lease-ttl="+o.leaseTTL.String(), "--advertise-address="+r.addr)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", r.name, err)
	}
	go func() {
		_ = r.cmd.Wait()
		logFile.Close()
		close(r.exited)
	}()
	return r, nil
}

// stop ends the process gracefully (SIGTERM: a leader resigns at once),
// killing it if it has not exited in 15s.
func (r *replica) stop() {
	select {
	case <-r.exited:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(15 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
}

func printSummary(out io.Writer, dir string, etcdEndpoints []string, reps []*replica) {
	var addrs []string
	for _, r := range reps {
		addrs = append(addrs, r.addr)
	}
	fmt.Fprintf(out, "etcd: %s\n", strings.Join(etcdEndpoints, ","))
	for _, r := range reps {
		fmt.Fprintf(out, "%s: pid %d, gRPC %s, metrics http://%s/metrics, log %s\n", r.name, r.cmd.Process.Pid, r.addr, r.metrics, r.log)
	}
	fmt.Fprintf(out, "data and logs: %s\n", dir)
	fmt.Fprintf(out, "try:\n  export BERTH_SERVER=%s\n  berthctl get queue\n  berthctl apply -f deploy/demo/cluster.yaml\n", strings.Join(addrs, ","))
	fmt.Fprintln(out, "kill the leader (kill -9 PID) to watch another take over; Ctrl-C stops everything")
}
