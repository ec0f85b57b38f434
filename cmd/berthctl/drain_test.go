package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// evict, cordon, uncordon and drain against a real berthd: a budget
// allowing one disruption among three web pods, a pod under no budget and
// a DaemonSet-looking pod on n1.
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
		pod("agent", "app: agent", ", tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]"))
	if got := berthctl(t, nil, "", "--server", addr, "apply", "-f", file); got.code != exitOK {
		t.Fatalf("apply: %+v", got)
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
	if got := run("drain", "n1", "--timeout", "1500ms"); got.code != exitFailed || !strings.Contains(got.stderr, "DaemonSet pods ([default/agent])") {
		t.Errorf("drain without --ignore-daemonsets: %+v", got)
	}
	got := run("drain", "n1", "--timeout", "1500ms", "--ignore-daemonsets")
	for _, want := range []string{
		"node n1 already cordoned", "pod default/agent ignored (DaemonSet)", "pod default/web-0 is being deleted already",
		"pod default/solo evicted", "pod default/web-1 refused by its disruption budget; retrying in 1s",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("drain output lacks %q: %+v", want, got)
		}
	}
	if got.code != exitBudget {
		t.Errorf("drain exit %d, want %d (budget): %+v", got.code, exitBudget, got)
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
