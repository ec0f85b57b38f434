package main

import (
	"bytes"
	"strings"
	"testing"
)

func small(k int, mode Mode, check Check) Params {
	return Params{Nodes: 2000, Pods: 4000, Schedulers: k, Mode: mode, Check: check, NodeCPU: 32, PodCPU: []int{1, 2, 4},
		CycleFixed: 25e-6, PerNodeVisited: 175e-9, CommitLatency: 2e-3, WatchDelay: 1e-3, Seed: 7}
}

func mustRun(t *testing.T, p Params) Result {
	t.Helper()
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOneSchedulerHasNoConflictsAndRunsAtItsCycleRate(t *testing.T) {
	p := small(1, Optimistic, CheckVersion)
	r := mustRun(t, p)
	if r.Conflicts != 0 || r.Spills != 0 || r.Unplaceable != 0 || r.Bound != p.Pods {
		t.Fatalf("one scheduler: %+v", r)
	}
	cycle := p.CycleFixed + p.PerNodeVisited*float64(visited(p.Nodes))
	want := float64(p.Pods) / (float64(p.Pods)*cycle + p.CommitLatency)
	if d := r.PodsPerSec/want - 1; d > 0.001 || d < -0.001 {
		t.Errorf("pods/s %.1f, want %.1f (one pod per cycle)", r.PodsPerSec, want)
	}
}

func TestPartitionsScaleAndNeverConflict(t *testing.T) {
	one := mustRun(t, small(1, Optimistic, CheckVersion))
	four := mustRun(t, small(4, Partitioned, CheckVersion))
	if four.Conflicts != 0 || four.Bound != four.Pods {
		t.Fatalf("four partitions: %+v", four)
	}
	// Four leaders, each over a quarter of the nodes: more than four
	// times one's rate below kube's 5% floor share.
	if four.PodsPerSec < 4*one.PodsPerSec {
		t.Errorf("four partitions %.0f pods/s, one leader %.0f", four.PodsPerSec, one.PodsPerSec)
	}
	if four.NodesPerView != 500 {
		t.Errorf("view of %d nodes, want 500", four.NodesPerView)
	}
}

func TestVersionChecksConflictMoreThanFitChecks(t *testing.T) {
	version := mustRun(t, small(4, Optimistic, CheckVersion))
	fit := mustRun(t, small(4, Optimistic, CheckFit))
	if version.Conflicts == 0 {
		t.Fatal("four optimistic schedulers over one view never conflicted on versions")
	}
	if fit.Conflicts >= version.Conflicts {
		t.Errorf("fit checks %d conflicts, version checks %d", fit.Conflicts, version.Conflicts)
	}
	for _, r := range []Result{version, fit} {
		if r.Bound != r.Pods {
			t.Errorf("%s: bound %d of %d", r.Check, r.Bound, r.Pods)
		}
	}
}

func TestAFullClusterLeavesPodsUnplaceable(t *testing.T) {
	for _, p := range []Params{small(1, Optimistic, CheckVersion), small(4, Optimistic, CheckFit), small(4, Partitioned, "")} {
		p.Nodes, p.Pods, p.PodCPU = 10, 100, []int{8} // room for 40
		r := mustRun(t, p)
		if r.Bound != 40 || r.Unplaceable != 60 {
			t.Errorf("%s/%s: bound %d, unplaceable %d; want 40 and 60", p.Mode, p.Check, r.Bound, r.Unplaceable)
		}
	}
}

func TestVisitedIsKubesAdaptiveShare(t *testing.T) {
	for _, tt := range []struct{ nodes, want int }{{50, 50}, {100, 100}, {1000, 420}, {5000, 500}, {6000, 300}, {100000, 5000}} {
		if got := visited(tt.nodes); got != tt.want {
			t.Errorf("visited(%d) = %d, want %d", tt.nodes, got, tt.want)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--schedulers", "0"}, "schedulers must be between"},
		{[]string{"--mode", "sharded"}, `mode must be "optimistic" or "partitioned"`},
		{[]string{"--check", "lease"}, `check must be "version" or "fit"`},
		{[]string{"--pod-cpu", "1,x"}, `--pod-cpu: "x" is not a whole number`},
		{[]string{"--pod-cpu", "0"}, "pod cpu must be positive"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		var out bytes.Buffer
		err := run(append([]string{"--nodes", "100", "--pods", "10"}, tt.args...), &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.want)
		}
	}
}
