package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/podbook"
)

// evict, cordon, uncordon and drain against a real berthd: a budget
// allowing one disruption among three web pods, a pod under no budget, a
// DaemonSet-looking pod and one a DaemonSet owns on n1, and a web pod
// binding to n1 (its Bind not confirmed: drain neither listed nor evicted
// it before).
func TestEvictAndDrainAgainstBerthd(t *testing.T) {
	addr, d := startBerthd(t)
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	pod := func(name, labels, extra string) string {
		return `---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, labels: {` + labels + `}}
spec: {nodeName: n1, containers: [{name: c}]` + extra + `}
`
	}
	writeFile(t, file, `apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "8", memory: 4Gi, pods: "10"}
  images: [{names: ["docker.io/library/nginx:1.27"], sizeBytes: 72000000}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
`+pod("web-0", "app: web", "")+pod("web-1", "app: web", "")+pod("web-2", "app: web", "")+pod("solo", "", "")+
		pod("agent", "app: agent", ", tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]")+`---
apiVersion: v1
kind: Pod
metadata:
  name: logs
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: logs, uid: ds-1, controller: true}]
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: late, labels: {app: web}}
spec: {containers: [{name: c}]}
`)
	if got := berthctl(t, nil, "", "--server", addr, "apply", "-f", file); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
	}
	// No orchestrator confirms binds here: late stays binding to n1.
	late := func() *model.Pod {
		p, ok := d.Scheduler().View().Find("default", "late")
		if !ok {
			t.Fatal("berthd lost pod late")
		}
		return p
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r, ok := d.Book().Outstanding(podbook.KindBind, late().UID); ok && r.Revision > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("late was not bound to n1")
		}
		time.Sleep(10 * time.Millisecond)
	}
	run := func(args ...string) result {
		return berthctl(t, nil, "", append([]string{"--server", addr}, args...)...)
	}
	if got := run("evict", "solo", "--dry-run"); got.code != exitOK || got.stdout != "pod default/solo would be evicted (dry run)\n" {
		t.Errorf("evict --dry-run: %+v", got)
	}
	if got := run("evict", "default/web-0", "--grace-period", "5"); got.code != exitOK || !strings.Contains(got.stdout, "pod default/web-0 evicted (revision ") || !strings.Contains(got.stdout, "disruption budget default/web allowed 1") {
		t.Errorf("evict web-0: %+v", got)
	}
	if got := run("explain", "default/web-0"); got.code != exitOK || !strings.Contains(got.stdout, "Evicted:        eviction API on n1, grace period 5s: Eviction API: evicting (disruption budget default/web) (terminating until the orchestrator deletes it)") {
		t.Errorf("explain web-0: %+v", got)
	}
	if got := run("evict", "default/web-1"); got.code != exitBudget || !strings.Contains(got.stderr, "disruption budget default/web allows no disruption now") {
		t.Errorf("evict web-1: %+v", got)
	}
	if got := run("evict", "default/nobody"); got.code != exitNotFound {
		t.Errorf("evict nobody: %+v", got)
	}
	dry := run("drain", "n1", "--dry-run", "--ignore-daemonsets", "--timeout", "1500ms")
	for _, want := range []string{"pod default/late is binding to n1: would be evicted (dry run)\n", "pod default/solo would be evicted (dry run)\n"} {
		if !strings.Contains(dry.stdout, want) {
			t.Errorf("drain --dry-run output lacks %q: %+v", want, dry)
		}
	}
	if late().Terminating {
		t.Error("drain --dry-run evicted late")
	}
	if got := run("drain", "n1", "--timeout", "1500ms"); got.code != exitFailed || !strings.Contains(got.stderr, "DaemonSet pods ([default/agent default/logs])") {
		t.Errorf("drain without --ignore-daemonsets: %+v", got)
	}
	got := run("drain", "n1", "--timeout", "1500ms", "--ignore-daemonsets")
	for _, want := range []string{
		"node n1 already cordoned", "pod default/agent ignored (DaemonSet)", "pod default/logs ignored (DaemonSet)", "pod default/web-0 is being deleted already",
		"pod default/solo evicted", "pod default/web-1 refused by its disruption budget; retrying in 1s",
		// Binding, so not running: its budget is not charged.
		"pod default/late is binding to n1: evicted (revision ",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("drain output lacks %q: %+v", want, got)
		}
	}
	if got.code != exitBudget {
		t.Errorf("drain exit %d, want %d (budget): %+v", got.code, exitBudget, got)
	}
	if !late().Terminating {
		t.Errorf("drain left late binding to n1: %+v", late())
	}
	evict, ok := d.Book().Eviction(late().UID)
	if !ok || evict.GetNode() != "n1" {
		t.Errorf("late's Evict %v (recorded %v), want one naming n1", evict, ok)
	}
	nodes, err := d.Scheduler().View().Nodes()
	if err != nil || len(nodes) != 1 || !nodes[0].Node.Unschedulable {
		t.Errorf("n1 not cordoned: %+v %v", nodes, err)
	} else if len(nodes[0].Node.Images) != 1 {
		t.Errorf("cordon lost n1's images: %+v", nodes[0].Node.Images)
	}
	if got := run("uncordon", "n1"); got.code != exitOK || got.stdout != "node n1 uncordoned\n" {
		t.Errorf("uncordon: %+v", got)
	}
}

func (f *fakeBerthd) ListNodePods(context.Context, *berthv1.ListNodePodsRequest) (*berthv1.ListNodePodsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pods := f.nodePods
	for _, r := range f.evicts {
		if !r.GetDryRun() {
			pods = append(slices.Clip(pods), f.nodePodsLater...)
			break
		}
	}
	return &berthv1.ListNodePodsResponse{Pods: pods}, nil
}

// EvictPod lets every pod go, at revisions 1, 2, ... (0 for a dry run).
func (f *fakeBerthd) EvictPod(_ context.Context, req *berthv1.EvictPodRequest) (*berthv1.EvictPodResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.evicts = append(f.evicts, req)
	if req.GetDryRun() {
		return &berthv1.EvictPodResponse{}, nil
	}
	return &berthv1.EvictPodResponse{Revision: uint64(len(f.evicts))}, nil
}

// drain's lines, pod by pod, for the kinds of pods ListNodePods lists: a
// pod binding to the node is evicted like a bound one, its line saying
// so; one bound there after the first list (by a scheduling cycle begun
// before the cordon) is found by the next list and evicted too.
func TestDrainLines(t *testing.T) {
	ref := func(name string) *berthv1.PodRef { return &berthv1.PodRef{Namespace: "default", Name: name} }
	f := &fakeBerthd{nodePods: []*berthv1.NodePod{
		{Pod: ref("agent"), DaemonSet: true},
		{Pod: ref("late"), Binding: true},
		{Pod: ref("old"), Terminating: true, Binding: true},
		{Pod: ref("web-0")},
	}, nodePodsLater: []*berthv1.NodePod{{Pod: ref("straggler"), Binding: true}}}
	addr := f.start(t)
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
	}{
		{"dry run", []string{"--dry-run"}, `pod default/agent ignored (DaemonSet)
pod default/old is being deleted already
pod default/late is binding to n2: would be evicted (dry run)
pod default/web-0 would be evicted (dry run)
`},
		{"drain", nil, `node n2 already cordoned
pod default/agent ignored (DaemonSet)
pod default/old is being deleted already
pod default/late is binding to n2: evicted (revision 3)
pod default/web-0 evicted (revision 4)
pod default/straggler is binding to n2: evicted (revision 5)
node n2 drained
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", append([]string{"--server", addr, "drain", "n2", "--ignore-daemonsets"}, tc.args...)...)
			if got.code != exitOK {
				t.Fatalf("drain: %+v", got)
			}
			if diff := cmp.Diff(tc.stdout, got.stdout); diff != "" {
				t.Errorf("drain %v output (-want +got):\n%s", tc.args, diff)
			}
		})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var asked []string
	for _, r := range f.evicts {
		asked = append(asked, fmt.Sprintf("%s dry=%v", r.GetPod().GetName(), r.GetDryRun()))
	}
	if want := []string{"late dry=true", "web-0 dry=true", "late dry=false", "web-0 dry=false", "straggler dry=false"}; !cmp.Equal(want, asked) {
		t.Errorf("evictions asked %v, want %v", asked, want)
	}
}
