package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ProcessCost is what the kernel counted for the berthd process over the
// clock's window, per pending pod: counts that do not depend on how busy
// the machine is (context switches, system calls, CPU time), beside the
// one that does (run-queue delay). With berthd in the berthctl process,
// the client's share is included (Process says which).
type ProcessCost struct {
	// Process is "berthd" (its own process) or "berthctl+berthd".
	Process string `json:"process"`
	// Threads is the process's thread count at the end of the window.
	Threads int `json:"threads"`
	// VoluntaryCtxSwitchesPerPod counts a thread blocking (futex, epoll,
	// fdatasync, ...); InvoluntaryCtxSwitchesPerPod a thread preempted.
	VoluntaryCtxSwitchesPerPod   float64 `json:"voluntaryCtxSwitchesPerPod"`
	InvoluntaryCtxSwitchesPerPod float64 `json:"involuntaryCtxSwitchesPerPod"`
	// CPUMsPerPod is the threads' time on a CPU (user and system).
	CPUMsPerPod float64 `json:"cpuMsPerPod"`
	// RunDelayMsPerPod is the threads' time runnable but waiting for a
	// CPU (schedstat): the cost of sharing the cores.
	RunDelayMsPerPod float64 `json:"runDelayMsPerPod"`
	// SyscallsPerPod is set with --syscalls: system calls entered.
	SyscallsPerPod float64 `json:"syscallsPerPod,omitempty"`
	// Syscalls, with --syscalls strace, counts them by name (per pod).
	Syscalls map[string]float64 `json:"syscalls,omitempty"`
}

// procSample is a process's counters at one moment, summed over its
// threads (/proc/PID/task/*): a thread that exits takes its counts along,
// which the Go runtime's threads, kept for the process's life, do not.
type procSample struct {
	threads                int
	voluntary, involuntary uint64
	cpu, runDelay          time.Duration
}

func readProc(pid int) (procSample, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return procSample{}, err
	}
	var s procSample
	for _, t := range tasks {
		st, err1 := os.ReadFile(filepath.Join(dir, t.Name(), "status"))
		ss, err2 := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err1 != nil || err2 != nil {
			continue // the thread exited meanwhile
		}
		s.threads++
		s.voluntary += statusField(st, "voluntary_ctxt_switches:")
		s.involuntary += statusField(st, "nonvoluntary_ctxt_switches:")
		// schedstat: ns on a CPU, ns waiting on a run queue, timeslices.
		if f := strings.Fields(string(ss)); len(f) >= 2 {
			on, _ := strconv.ParseInt(f[0], 10, 64)
			wait, _ := strconv.ParseInt(f[1], 10, 64)
			s.cpu += time.Duration(on)
			s.runDelay += time.Duration(wait)
		}
	}
	return s, nil
}

func statusField(status []byte, key string) uint64 {
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte(key)); ok {
			n, _ := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}

// probe measures one process over the clock's window.
type probe struct {
	pid      int
	process  string
	syscalls string // "", "perf" or "strace"
	stderr   io.Writer

	before procSample
	tracer *exec.Cmd
	out    string // the tracer's output file
}

// begin samples the counters and starts the syscall counter, if any.
func (p *probe) begin(ctx context.Context) error {
	if p.syscalls != "" {
		f, err := os.CreateTemp("", "berth-bench-syscalls-")
		if err != nil {
			return err
		}
		p.out = f.Name()
		f.Close()
		pid := strconv.Itoa(p.pid)
		switch p.syscalls {
		case "perf":
			p.tracer = exec.CommandContext(ctx, "perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-p", pid, "-o", p.out)
		case "strace":
			p.tracer = exec.CommandContext(ctx, "strace", "-c", "-f", "-p", pid, "-o", p.out)
		default:
			return fmt.Errorf("--syscalls must be perf or strace, not %q", p.syscalls)
		}
		p.tracer.Stderr = p.stderr
		if err := p.tracer.Start(); err != nil {
			return fmt.Errorf("--syscalls %s: %w", p.syscalls, err)
		}
		// Both attach asynchronously; give them time to before the clock.
		time.Sleep(500 * time.Millisecond)
	}
	var err error
	p.before, err = readProc(p.pid)
	return err
}

// end samples the counters again and returns the window's cost per pod.
func (p *probe) end(pods int) (*ProcessCost, error) {
	after, err := readProc(p.pid)
	if err != nil {
		return nil, err
	}
	per := func(v float64) float64 { return round3(v / float64(max(pods, 1))) }
	c := &ProcessCost{
		Process:                      p.process,
		Threads:                      after.threads,
		VoluntaryCtxSwitchesPerPod:   per(float64(after.voluntary - p.before.voluntary)),
		InvoluntaryCtxSwitchesPerPod: per(float64(after.involuntary - p.before.involuntary)),
		CPUMsPerPod:                  per(float64(after.cpu-p.before.cpu) / float64(time.Millisecond)),
		RunDelayMsPerPod:             per(float64(after.runDelay-p.before.runDelay) / float64(time.Millisecond)),
	}
	if p.tracer == nil {
		return c, nil
	}
	defer os.Remove(p.out)
	// Both write their counts when interrupted; their exit status on it
	// varies, the output says whether they counted.
	_ = p.tracer.Process.Signal(os.Interrupt)
	_ = p.tracer.Wait()
	out, err := os.ReadFile(p.out)
	if err != nil {
		return nil, err
	}
	total, byName, err := parseSyscalls(p.syscalls, out)
	if err != nil {
		return nil, err
	}
	c.SyscallsPerPod = per(float64(total))
	for name, n := range byName {
		if c.Syscalls == nil {
			c.Syscalls = make(map[string]float64)
		}
		c.Syscalls[name] = per(float64(n))
	}
	return c, nil
}

// parseSyscalls reads perf stat's CSV ("count,,raw_syscalls:sys_enter,...")
// or strace -c's table (its "total" row, and a row per call).
func parseSyscalls(tool string, out []byte) (total uint64, byName map[string]uint64, err error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch tool {
		case "perf":
			if f := strings.Split(line, ","); len(f) >= 3 && f[2] == "raw_syscalls:sys_enter" {
				n, err := strconv.ParseUint(f[0], 10, 64)
				return n, nil, err
			}
		case "strace":
			// % time  seconds  usecs/call  calls  [errors]  syscall
			f := strings.Fields(line)
			if len(f) < 5 || strings.HasPrefix(line, "%") || strings.HasPrefix(line, "-") {
				continue
			}
			name := f[len(f)-1]
			calls, err := strconv.ParseUint(f[3], 10, 64)
			if err != nil {
				continue
			}
			if name == "total" {
				return calls, byName, nil
			}
			if byName == nil {
				byName = make(map[string]uint64)
			}
			byName[name] = calls
		}
	}
	return 0, nil, fmt.Errorf("--syscalls %s: no count in its output:\n%s", tool, out)
}
