package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/quota/admission"
)

// TestSimulateQueueing: with Kueue objects, simulate prints after the pod
// lines one line per workload, identical to kueueoracle's (the
// .oracle.jsonl files are its real output).
func TestSimulateQueueing(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "queueing", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no queueing cases: %v", err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(f, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			want := readString(t, base+".oracle.jsonl")
			got := berthctl(t, nil, "", "simulate", "-f", f)
			if got.code != exitOK || got.stdout != want {
				t.Errorf("exit %d stderr %q\n got %s\nwant %s", got.code, got.stderr, got.stdout, want)
			}
		})
	}
}

// TestSimulateServerRefusals: what simulate --server cannot do is refused,
// never dropped silently: placement-aware admission and pod groups are
// simulated offline only, and a live admission needs a berthd holding no
// node, pod or ClusterQueue (it commits real decisions).
func TestSimulateServerRefusals(t *testing.T) {
	addr, _ := startBerthd(t)
	node := filepath.Join(t.TempDir(), "node.yaml")
	writeFile(t, node, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"1\", pods: \"10\"}}\n")
	if got := berthctl(t, nil, "", "--server", addr, "apply", "-f", node); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
	}
	placement := filepath.Join(t.TempDir(), "placement.yaml")
	writeFile(t, placement, strings.ReplaceAll(readString(t, filepath.Join("testdata", "queueing-placement.yaml")), "ANNOTATION", "true"))
	for _, tc := range []struct {
		name, file, want string
	}{
		{"placement-aware admission", placement, "placement-aware admission (berth.dev/admission-placement) is simulated offline only"},
		{"pod groups", filepath.Join("testdata", "groups", "two-groups.yaml"), "pod groups (scheduling.k8s.io PodGroup) are simulated offline only"},
		{"a berthd holding a node", filepath.Join("testdata", "queueing", "preemption-within-cq.yaml"), "holds nodes, pods or ClusterQueues already"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", "--server", addr, "simulate", "-f", tc.file)
			if got.code != exitFailed || !strings.Contains(got.stderr, tc.want) || got.stdout != "" {
				t.Errorf("exit %d stdout %q stderr %q, want exit %d and %q", got.code, got.stdout, got.stderr, exitFailed, tc.want)
			}
		})
	}
}

// TestSimulateQueuedPods: a pod labelled kueue.x-k8s.io/queue-name is a
// one-pod workload; admitted, it is placed with its flavor's node labels
// and tolerations (on the tainted spot node); not admitted, it stays
// gated; an unlabelled pod is placed as before.
func TestSimulateQueuedPods(t *testing.T) {
	got := berthctl(t, nil, "", "simulate", "-f", filepath.Join("testdata", "queueing-pods.yaml"))
	if got.code != exitOK {
		t.Fatalf("exit %d stderr %q", got.code, got.stderr)
	}
	for _, want := range []string{
		`{"pod":"batch/a","result":"bound","node":"n-spot"`,
		`{"pod":"batch/b","result":"gated"`,
		`{"pod":"batch/plain","result":"bound","node":"n-ondemand"`,
		`{"workload":"batch/pod-a-7fa4d","result":"admitted","clusterQueue":"cq","flavors":{"main/cpu":"spot"},"cycle":1}`,
		`{"workload":"batch/pod-b-f4c09","result":"inadmissible","clusterQueue":"cq","cycle":2,"message":"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor spot, 1 more needed"}`,
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("missing %s in\n%s", want, got.stdout)
		}
	}
}

// TestSimulateQueuedJobs: a Job labelled with a queue name is one
// workload of its pods (suspended or not); partial admission creates only
// the admitted pods; a Job not admitted keeps its pods gated.
func TestSimulateQueuedJobs(t *testing.T) {
	got := berthctl(t, nil, "", "simulate", "-f", filepath.Join("testdata", "queueing-jobs.yaml"))
	if got.code != exitOK {
		t.Fatalf("exit %d stderr %q", got.code, got.stderr)
	}
	if n := strings.Count(got.stdout, `{"pod":"batch/train-`); n != 3 {
		t.Errorf("%d lines of train's pods, want 3 (partially admitted)", n)
	}
	if n := strings.Count(got.stdout, `"result":"bound","node":"n1"`); n != 3 {
		t.Errorf("%d pods bound, want train's 3", n)
	}
	if n := strings.Count(got.stdout, `{"pod":"batch/later-`); n != 2 || strings.Count(got.stdout, `"result":"gated"`) != 2 {
		t.Errorf("later's 2 pods are not both gated:\n%s", got.stdout)
	}
	for _, want := range []string{
		`{"workload":"batch/job-train-e5b0e","result":"admitted","clusterQueue":"cq","flavors":{"main/cpu":"a"},"counts":{"main":3},"cycle":1,"priority":500}`,
		`{"workload":"batch/job-later-576ce","result":"inadmissible","clusterQueue":"cq","cycle":2,"message":"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor a, 2 more needed"}`,
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("missing %s in\n%s", want, got.stdout)
		}
	}
}

// TestSimulateQueueingServing: a Deployment labelled with a queue name is
// a one-pod workload per replica, a StatefulSet one workload of all its
// replicas (here too big for its ClusterQueue: every replica stays
// gated), and a running labelled pod an admitted workload that holds its
// quota: the urgent pod preempts it (and it is evicted), after which one
// Deployment pod fits in what is left.
func TestSimulateQueueingServing(t *testing.T) {
	got := berthctl(t, nil, "", "simulate", "-f", filepath.Join("testdata", "queueing-serving.yaml"))
	if got.code != exitOK {
		t.Fatalf("exit %d stderr %q", got.code, got.stderr)
	}
	counts := map[string]int{
		`{"pod":"web/front-`: 3,
		`{"pod":"web/front-w4xv8hl7gn-bvkc4","result":"bound"`: 1,
		`"result":"gated"`:            5,
		`{"pod":"db/pg-`:              3,
		`{"pod":"web/old"`:            0,
		`{"workload":"web/pod-front-`: 3,
	}
	for s, n := range counts {
		if c := strings.Count(got.stdout, s); c != n {
			t.Errorf("%d lines with %s, want %d:\n%s", c, s, n, got.stdout)
		}
	}
	for _, want := range []string{
		`{"workload":"db/statefulset-pg-e3526","result":"inadmissible","clusterQueue":"db","cycle":1,"message":"couldn't assign flavors to pod set b281812b: insufficient quota for cpu in flavor a, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)"}`,
		`{"workload":"web/pod-urgent-47a86","result":"admitted","clusterQueue":"web","flavors":{"main/cpu":"a"},"cycle":2,"priority":1000,"victims":["web/pod-old-f2185"]}`,
		`{"workload":"web/pod-old-f2185","result":"preempted","clusterQueue":"web","cycle":1,`,
		`{"workload":"web/pod-front-w4xv8hl7gn-bvkc4-b6ae8","result":"admitted","clusterQueue":"web","flavors":{"main/cpu":"a"},"cycle":4}`,
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("missing %s in\n%s", want, got.stdout)
		}
	}
}

// TestSimulateQueueingPlacement: on nodes with room for three one-CPU
// pods and quota for eight, a ClusterQueue annotated for placement-aware
// admission leaves the gang of four and the two-CPU pod pending with the
// scheduler's reasons (their pods gated) and admits the pod that fits,
// with its node; Kueue's quota-only admission (the annotation "false")
// admits all three, and the scheduler then cannot place the gang's
// fourth pod, the two-CPU pod and the last one.
func TestSimulateQueueingPlacement(t *testing.T) {
	data := readString(t, filepath.Join("testdata", "queueing-placement.yaml"))
	run := func(annotation string) result {
		f := filepath.Join(t.TempDir(), "cluster.yaml")
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(data, "ANNOTATION", annotation)), 0o600); err != nil {
			t.Fatal(err)
		}
		got := berthctl(t, nil, "", "simulate", "-f", f)
		if got.code != exitOK {
			t.Fatalf("annotation %s: exit %d stderr %q", annotation, got.code, got.stderr)
		}
		return got
	}
	placed := run("true")
	for _, want := range []string{
		`{"workload":"ml/job-gang-34873","result":"inadmissible","clusterQueue":"cq","cycle":1,"message":"couldn't place the workload on the nodes: pod 4 of 4: 0/3 nodes are available: 3 Insufficient cpu.`,
		`{"workload":"ml/pod-big-8fc4e","result":"inadmissible","clusterQueue":"cq","cycle":2,"message":"couldn't place the workload on the nodes: pod 1 of 1: 0/3 nodes are available: 3 Insufficient cpu.`,
		`{"workload":"ml/pod-small-a703e","result":"admitted","clusterQueue":"cq","flavors":{"main/cpu":"a"},"cycle":3,"placement":{"pod-small-a703e-main-0":"n1"}}`,
		`{"pod":"ml/small","result":"bound","node":"n1"`,
	} {
		if !strings.Contains(placed.stdout, want) {
			t.Errorf("placement-aware: missing %s in\n%s", want, placed.stdout)
		}
	}
	if n := strings.Count(placed.stdout, `"result":"gated"`); n != 5 {
		t.Errorf("placement-aware: %d pods gated, want the gang's 4 and big", n)
	}
	if strings.Contains(placed.stdout, `"result":"unschedulable"`) {
		t.Errorf("placement-aware: an admitted pod is unplaceable:\n%s", placed.stdout)
	}
	kueue := run("false")
	if n := strings.Count(kueue.stdout, `"result":"admitted"`); n != 3 {
		t.Errorf("quota only: %d workloads admitted, want 3:\n%s", n, kueue.stdout)
	}
	if n := strings.Count(kueue.stdout, `"result":"unschedulable"`); n != 3 {
		t.Errorf("quota only: %d pods unschedulable, want 3 (the gang's fourth, big, small):\n%s", n, kueue.stdout)
	}
}

// TestSimulateQueueingProgress: --queueing-progress ends the corpus
// scenario on which Kueue preempts the same workloads until the cycle
// limit.
func TestSimulateQueueingProgress(t *testing.T) {
	f := filepath.Join("..", "..", "core", "quota", "parity", "testdata", "scenarios", "tree-220.yaml")
	kueue := berthctl(t, nil, "", "simulate", "-f", f)
	if kueue.code != exitOK || !strings.Contains(kueue.stderr, "stopped after 180 cycles") {
		t.Fatalf("default: exit %d stderr %q, want Kueue's livelock", kueue.code, kueue.stderr)
	}
	berth := berthctl(t, nil, "", "simulate", "--queueing-progress", "-f", f)
	if berth.code != exitOK || strings.Contains(berth.stderr, "stopped after") {
		t.Errorf("--queueing-progress: exit %d stderr %q", berth.code, berth.stderr)
	}
}

// TestSimulateQueueingNoThrottle: --queueing-no-throttle admits the same
// workloads on the same flavors as Kueue's cycles, in one pass.
func TestSimulateQueueingNoThrottle(t *testing.T) {
	f := filepath.Join("..", "..", "core", "quota", "admission", "testdata", "examples", "flavor-fungibility.yaml")
	kueue := berthctl(t, nil, "", "simulate", "-f", f)
	berth := berthctl(t, nil, "", "simulate", "--queueing-no-throttle", "-f", f)
	if kueue.code != exitOK || berth.code != exitOK {
		t.Fatalf("exit %d / %d, stderr %q / %q", kueue.code, berth.code, kueue.stderr, berth.stderr)
	}
	if !strings.Contains(berth.stderr, "stopped: quiet") {
		t.Errorf("--queueing-no-throttle: stderr %q, want a quiet end", berth.stderr)
	}
	admitted := func(out string) []string {
		var got []string
		for _, l := range strings.Split(out, "\n") {
			var w admission.Line
			if json.Unmarshal([]byte(l), &w) == nil && w.Result == admission.ResultAdmitted {
				got = append(got, fmt.Sprint(w.Workload, w.ClusterQueue, w.Flavors))
			}
		}
		return got
	}
	want := admitted(kueue.stdout)
	if len(want) == 0 {
		t.Fatalf("nothing admitted by Kueue's cycles:\n%s", kueue.stdout)
	}
	if d := cmp.Diff(want, admitted(berth.stdout)); d != "" {
		t.Errorf("admitted workloads differ (-cycles +no-throttle):\n%s", d)
	}
}

// TestSimulateQueuedPodGroups: a PodGroup labelled with a queue name is
// one workload of its members, a pod set per member shape, admitted
// whole: the admitted group's members are released to the scheduler,
// whose loop binds the gang; the other group's members keep Kueue's
// admission gate, and their group waits.
func TestSimulateQueuedPodGroups(t *testing.T) {
	got := berthctl(t, nil, "", "simulate", "-f", filepath.Join("testdata", "queueing-groups.yaml"))
	if got.code != exitOK {
		t.Fatalf("exit %d stderr %q", got.code, got.stderr)
	}
	for _, want := range []string{
		`{"pod":"ml/train-0","result":"bound","node":"n1","group":"ml/train"}`,
		`{"pod":"ml/eval-0","result":"gated","group":"ml/eval","message":"waiting for scheduling gates: [kueue.x-k8s.io/admission]"}`,
		`{"group":"ml/train","result":"bound","minCount":3,"members":3,"bound":3}`,
		`{"group":"ml/eval","result":"waiting","minCount":2,"members":2,"bound":0,"message":"waiting for scheduling gates: [kueue.x-k8s.io/admission]"}`,
		`{"workload":"ml/train","result":"admitted","clusterQueue":"cq","flavors":{"7061690c/cpu":"a","b281812b/cpu":"a"},"cycle":1}`,
		`{"workload":"ml/eval","result":"inadmissible","clusterQueue":"cq","cycle":2,"message":"couldn't assign flavors to pod set b281812b: insufficient unused quota for cpu in flavor a, 2 more needed"}`,
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("missing %s in\n%s", want, got.stdout)
		}
	}
}
