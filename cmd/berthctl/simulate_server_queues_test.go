package main

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/server/daemon"
)

// startBerthdKueue is startBerthd with Kueue's Configuration (berthd's
// --kueue-config).
func startBerthdKueue(t *testing.T, kueue quota.Config) (string, *daemon.Daemon) {
	t.Helper()
	d, err := daemon.Open(t.Context(), daemon.Config{DataDir: t.TempDir(), Deterministic: true, Kueue: kueue})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, lis, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return lis.Addr().String(), d
}

// withoutCycles drops from kueueoracle's workload lines what only a run of
// cycles has (cycle, preemptedCycle, preemptions): a live admission has
// no cycles. Pod lines are kept as they are.
func withoutCycles(t *testing.T, out string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, `{"workload":`) {
			var wl admission.Line
			if err := json.Unmarshal([]byte(l), &wl); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			wl.Cycle, wl.PreemptedCycle, wl.Preemptions = 0, 0, 0
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(wl); err != nil {
				t.Fatal(err)
			}
			l = strings.TrimSuffix(b.String(), "\n")
		}
		lines = append(lines, l)
	}
	return lines
}

// Live and offline differences a test may meet, as docs/queueing.md
// documents them.
const (
	diffLastRound = "the message of a workload waiting for quota is the last round's (the quota missing now), not that of the cycle it was last tried in"
	diffNoError   = "berth.v1's WorkloadState has no error: a workload refused before admission (an unknown priority class) is inadmissible live, with the same message"
	diffSentAdmit = "berthd does not take back an admission made elsewhere (a Workload sent with its admission): a workload that would preempt one waits, where offline it preempts"
)

// liveDifference is which documented difference explains that a
// workload's offline and live lines differ; "" when none does. preemptsSent
// says the offline run preempts a Workload sent with its admission.
func liveDifference(off, live admission.Line, preemptsSent bool) string {
	waiting := func(r string) bool { return r == admission.ResultPending || r == admission.ResultInadmissible }
	a, b := off, live
	a.Message, b.Message = "", ""
	switch {
	case off.Result == live.Result && waiting(off.Result) && cmp.Equal(a, b):
		return diffLastRound
	case off.Result == admission.ResultError && live.Result == admission.ResultInadmissible && off.Message == live.Message:
		return diffNoError
	case preemptsSent:
		return diffSentAdmit
	}
	return ""
}

// workloadLines parses the workload lines of simulate's output, by
// workload; the other lines are returned as they are.
func workloadLines(t *testing.T, lines []string) (map[string]admission.Line, []string) {
	t.Helper()
	wls := map[string]admission.Line{}
	var rest []string
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"workload":`) {
			rest = append(rest, l)
			continue
		}
		var wl admission.Line
		if err := json.Unmarshal([]byte(l), &wl); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		wls[wl.Workload] = wl
	}
	return wls, rest
}

// TestSimulateServerMatchesOfflineOnQueueing: with Kueue objects,
// simulate --server admits the workloads live in berthd (each cluster on
// a berthd of its own, with the cluster's Kueue Configuration), playing
// the orchestrator (binds confirmed, evicted pods deleted), and prints,
// once berthd settled, the pod lines and the workload lines of the
// offline run with berthd's options (--queueing-no-throttle
// --queueing-progress), less the cycle counts, over the Kueue examples,
// berthctl's queued pods, an evict-first case and a slice of
// core/quota/parity's corpus. Pod lines must be identical; a workload line
// that differs must be explained by a documented live/offline difference
// (liveDifference). berthd holds no pod and no ClusterQueue afterwards.
func TestSimulateServerMatchesOfflineOnQueueing(t *testing.T) {
	files := []string{filepath.Join("testdata", "queueing-pods.yaml")}
	for _, pattern := range []string{
		filepath.Join("testdata", "queueing-live", "*.yaml"),
		filepath.Join("..", "..", "core", "quota", "admission", "testdata", "examples", "*.yaml"),
	} {
		more, err := filepath.Glob(pattern)
		if err != nil || len(more) == 0 {
			t.Fatalf("no %s: %v", pattern, err)
		}
		files = append(files, more...)
	}
	scenarios := filepath.Join("..", "..", "core", "quota", "parity", "testdata", "scenarios")
	for _, prefix := range []string{"quota-0", "tree-22", "fair-40", "preempt-10", "v1beta1-30"} {
		more, err := filepath.Glob(filepath.Join(scenarios, prefix+"*.yaml"))
		if err != nil || len(more) == 0 {
			t.Fatalf("no %s scenarios: %v", prefix, err)
		}
		files = append(files, more...)
	}
	var mu sync.Mutex
	total, same, strict, strictLines := 0, 0, 0, 0
	explained := map[string]int{}
	t.Cleanup(func() {
		t.Logf("%d clusters: %d of %d workload lines identical; explained: %v; %d clusters without Workloads sent admitted, %d workload lines, all identical or explained by the message rule",
			len(files), same, total, explained, strict, strictLines)
	})
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			c, err := manifest.LoadFiles(file)
			if err != nil {
				t.Fatal(err)
			}
			if c.Queueing == nil {
				t.Fatalf("%s has no Kueue objects", file)
			}
			addr, d := startBerthdKueue(t, c.Queueing.Config)
			offline := berthctl(t, nil, "", "simulate", "-f", file, "--queueing-no-throttle", "--queueing-progress")
			remote := berthctl(t, nil, "", "--server", addr, "simulate", "-f", file)
			if offline.code != exitOK || remote.code != exitOK {
				t.Fatalf("offline exit %d (stderr %q), --server exit %d (stderr %q)", offline.code, offline.stderr, remote.code, remote.stderr)
			}
			offWls, offPods := workloadLines(t, withoutCycles(t, offline.stdout))
			liveWls, livePods := workloadLines(t, strings.Split(remote.stdout, "\n"))
			if diff := cmp.Diff(offPods, livePods); diff != "" {
				t.Errorf("pod lines (-offline +server):\n%s", diff)
			}
			sent := map[string]bool{}
			for _, w := range c.Queueing.Workloads {
				if w.Admission != nil && len(w.Running) == 0 {
					sent[w.Key()] = true
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(sent) == 0 {
				strict++
				strictLines += len(offWls)
			}
			// Offline, Kueue preempts a Workload sent admitted; berthd does
			// not take such an admission back.
			preemptsSent := false
			for k := range sent {
				preemptsSent = preemptsSent || offWls[k].Result == admission.ResultPreempted
			}
			for _, k := range slices.Sorted(maps.Keys(offWls)) {
				total++
				off, live := offWls[k], liveWls[k]
				if cmp.Equal(off, live) {
					same++
					continue
				}
				why := liveDifference(off, live, preemptsSent)
				if why == "" {
					t.Errorf("workload %s (-offline +server):\n%s", k, cmp.Diff(off, live))
					continue
				}
				explained[why]++
			}
			for k := range liveWls {
				if _, ok := offWls[k]; !ok {
					t.Errorf("workload %s only live: %+v", k, liveWls[k])
				}
			}
			if pods := d.Scheduler().View().Pods(); len(pods) != 0 {
				t.Errorf("berthd holds %d pods after simulating", len(pods))
			}
			if held, err := d.Objects().List(holder.KindClusterQueue); err != nil || len(held) != 0 {
				t.Errorf("berthd holds %d ClusterQueues after simulating (%v)", len(held), err)
			}
		})
	}
}
