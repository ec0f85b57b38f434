package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/server/daemon"
)

// startBerthd serves a real berthd (server/daemon, as cmd/berthd runs it
// with --deterministic) on loopback until the test ends, and returns its
// address.
func startBerthd(t *testing.T) (string, *daemon.Daemon) {
	t.Helper()
	return startBerthdWith(t, nil)
}

// startBerthdWith is startBerthd with a scheduler configuration (berthd's
// --scheduler-config); nil is the default.
func startBerthdWith(t *testing.T, sched *config.Config) (string, *daemon.Daemon) {
	t.Helper()
	d, err := daemon.Open(t.Context(), daemon.Config{DataDir: t.TempDir(), Deterministic: true, Scheduler: sched})
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

// TestAgainstBerthd drives a real berthd the way an operator would:
// apply, watch from a revision, explain, get.
func TestAgainstBerthd(t *testing.T) {
	addr, d := startBerthd(t)
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	writeFile(t, file, `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: fits}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, resources: {requests: {cpu: "8"}}}]}
`)
	run := func(args ...string) result {
		t.Helper()
		return berthctl(t, nil, "", append([]string{"--server", addr}, args...)...)
	}
	if got := run("apply", "-f", file); got.code != exitOK || got.stdout != "3 applied\n" {
		t.Fatalf("apply: %+v", got)
	}
	// Wait for the scheduling loop: one bind awaiting its outcome, one pod
	// unschedulable.
	deadline := time.Now().Add(10 * time.Second)
	for st := d.Scheduler().View().Stats(); st.BindsInFlight != 1 || st.Queue.Unschedulable != 1; st = d.Scheduler().View().Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("scheduler did not settle: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}

	got := run("watch", "--from-revision", "1", "-o", "json", "--idle-timeout", "300ms")
	if got.code != exitOK {
		t.Fatalf("watch: %+v", got)
	}
	var lines []watchLine
	for _, l := range strings.Split(strings.TrimSpace(got.stdout), "\n") {
		var wl watchLine
		if err := json.Unmarshal([]byte(l), &wl); err != nil {
			t.Fatalf("watch line %q: %v", l, err)
		}
		lines = append(lines, wl)
	}
	// The queue's order decides which comes first.
	byPod := map[string]watchLine{}
	for _, l := range lines {
		byPod[l.Pod] = l
	}
	bind, unsched := byPod["default/fits"], byPod["default/huge"]
	if len(lines) != 2 || bind.Type != "bind" || bind.Node != "n1" || unsched.Type != "unschedulable" ||
		!strings.HasPrefix(unsched.Message, "0/1 nodes are available: 1 Insufficient cpu.") {
		t.Fatalf("watch from 1: %+v", lines)
	}
	last := lines[1]
	got = run("watch", "--from-revision", fmt.Sprint(last.Revision), "--idle-timeout", "300ms")
	if want := fmt.Sprintf("%d %s %s", last.Revision, last.Type, last.Pod); got.code != exitOK || !strings.HasPrefix(got.stdout, want) || strings.Count(got.stdout, "\n") != 1 {
		t.Errorf("watch from %d: %+v, want one line, %q", last.Revision, got, want)
	}

	got = run("explain", "default/fits")
	for _, want := range []string{"Queue:          binding", "Attempts:       1", fmt.Sprintf("Node:           n1 (bind revision %d, waiting for the orchestrator to confirm it: berthctl confirm default/fits)", bind.Revision)} {
		if got.code != exitOK || !strings.Contains(got.stdout, want) {
			t.Errorf("explain fits lacks %q: %+v", want, got)
		}
	}
	got = run("explain", "huge")
	for _, want := range []string{"Queue:          unschedulable", "Attempts:       1", "0/1 nodes are available: 1 Insufficient cpu.", "n1    Insufficient cpu"} {
		if got.code != exitOK || !strings.Contains(got.stdout, want) {
			t.Errorf("explain huge lacks %q: %+v", want, got)
		}
	}
	if !regexp.MustCompile(`Enqueued: +\d{4}-\d\d-\d\dT`).MatchString(got.stdout) {
		t.Errorf("explain huge has no enqueue time: %s", got.stdout)
	}

	got = run("get", "pending")
	if got.code != exitOK || !regexp.MustCompile(`fits +binding +0 +1 +\d+s +- +n1 `).MatchString(got.stdout) ||
		!regexp.MustCompile(`huge +unschedulable +0 +1 +\d+s +- +- `).MatchString(got.stdout) {
		t.Errorf("get pending: %+v", got)
	}
	got = run("get", "nodes")
	if got.code != exitOK || !regexp.MustCompile(`(?m)^n1 +Ready +1/2 +50% +1Gi/4Gi +25% +1/10 +10% +0 +- +-$`).MatchString(got.stdout) {
		t.Errorf("get nodes: %+v", got)
	}
	got = run("get", "queue")
	if got.code != exitOK || !regexp.MustCompile(`binding +1\n`).MatchString(got.stdout) || !regexp.MustCompile(`unschedulable +1\n`).MatchString(got.stdout) {
		t.Errorf("get queue: %+v", got)
	}
	if got = run("get", "queue", "--scheduler-name", "nobody"); got.code != exitNotFound {
		t.Errorf("get queue of an unknown profile: %+v", got)
	}

	// Playing the orchestrator: confirm the bind, once and again; an
	// unschedulable pod has no bind to fail.
	if got = run("confirm", "default/fits"); got.code != exitOK || got.stdout != fmt.Sprintf("pod default/fits confirmed on n1 (bind revision %d)\n", bind.Revision) {
		t.Errorf("confirm: %+v", got)
	}
	if got = run("explain", "fits"); !strings.Contains(got.stdout, "Queue:          bound") {
		t.Errorf("explain after confirm: %+v", got)
	}
	if got = run("confirm", "fits"); got.code != exitOK || got.stdout != "pod default/fits is already bound to n1\n" {
		t.Errorf("confirm again: %+v", got)
	}
	if got = run("fail", "huge", "--message", "no room"); got.code != exitFailed ||
		got.stderr != "berthctl: pod default/huge has no bind awaiting an outcome: it is unschedulable (see berthctl explain default/huge)\n" {
		t.Errorf("fail an unschedulable pod: %+v", got)
	}
	if got = run("version"); got.code != exitOK || !regexp.MustCompile(`^berthctl .*commit .*\nberthd \(version unknown\) at `+regexp.QuoteMeta(addr)+`\n$`).MatchString(got.stdout) {
		t.Errorf("version: %+v", got)
	}

	if got = run("delete", "pod", "default/huge"); got.code != exitOK || got.stdout != "Pod default/huge deleted\n" {
		t.Errorf("delete: %+v", got)
	}
	if got = run("delete", "pod", "default/huge"); got.code != exitNotFound || got.stderr != "berthctl: Pod default/huge not found\n" {
		t.Errorf("delete again: %+v", got)
	}
}
