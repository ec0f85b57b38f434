package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

const applyManifest = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: c}]}
`

// refusePod "bad" as an invalid object.
func refuseBad(o *berthv1.Object) *berthv1.ObjectError {
	if o.GetPod().GetName() != "bad" {
		return nil
	}
	return &berthv1.ObjectError{Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "pod.containers[0].requests[cpu]", Message: "must not be negative"}
}

func TestApply(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.yaml")
	good := strings.Join(strings.Split(applyManifest, "---\n")[:3], "---\n")
	for _, tc := range []struct {
		name     string
		manifest string
		args     []string
		code     int
		stdout   string
		stderr   string
		// requests are the Sync requests: their markers and object names.
		requests []string
	}{
		{
			name: "all applied, in batches", manifest: good, args: []string{"--batch-size", "2"},
			stdout:   "3 applied\n",
			requests: []string{"1 : high n1", "2 : web"},
		},
		{
			name: "one refused", manifest: applyManifest,
			code:     exitFailed,
			stdout:   "3 applied, 1 refused\n",
			stderr:   "berthctl: FILE: document 4: Pod default/bad refused: pod.containers[0].requests[cpu]: must not be negative (INVALID_ARGUMENT)\nberthctl: 1 of 4 objects refused\n",
			requests: []string{"1 : high n1 web bad"},
		},
		{
			name: "skipped documents and the scheduler configuration are reported",
			manifest: good + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\n" +
				"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
			stdout: "3 applied\n",
			stderr: "berthctl: ignored: FILE: document 4 (ConfigMap default/settings): does not affect scheduling\n" +
				"berthctl: not sent: FILE: document 5 (KubeSchedulerConfiguration): berthd takes its scheduler configuration from --scheduler-config at start\n",
			requests: []string{"1 : high n1 web"},
		},
		{
			name: "prune", manifest: good, args: []string{"--prune"},
			stdout: "5 applied, 2 pruned\n",
			// The implied namespaces are part of a full re-list.
			requests: []string{"1 RESYNC_BEGIN: default shop high n1 web", "2 RESYNC_END:"},
		},
		{
			name: "prune abandoned", manifest: applyManifest, args: []string{"--prune"},
			code:     exitFailed,
			stdout:   "5 applied, 1 refused, nothing pruned (the re-list was abandoned)\n",
			stderr:   "berthctl: FILE: document 4: Pod default/bad refused: pod.containers[0].requests[cpu]: must not be negative (INVALID_ARGUMENT)\nberthctl: 1 of 6 objects refused\n",
			requests: []string{"1 RESYNC_BEGIN: default shop high n1 web bad"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, file, tc.manifest)
			f := &fakeBerthd{refuse: refuseBad}
			addr := f.start(t)
			got := berthctl(t, nil, "", append([]string{"--server", addr, "apply", "-f", file}, tc.args...)...)
			want := result{code: tc.code, stdout: tc.stdout, stderr: strings.ReplaceAll(tc.stderr, "FILE", file)}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("berthctl apply (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.requests, summarizeSync(f.syncReqs)); diff != "" {
				t.Errorf("Sync requests (-want +got):\n%s", diff)
			}
		})
	}
}

// summarizeSync writes each request as "batch MARKER: names".
func summarizeSync(reqs []*berthv1.SyncRequest) []string {
	var out []string
	for _, r := range reqs {
		marker := ""
		if r.GetResync() != berthv1.Resync_RESYNC_UNSPECIFIED {
			marker = r.GetResync().String()
		}
		s := fmt.Sprintf("%d %s:", r.GetBatchId(), marker)
		for _, m := range r.GetMutations() {
			o := m.GetUpsert()
			s += " " + o.GetNode().GetName() + o.GetPod().GetName() + o.GetPriorityClass().GetName() + o.GetNamespace().GetName() + o.GetPodDisruptionBudget().GetName()
		}
		out = append(out, s)
	}
	return out
}

func TestDelete(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.yaml")
	writeFile(t, file, applyManifest)
	for _, tc := range []struct {
		name string
		args []string
		held []string
		want result
		refs []string
	}{
		{
			name: "pod by name", args: []string{"pod", "shop/web"}, held: []string{"Pod shop/web"},
			want: result{stdout: "Pod shop/web deleted\n"},
			refs: []string{"OBJECT_KIND_POD shop/web"},
		},
		{
			name: "pod in default, not found: one line", args: []string{"pod", "web"},
			want: result{code: exitNotFound, stderr: "berthctl: Pod default/web not found\n"},
			refs: []string{"OBJECT_KIND_POD default/web"},
		},
		{
			name: "node, not found ignored", args: []string{"node", "n9", "--ignore-not-found"},
			want: result{stdout: "Node n9 not found (ignored)\n"},
			refs: []string{"OBJECT_KIND_NODE /n9"},
		},
		{
			name: "device taint rule by name", args: []string{"devicetaintrule", "drain-gpu-0"}, held: []string{"DeviceTaintRule drain-gpu-0"},
			want: result{stdout: "DeviceTaintRule drain-gpu-0 deleted\n"},
			refs: []string{"OBJECT_KIND_DEVICE_TAINT_RULE /drain-gpu-0"},
		},
		{
			name: "device taint rules, several, one missing", args: []string{"devicetaintrules", "r1", "r2"}, held: []string{"DeviceTaintRule r1"},
			want: result{code: exitNotFound, stdout: "1 deleted, 1 not found\n", stderr: "berthctl: DeviceTaintRule r2 not deleted: not held (NOT_FOUND)\nberthctl: 1 of 2 objects not found\n"},
			refs: []string{"OBJECT_KIND_DEVICE_TAINT_RULE /r1", "OBJECT_KIND_DEVICE_TAINT_RULE /r2"},
		},
		{
			name: "several pods by name", args: []string{"pod", "shop/web", "bad"}, held: []string{"Pod shop/web", "Pod default/bad"},
			want: result{stdout: "2 deleted\n"},
			refs: []string{"OBJECT_KIND_POD shop/web", "OBJECT_KIND_POD default/bad"},
		},
		{
			name: "pod refused otherwise: one line", args: []string{"pod", "shop/locked"},
			want: result{code: exitFailed, stderr: "berthctl: Pod shop/locked not deleted: uid: the held pod has another uid (FAILED_PRECONDITION)\n"},
			refs: []string{"OBJECT_KIND_POD shop/locked"},
		},
		{
			name: "by manifest, dependents first", args: []string{"-f", file}, held: []string{"Pod shop/web", "Pod default/bad", "Node n1", "PriorityClass high"},
			want: result{stdout: "4 deleted\n"},
			refs: []string{"OBJECT_KIND_POD default/bad", "OBJECT_KIND_POD shop/web", "OBJECT_KIND_NODE /n1", "OBJECT_KIND_PRIORITY_CLASS /high"},
		},
		{
			name: "by manifest, some missing", args: []string{"-f", file}, held: []string{"Pod shop/web", "Pod default/bad", "Node n1"},
			want: result{code: exitNotFound, stdout: "3 deleted, 1 not found\n", stderr: "berthctl: FILE: document 1: PriorityClass high not deleted: not held (NOT_FOUND)\nberthctl: 1 of 4 objects not found\n"},
			refs: []string{"OBJECT_KIND_POD default/bad", "OBJECT_KIND_POD shop/web", "OBJECT_KIND_NODE /n1", "OBJECT_KIND_PRIORITY_CLASS /high"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBerthd{held: map[string]bool{}}
			for _, h := range tc.held {
				f.held[h] = true
			}
			addr := f.start(t)
			got := berthctl(t, nil, "", append([]string{"--server", addr, "delete"}, tc.args...)...)
			tc.want.stderr = strings.ReplaceAll(tc.want.stderr, "FILE", file)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("berthctl delete (-want +got):\n%s", diff)
			}
			var refs []string
			for _, d := range f.deletes {
				for _, r := range d.GetRefs() {
					if r.GetUid() != "" {
						t.Errorf("ref %v carries a uid", r)
					}
					refs = append(refs, r.GetKind().String()+" "+r.GetNamespace()+"/"+r.GetName())
				}
			}
			if diff := cmp.Diff(tc.refs, refs); diff != "" {
				t.Errorf("deleted refs (-want +got):\n%s", diff)
			}
		})
	}
}

func decision(rev uint64, pod string) *berthv1.Decision {
	ns, name, _ := strings.Cut(pod, "/")
	return &berthv1.Decision{Revision: rev, SchedulerName: "default-scheduler", Pod: &berthv1.PodRef{Namespace: ns, Name: name}}
}

func watchStream() []*berthv1.WatchResponse {
	bind := decision(5, "default/web")
	bind.Action = &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1"}}
	evict := decision(6, "default/low")
	evict.Action = &berthv1.Decision_Evict{Evict: &berthv1.Evict{Victim: evict.Pod, Node: "n2", Preemptor: &berthv1.PodRef{Namespace: "default", Name: "high"}, Reason: "preempted"}}
	nominate := decision(7, "default/high")
	nominate.Action = &berthv1.Decision_Nominate{Nominate: &berthv1.Nominate{Node: "n2"}}
	clear := decision(8, "default/mid")
	clear.Action = &berthv1.Decision_ClearNomination{ClearNomination: &berthv1.ClearNomination{PreviousNode: "n2", Reason: "a higher priority pod took the room"}}
	unsched := decision(9, "default/big")
	unsched.Action = &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{Message: "0/2 nodes are available: 2 Insufficient cpu."}}
	gpu := &berthv1.AllocationResult{Devices: []*berthv1.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}}
	gpuBind := decision(10, "default/train")
	gpuBind.Action = &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1", Claims: []*berthv1.ClaimAllocation{{Namespace: "default", Name: "train-gpu-x", Allocation: gpu}}}}
	dealloc := decision(11, "default/train")
	dealloc.Action = &berthv1.Decision_DeallocateClaim{DeallocateClaim: &berthv1.DeallocateClaim{Namespace: "default", Name: "train-gpu-x", Allocation: gpu, Reason: "the last pod using the claim is gone"}}
	apiEvict := decision(12, "default/api")
	apiEvict.Action = &berthv1.Decision_Evict{Evict: &berthv1.Evict{Victim: apiEvict.Pod, Node: "n1", Cause: berthv1.EvictCause_EVICT_CAUSE_API, Reason: "Eviction API"}}
	pressureEvict := decision(13, "default/hog")
	pressureEvict.Action = &berthv1.Decision_Evict{Evict: &berthv1.Evict{Victim: pressureEvict.Pod, Node: "n2", Cause: berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE, Reason: "The node was low on resource: memory."}}
	defragEvict := decision(14, "default/small")
	defragEvict.Action = &berthv1.Decision_Evict{Evict: &berthv1.Evict{Victim: defragEvict.Pod, Node: "n1", Cause: berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT,
		Reason: "Defragmented for pod default/big (planned on n1): moved off n1; Berth's scheduler re-places it on n2"}}
	quotaEvict := decision(15, "team-a/small")
	quotaEvict.Action = &berthv1.Decision_Evict{Evict: &berthv1.Evict{Victim: quotaEvict.Pod, Node: "n1", Cause: berthv1.EvictCause_EVICT_CAUSE_QUOTA, Reason: "Preempted by workload team-b/pod-big-1a2b3 (InCohortReclamation)"}}
	admit := &berthv1.Decision{Revision: 16, SchedulerName: "default-scheduler", Action: &berthv1.Decision_Admit{Admit: &berthv1.Admit{
		WorkloadNamespace: "team-b", WorkloadName: "pod-big-1a2b3", WorkloadUid: "u1", ClusterQueue: "cq-b",
		PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"memory": "default", "cpu": "default"}}},
	}}}
	evictWorkload := &berthv1.Decision{Revision: 17, SchedulerName: "default-scheduler", Action: &berthv1.Decision_EvictWorkload{EvictWorkload: &berthv1.WorkloadEviction{
		WorkloadNamespace: "team-a", WorkloadName: "pod-small-9f8e7", ClusterQueue: "cq-a", Reason: "InCohortReclamation",
		PreemptedBy: "team-b/pod-big-1a2b3", Message: "Preempted to accommodate a workload due to reclamation within the cohort",
	}}}
	return []*berthv1.WatchResponse{
		{Decisions: []*berthv1.Decision{bind, evict}, NextRevision: 7},
		{NextRevision: 7}, // progress only
		{Decisions: []*berthv1.Decision{nominate, clear, unsched, gpuBind, dealloc, apiEvict, pressureEvict, defragEvict, quotaEvict, admit, evictWorkload}, NextRevision: 18},
	}
}

// firesAfter is an idle timer that fires once it has been reset n times,
// i.e. after the n-th response carrying decisions was printed.
type firesAfter struct {
	n int
	c chan time.Time
}

func (f *firesAfter) C() <-chan time.Time { return f.c }
func (f *firesAfter) Reset(time.Duration) {
	if f.n--; f.n == 0 {
		f.c <- t0
	}
}
func (f *firesAfter) Stop() {}

func TestWatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{
			name: "json", args: []string{"-o", "json", "--from-revision", "5"},
			want: `{"revision":5,"type":"bind","pod":"default/web","node":"n1"}
{"revision":6,"type":"evict","pod":"default/low","node":"n2","preemptor":"default/high","reason":"preempted"}
{"revision":7,"type":"nominate","pod":"default/high","node":"n2"}
{"revision":8,"type":"clear_nomination","pod":"default/mid","node":"n2","reason":"a higher priority pod took the room"}
{"revision":9,"type":"unschedulable","pod":"default/big","message":"0/2 nodes are available: 2 Insufficient cpu."}
{"revision":10,"type":"bind","pod":"default/train","node":"n1","claims":[{"claim":"default/train-gpu-x","devices":["gpu.example.com/n1/gpu-0"]}]}
{"revision":11,"type":"deallocate_claim","pod":"default/train","reason":"the last pod using the claim is gone","claims":[{"claim":"default/train-gpu-x","devices":["gpu.example.com/n1/gpu-0"]}]}
{"revision":12,"type":"evict","pod":"default/api","node":"n1","cause":"api","reason":"Eviction API"}
{"revision":13,"type":"evict","pod":"default/hog","node":"n2","cause":"node_pressure","reason":"The node was low on resource: memory."}
{"revision":14,"type":"evict","pod":"default/small","node":"n1","cause":"defragment","reason":"Defragmented for pod default/big (planned on n1): moved off n1; Berth's scheduler re-places it on n2"}
{"revision":15,"type":"evict","pod":"team-a/small","node":"n1","cause":"quota","reason":"Preempted by workload team-b/pod-big-1a2b3 (InCohortReclamation)"}
{"revision":16,"type":"admit","workload":"team-b/pod-big-1a2b3","clusterQueue":"cq-b","podSets":[{"name":"main","count":1,"flavors":{"cpu":"default","memory":"default"}}]}
{"revision":17,"type":"evict_workload","preemptor":"team-b/pod-big-1a2b3","reason":"InCohortReclamation","message":"Preempted to accommodate a workload due to reclamation within the cohort","workload":"team-a/pod-small-9f8e7","clusterQueue":"cq-a"}
`,
		},
		{
			name: "text", args: []string{"--from-revision", "5"},
			want: `5 bind default/web -> n1
6 evict default/low from n2 for default/high: preempted
7 nominate default/high -> n2
8 clear_nomination default/mid (was n2): a higher priority pod took the room
9 unschedulable default/big: 0/2 nodes are available: 2 Insufficient cpu.
10 bind default/train -> n1 [default/train-gpu-x: gpu.example.com/n1/gpu-0]
11 deallocate_claim default/train [default/train-gpu-x: gpu.example.com/n1/gpu-0]: the last pod using the claim is gone
12 evict default/api from n1 (eviction API): Eviction API
13 evict default/hog from n2 (node pressure): The node was low on resource: memory.
14 evict default/small from n1 (defragmented): Defragmented for pod default/big (planned on n1): moved off n1; Berth's scheduler re-places it on n2
15 evict team-a/small from n1 (Kueue preemption): Preempted by workload team-b/pod-big-1a2b3 (InCohortReclamation)
16 admit team-b/pod-big-1a2b3 to cq-b [main: cpu=default, memory=default]
17 evict_workload team-a/pod-small-9f8e7 from cq-a for team-b/pod-big-1a2b3 (InCohortReclamation): Preempted to accommodate a workload due to reclamation within the cohort
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBerthd{watch: watchStream()}
			addr := f.start(t)
			a := &app{newTimer: func(time.Duration) idleTimer { return &firesAfter{n: 2, c: make(chan time.Time, 1)} }}
			got := berthctl(t, a, "", append([]string{"--server", addr, "watch", "--idle-timeout", "1s", "--scheduler-name", "default-scheduler"}, tc.args...)...)
			if diff := cmp.Diff(result{stdout: tc.want}, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("berthctl watch (-want +got):\n%s", diff)
			}
			if f.watchReq.GetFromRevision() != 5 || f.watchReq.GetSchedulerName() != "default-scheduler" {
				t.Errorf("Watch request %v", f.watchReq)
			}
		})
	}
}

// A watch from a revision the log no longer has, or never had, fails with
// what to do next.
func TestWatchOutOfRange(t *testing.T) {
	tests := []struct {
		name string
		fake *fakeBerthd
		from string
		want string
	}{
		{"compacted", &fakeBerthd{compactedBelow: 40}, "3",
			"berthctl: decisions before revision 40 were compacted away; watch again with --from-revision 40, the oldest kept " +
				"(--from-revision 0 shows only decisions made from now on, skipping those kept), and check binds still waiting with 'berthctl get pending'\n"},
		// The probe from 1 is answered at once, as a log holding decisions answers.
		{"beyond the log", &fakeBerthd{nextRevision: 14, watch: watchStream()[:1]}, "99999",
			"berthctl: the revision asked for is beyond the end of this berthd's log (its next revision is 14): it came from another log; " +
				"watch again with --from-revision 1, the oldest this log keeps (--from-revision 0 shows only decisions made from now on, skipping those kept)\n"},
		{"beyond a compacted log", &fakeBerthd{nextRevision: 14, compactedBelow: 9}, "99999",
			"berthctl: the revision asked for is beyond the end of this berthd's log (its next revision is 14): it came from another log; " +
				"watch again with --from-revision 9, the oldest this log keeps (--from-revision 0 shows only decisions made from now on, skipping those kept)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.fake.start(t)
			got := berthctl(t, nil, "", "--server", addr, "watch", "--from-revision", tc.from)
			want := result{code: exitFailed, stderr: tc.want}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	got := berthctl(t, nil, "", "--server", addr, "explain", "shop/web")
	want := `Pod:            shop/web
UID:            u-web
Scheduler:      default-scheduler
Priority:       100
Queue:          backoff
Attempts:       3
Enqueued:       2024-05-01T11:59:00Z
Last attempt:   2024-05-01T12:00:00Z
Next retry:     after the backoff, at 2024-05-01T12:00:04Z
Nominated node: n2
Rejected by:    NodeResourcesFit, TaintToleration
Requests:       cpu 2.5, memory 1.5Gi, pods 1

Last diagnosis:
  0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {gpu: true}.

  NODE  REASONS                                    PREEMPTION
  n1    node(s) had untolerated taint {gpu: true}  cannot help
  n2    Insufficient cpu                           may help

Resources short, as the nodes are now:

  NODE  RESOURCE  REQUESTED  FREE  ALLOCATABLE
  n2    cpu       2.5        0.5   4
`
	if diff := cmp.Diff(result{stdout: want}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "-o", "json", "shop/web")
	if got.code != exitOK || !strings.Contains(got.stdout, `"nominated_node": "n2"`) {
		t.Errorf("json: %+v", got)
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "ghost")
	if diff := cmp.Diff(result{code: exitNotFound, stderr: "berthctl: pod default/ghost not found\n"}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("not found (-want +got):\n%s", diff)
	}
}

func TestGet(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	a := func() *app { return &app{now: func() time.Time { return t0 }} }
	for _, tc := range []struct {
		args []string
		want result
	}{
		{[]string{"get", "pending"}, result{stdout: `NAMESPACE  NAME  STATE    PRIORITY  ATTEMPTS  AGE  NOMINATED  NODE  SCHEDULER
default    a     active   0         1         90s  -          -     default-scheduler
default    b     binding  10        1         90s  -          n1    default-scheduler
`, stderr: bindingNote + "\n"}},
		// get pods is its own listing: bound pods too, with their state.
		{[]string{"get", "pods"}, result{stdout: `NAMESPACE  NAME  STATE    NODE  PRIORITY  ATTEMPTS  AGE  NOMINATED  SCHEDULER
default    a     active   -     0         1         90s  -          default-scheduler
default    b     binding  n1    0         0         -    -          default-scheduler
shop       web   bound    n2    0         0         -    -          default-scheduler
`, stderr: bindingNote + "\n"}},
		{[]string{"get", "pods", "--state", "bound", "-n", "shop"}, result{stdout: `NAMESPACE  NAME  STATE  NODE  PRIORITY  ATTEMPTS  AGE  NOMINATED  SCHEDULER
shop       web   bound  n2    0         0         -    -          default-scheduler
`}},
		{[]string{"get", "pods", "--state", "lost"}, result{code: exitUsage, stderr: "berthctl: --state \"lost\": want one of active, backoff, unschedulable, gated, scheduling, binding, ignored, bound\nRun 'berthctl get --help' for usage.\n"}},
		{[]string{"get", "nominations"}, result{stdout: `NAMESPACE  NAME  NODE  PRIORITY  REVISION  RESTORED
default    high  n2    1000      12        no
default    old   n1    -         -         yes
`}},
		{[]string{"get", "nodes"}, result{stdout: `NAME  STATUS                    CPU(cores)  CPU%  MEMORY     MEMORY%  PODS   PODS%  NOMINATED  TAINTS                                        DERIVED TAINTS
n1    Ready                     1.5/4       37%   1.5Gi/8Gi  18%      3/110  2%     1          -                                             -
n2    Ready,SchedulingDisabled  0/0.5       0%    0/512Mi    0%       0/0    -      0          gpu=true:NoSchedule,maintenance:NoExecute,+1  -
`}},
		{[]string{"get", "pending", "--state", "active"}, result{stdout: `NAMESPACE  NAME  STATE   PRIORITY  ATTEMPTS  AGE  NOMINATED  NODE  SCHEDULER
default    a     active  0         1         90s  -          -     default-scheduler
`}},
		{[]string{"get", "pending", "--state", "bound"}, result{code: exitUsage, stderr: "berthctl: --state \"bound\": want one of active, backoff, unschedulable, gated, scheduling, binding, ignored\nRun 'berthctl get --help' for usage.\n"}},
		{[]string{"get", "queue"}, result{stdout: `STATE          PODS
active         1
backoff        2
unschedulable  3
gated          0
scheduling     0
binding        0
bound          40
ignored        0

ATTEMPTS       COUNT
scheduled      40
unschedulable  9
error          0
`}},
		{[]string{"get", "widgets"}, result{code: exitUsage, stderr: "berthctl: get: unknown resource \"widgets\": use pods, pending, nominations, queue, nodes, claims, deviceclasses, resourceslices, devicetaintrules, pv, pvc, storageclasses, csinodes, csidrivers, csistoragecapacities, resourceflavors, clusterqueues, cohorts, localqueues, workloadpriorityclasses or workloads\nRun 'berthctl get --help' for usage.\n"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := berthctl(t, a(), "", append([]string{"--server", addr}, tc.args...)...)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got := berthctl(t, a(), "", "--server", addr, "get", "pending", "-o", "json")
	if got.code != exitOK || strings.Count(got.stdout, `"scheduler_name"`) != 2 || !strings.Contains(got.stdout, `"next_page_token": ""`) {
		t.Errorf("json (both pages merged): %+v", got)
	}
	got = berthctl(t, a(), "", "--server", addr, "get", "nodes", "-l", "zone=a", "-o", "json")
	var nodes struct {
		Nodes []struct {
			Name      string           `json:"name"`
			Requested map[string]int64 `json:"requested"`
			Taints    []any            `json:"taints"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &nodes); err != nil || len(nodes.Nodes) != 2 || nodes.Nodes[1].Name != "n2" ||
		nodes.Nodes[0].Requested["memory"] != 3<<29 || nodes.Nodes[0].Taints == nil {
		t.Errorf("get nodes -o json: %v %+v", err, got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.nodeReqs) == 0 || !cmp.Equal(f.nodeReqs[len(f.nodeReqs)-1].GetMatchLabels(), map[string]string{"zone": "a"}) {
		t.Errorf("ListNodes requests: %v", f.nodeReqs)
	}
}

func TestTokenAndErrors(t *testing.T) {
	f := &fakeBerthd{token: "s3cret"}
	addr := f.start(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "s3cret\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"token", []string{"--token", "s3cret", "get", "queue"}, exitOK, ""},
		{"token file", []string{"--token-file", tokenFile, "get", "queue"}, exitOK, ""},
		{"no token", []string{"get", "queue"}, exitUnauthorized, "berthctl: berthd at " + addr + " refused the credentials (see --token, --token-file): missing or invalid bearer token\n"},
		{"both", []string{"--token", "x", "--token-file", tokenFile, "get", "queue"}, exitUsage, "berthctl: --token and --token-file are exclusive\n"},
		{"half a key pair", []string{"--tls-cert", tokenFile, "get", "queue"}, exitUsage, "berthctl: --tls-cert and --tls-key go together\n"},
		{"bad duration", []string{"--timeout", "soon", "get", "queue"}, exitUsage, `invalid argument "soon" for "--timeout" flag`},
		{"unreachable", []string{"--server", "127.0.0.1:1", "get", "queue"}, exitUnavailable, "berthctl: cannot reach berthd at 127.0.0.1:1: "},
		{"bad pod name", []string{"explain", "a/b/c"}, exitUsage, `berthctl: "a/b/c" is not NAMESPACE/NAME`},
		{"bad kind", []string{"delete", "service", "x"}, exitUsage, `berthctl: unknown kind "service"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", append([]string{"--server", addr}, tc.args...)...)
			if got.code != tc.code || !strings.Contains(got.stderr, tc.want) || (tc.want == "" && got.stderr != "") {
				t.Errorf("exit %d stderr %q; want exit %d, stderr with %q", got.code, got.stderr, tc.code, tc.want)
			}
		})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.auth) == 0 || f.auth[0] != "Bearer s3cret" {
		t.Errorf("authorization metadata %q", f.auth)
	}
}

func TestServerFromEnvironment(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	a := &app{}
	var out strings.Builder
	a.streams = streams{in: strings.NewReader(""), out: &out, err: &out}
	code := a.run(t.Context(), []string{"get", "nominations"}, func(k string) string {
		if k == serverEnv {
			return addr
		}
		return ""
	})
	if code != exitOK || !strings.Contains(out.String(), "high") {
		t.Errorf("exit %d output %q", code, out.String())
	}
}

// explain prints the device reasons node by node, one line per claim or
// request, and -o json carries them.
func TestExplainDevices(t *testing.T) {
	const inUse = "claim default/train, request g: the devices matching it are in use"
	f := &fakeBerthd{explain: map[string]*berthv1.ExplainResponse{"train": {
		Pod:              &berthv1.PodRef{Namespace: "default", Name: "train", Uid: "u-train"},
		SchedulerName:    "default-scheduler",
		State:            berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE,
		Attempts:         1,
		RejectingPlugins: []string{"DynamicResources"},
		LastAttemptTime:  timestamppb.New(t0),
		EnqueuedTime:     timestamppb.New(t0),
		LastDiagnosis: &berthv1.Unschedulable{
			Message: "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
			NodeReasons: []*berthv1.NodeReasons{
				{Node: "n1", Reasons: []string{"cannot allocate all claims"}, Unresolvable: true},
				{Node: "n2", Reasons: []string{"cannot allocate all claims"}, Unresolvable: true},
			},
		},
		DeviceReasons: []*berthv1.NodeDeviceReasons{
			{Node: "n1", Reasons: []string{inUse, "claim default/nic, request n: not enough devices on the node match it"}},
			{Node: "n2", Reasons: []string{inUse}},
		},
	}}}
	addr := f.start(t)
	got := berthctl(t, nil, "", "--server", addr, "explain", "train")
	want := `Pod:            default/train
UID:            u-train
Scheduler:      default-scheduler
Priority:       0
Queue:          unschedulable
Attempts:       1
Enqueued:       2024-05-01T12:00:00Z
Last attempt:   2024-05-01T12:00:00Z
Next retry:     when a cluster change may help it, or once it has waited the maximum unschedulable time
Nominated node: -
Rejected by:    DynamicResources

Last diagnosis:
  0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.

  NODE  REASONS                     PREEMPTION
  n1    cannot allocate all claims  cannot help
  n2    cannot allocate all claims  cannot help

Devices, as they are now:

  NODE  WHY THE CLAIMS CANNOT BE ALLOCATED
  n1    claim default/train, request g: the devices matching it are in use
        claim default/nic, request n: not enough devices on the node match it
  n2    claim default/train, request g: the devices matching it are in use
`
	if diff := cmp.Diff(result{stdout: want}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "-o", "json", "train")
	var ex struct {
		DeviceReasons []struct {
			Node    string   `json:"node"`
			Reasons []string `json:"reasons"`
		} `json:"device_reasons"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &ex); err != nil || len(ex.DeviceReasons) != 2 ||
		ex.DeviceReasons[1].Node != "n2" || ex.DeviceReasons[1].Reasons[0] != inUse {
		t.Errorf("json: %v\n%s", err, got.stdout)
	}
}
