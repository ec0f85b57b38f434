package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/berthsched/berth/bench/inprocess"
	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/server"
)

// StartFunc starts a berthd serving gRPC on loopback with its data in
// dataDir. deterministic asks for deterministic scheduling (for --verify).
type StartFunc func(ctx context.Context, dataDir string, deterministic bool, stderr io.Writer) (Started, error)

// Started is a berthd a StartFunc started.
type Started struct {
	Addr string       // its gRPC address
	Stop func() error // stops it
	// PID is its process's id, 0 when it runs in this process.
	PID int
}

// Options configure the command.
type Options struct {
	// Start starts a berthd when --server is not given. Default:
	// StartInProcess, or ExecBerthd when --berthd names a binary.
	Start StartFunc
}

type flags struct {
	workload    string
	nodes, pods int
	existing    int
	server      string
	output      string
	runs        int
	batch       int
	rate        float64
	verify      bool
	berthd      string
	berthdArgs  []string
	wait        time.Duration
	cpuProfile  string
	memProfile  string
	trace       string
	syscalls    string
	window      int
	// unusedQueues loads workload.UnusedQueues beside the workload.
	unusedQueues bool
}

// Command is `berthctl bench`.
func Command() *cobra.Command { return NewCommand(Options{}) }

// NewCommand is Command with its dependencies given.
func NewCommand(opts Options) *cobra.Command {
	var f flags
	cmd := &cobra.Command{
		Use:   "bench --workload NAME --nodes N --pods M [--server ADDR] [-o json] [--runs K]",
		Short: "Measure berthd end to end on a synthetic workload",
		Long: `bench streams a synthetic cluster (the workloads of docs/performance.md, modelled on
kube-scheduler's scheduler_perf: ` + strings.Join(workload.Names(), ", ") + `)
to berthd over berth.v1 Sync, watches the decisions until every pending pod is decided,
confirms the binds and deletes the evicted victims as an orchestrator would, and prints
one JSON line per run. Without --server it starts berthd on loopback with a temporary
data directory for each run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case f.berthd != "":
				opts.Start = ExecBerthd(f.berthd, f.berthdArgs)
			case len(f.berthdArgs) > 0:
				return errors.New("--berthd-arg needs --berthd")
			case opts.Start == nil:
				opts.Start = StartInProcess
			}
			return runCommand(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", workload.Basic, "workload: "+strings.Join(workload.Names(), ", "))
	fl.IntVar(&f.nodes, "nodes", 5000, "nodes in the cluster")
	fl.IntVar(&f.pods, "pods", 0, "pending pods to schedule (0: the suite's default for the workload and size)")
	fl.IntVar(&f.existing, "existing-pods", 0, "pods running before the clock starts (0: the workload's default)")
	fl.StringVar(&f.server, "server", "", "address of a running berthd (host:port); empty starts one on loopback")
	fl.StringVarP(&f.output, "output", "o", "text", "output: text or json")
	fl.IntVar(&f.runs, "runs", 1, "runs, each on a fresh cluster (and a fresh berthd without --server)")
	fl.IntVar(&f.batch, "batch", 500, "mutations per Sync request")
	fl.Float64Var(&f.rate, "rate", 0, "offer pending pods at this many per second (0: as fast as possible)")
	fl.BoolVar(&f.verify, "verify", false, "compare the binds with core/simulate's (the server must schedule deterministically)")
	fl.StringVar(&f.berthd, "berthd", "", "berthd binary to start without --server (default: berthd runs in this process)")
	fl.StringArrayVar(&f.berthdArgs, "berthd-arg", nil, "extra flag for the berthd started (repeatable), e.g. --berthd-arg=--deterministic")
	fl.DurationVar(&f.wait, "timeout", 30*time.Minute, "how long a run may wait for the decisions")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the runs (client and in-process berthd) to this file")
	fl.StringVar(&f.memProfile, "memprofile", "", "write a heap profile of this process (client and in-process berthd, the cluster loaded and every pod decided) to this file after each run, after a collection")
	fl.StringVar(&f.trace, "trace", "", "write an execution trace of the runs (go tool trace) to this file")
	fl.IntVar(&f.window, "window", server.FlowControlWindow, "the client's fixed HTTP/2 flow-control window in bytes, as berthd's; 0: gRPC's default (probed, growing)")
	fl.BoolVar(&f.unusedQueues, "unused-queues", false, "also load a ResourceFlavor, a ClusterQueue and a LocalQueue that no pod is labelled with (what configured but unused Kueue admission costs)")
	fl.StringVar(&f.syscalls, "syscalls", "", "also count berthd's system calls in the window: perf (perf stat, cheap) or strace (strace -c, by name, slows every call)")
	return cmd
}

func runCommand(ctx context.Context, stdout, stderr io.Writer, f flags, opts Options) error {
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("--output must be text or json, not %q", f.output)
	}
	if f.runs < 1 || f.batch < 1 {
		return errors.New("--runs and --batch must be at least 1")
	}
	if f.window < 0 || f.window > math.MaxInt32 {
		return fmt.Errorf("--window must be between 0 and %d bytes, not %d", math.MaxInt32, f.window)
	}
	if f.verify && f.workload == workload.Queueing {
		// simulate places every pod it is given; it does not admit.
		return errors.New("--verify compares binds with core/simulate's placement, which runs no Kueue admission: not for --workload queueing")
	}
	if f.unusedQueues && f.workload == workload.Queueing {
		return errors.New("--unused-queues adds queues no pod uses: not for --workload queueing, whose pods use its own")
	}
	if f.pods == 0 {
		f.pods = workload.DefaultPods(f.workload, f.nodes)
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if f.trace != "" {
		tf, err := os.Create(f.trace)
		if err != nil {
			return err
		}
		defer tf.Close()
		if err := trace.Start(tf); err != nil {
			return err
		}
		defer trace.Stop()
	}
	for i := range f.runs {
		r, err := oneRun(ctx, stderr, f, opts)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		if err := print(stdout, f.output, r); err != nil {
			return err
		}
	}
	return nil
}

func oneRun(ctx context.Context, stderr io.Writer, f flags, opts Options) (*Result, error) {
	w, err := workload.Generate(f.workload, workload.Spec{Nodes: f.nodes, Pods: f.pods, Existing: f.existing})
	if err != nil {
		return nil, err
	}
	if f.unusedQueues {
		w.Queues = workload.UnusedQueues()
	}
	addr := f.server
	var pr *probe // the berthd process's counters, when it is known
	if addr == "" {
		dir, err := os.MkdirTemp("", "berth-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		srv, err := opts.Start(ctx, dir, f.verify, stderr)
		if err != nil {
			return nil, fmt.Errorf("starting berthd: %w", err)
		}
		defer func() {
			if err := srv.Stop(); err != nil {
				fmt.Fprintf(stderr, "stopping berthd: %v\n", err)
			}
		}()
		addr = srv.Addr
		pr = &probe{pid: srv.PID, process: "berthd", syscalls: f.syscalls, stderr: stderr}
		if srv.PID == 0 {
			pr.pid, pr.process = os.Getpid(), "berthctl+berthd"
		}
	} else if f.syscalls != "" {
		return nil, errors.New("--syscalls needs berthd started by bench (no --server)")
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64 << 20))}
	if f.window > 0 {
		// Fixed windows, as berthd's (server.FlowControlWindow): no probe
		// ping or window update per pod.
		dial = append(dial, grpc.WithInitialWindowSize(int32(f.window)), grpc.WithInitialConnWindowSize(int32(f.window)))
	}
	conn, err := grpc.NewClient(addr, dial...)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := waitServing(ctx, conn); err != nil {
		return nil, err
	}
	r, err := run(ctx, conn, w, runOptions{batch: f.batch, rate: f.rate, wait: f.wait, probe: pr})
	if err != nil {
		return nil, err
	}
	r.PeakRSSMiB = peakRSSMiB()
	if f.memProfile != "" {
		if err := writeHeapProfile(f.memProfile); err != nil {
			return nil, err
		}
	}
	if f.verify {
		reg := registry.InTree()
		want, err := inprocess.SimulateBinds(ctx, w, reg, inprocess.DefaultConfig(reg), 0)
		if err != nil {
			return nil, err
		}
		ok := true
		for uid, node := range want {
			if r.binds[uid] != node {
				r.Mismatches++
				ok = false
			}
		}
		if len(r.binds) != len(want) {
			ok = false
		}
		r.Verified = &ok
	}
	return r, nil
}

// writeHeapProfile writes the live heap, after a collection, to path: what
// berthd holds (when in this process) for the cluster and the pods while
// the server still runs.
func writeHeapProfile(path string) error {
	runtime.GC()
	hf, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(hf, 0); err != nil {
		hf.Close()
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	return hf.Close()
}

func print(out io.Writer, format string, r *Result) error {
	if format == "json" {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintf(out, "%s: %d nodes, %d pods in %.3fs = %.1f pods/s, latency p50 %.2f ms p90 %.2f ms p99 %.2f ms p99.9 %.2f ms, peak RSS %.1f MiB (bound %d, unschedulable %d, evicted %d)\n",
		r.Workload, r.Nodes, r.Pods, r.Seconds, r.PodsPerSecond, r.P50LatencyMs, r.P90LatencyMs, r.P99LatencyMs, r.P999LatencyMs, r.PeakRSSMiB, r.Bound, r.Unschedulable, r.Evicted)
	if err == nil && r.Server != nil {
		c := r.Server
		_, err = fmt.Fprintf(out, "%s per pod: %.2f voluntary + %.2f involuntary context switches, %.3f ms CPU, %.3f ms waiting for a CPU, %.1f system calls\n",
			c.Process, c.VoluntaryCtxSwitchesPerPod, c.InvoluntaryCtxSwitchesPerPod, c.CPUMsPerPod, c.RunDelayMsPerPod, c.SyscallsPerPod)
	}
	if err == nil && r.Verified != nil {
		_, err = fmt.Fprintf(out, "verify against simulate: identical=%v, %d pods placed differently\n", *r.Verified, r.Mismatches)
	}
	return err
}

// waitServing waits until the server's health service answers SERVING.
func waitServing(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hc := healthpb.NewHealthClient(conn)
	for {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("berthd at %s not serving: %v", conn.Target(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ExecBerthd starts the berthd binary (found in PATH when bin is empty)
// on a free loopback port, with metrics disabled and args appended.
func ExecBerthd(bin string, args []string) StartFunc {
	if bin == "" {
		bin = "berthd"
	}
	return func(ctx context.Context, dataDir string, deterministic bool, stderr io.Writer) (Started, error) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return Started{}, err
		}
		addr := l.Addr().String()
		l.Close()
		all := append([]string{"--listen", addr, "--metrics-listen", "", "--data-dir", dataDir, "--log-level", "warn"}, args...)
		if deterministic {
			all = append(all, "--deterministic")
		}
		cmd := exec.CommandContext(ctx, bin, all...)
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			return Started{}, err
		}
		stop := func() error {
			_ = cmd.Process.Signal(os.Interrupt)
			err := cmd.Wait()
			var exit *exec.ExitError
			if errors.As(err, &exit) && !exit.Exited() {
				return nil // ended by the signal
			}
			return err
		}
		return Started{Addr: addr, Stop: stop, PID: cmd.Process.Pid}, nil
	}
}

// peakRSSMiB is this process's VmHWM (0 where /proc is missing).
func peakRSSMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err == nil {
				return round3(kb / 1024)
			}
		}
	}
	return 0
}
