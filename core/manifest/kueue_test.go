package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

const kueueFlavor = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: rf}\n"

// TestKueueRefused: Kueue documents that Kueue's webhooks (or its API)
// refuse are refused here, naming the document and the field, with the
// webhooks' messages.
func TestKueueRefused(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"limits without a cohort", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: rf
      resources: [{name: cpu, nominalQuota: 4, lendingLimit: 5, borrowingLimit: 1}]
`, `document 2 (ClusterQueue cq): [spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid value: "1": must be nil when cohort is empty, ` +
			`spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: "5": must be nil when cohort is empty, ` +
			`spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: "5": must be less than or equal to the nominalQuota]`},
		{"resource name out of order", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: rf
      resources: [{name: memory, nominalQuota: 4}, {name: cpu, nominalQuota: 1}]
`, `spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: "memory": must match the name in coveredResources`},
		{"a resource in two groups", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: rf, resources: [{name: cpu, nominalQuota: 1}]}]
  - coveredResources: [cpu]
    flavors: [{name: rf2, resources: [{name: cpu, nominalQuota: 1}]}]
`, `spec.resourceGroups[1].coveredResources[0]: Duplicate value: "cpu"`},
		{"preference needs TryNextFlavor", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  flavorFungibility: {preference: PreemptionOverBorrowing}
`, `spec.flavorFungibility.preference: Invalid value: "PreemptionOverBorrowing": preference "PreemptionOverBorrowing" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor`},
		{"unknown policy", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  preemption: {withinClusterQueue: Sometimes}
`, `spec.preemption.withinClusterQueue: Unsupported value: "Sometimes"`},
		{"v1beta1 field in v1beta2", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec: {cohort: pool}
`, `spec.cohort: is v1beta1's field; kueue.x-k8s.io/v1beta2 spells it spec.cohortName`},
		{"unknown field", `apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: x, name: lq}
spec: {clusterQueue: cq, queue: typo}
`, `unknown field "queue"`},
		{"unknown version", "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: ClusterQueue\nmetadata: {name: cq}\n",
			`apiVersion: must be kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2 (the versions Berth reads), got "kueue.x-k8s.io/v1alpha1"`},
		{"unknown kind", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: ac}\n", "unknown kind"},
		{"cohort limits without a parent", `apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: rf, resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1}]}]
`, `spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Invalid value: "1": must be nil when parent is empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("in.yaml", []byte(kueueFlavor+"---\n"+tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestKueueWorkloads: priorities are resolved as Kueue's integrations
// do, pod templates read as pods, and bad workloads become error lines
// (not input errors), as the oracle reports them.
func TestKueueWorkloads(t *testing.T) {
	c, err := Decode("in.yaml", []byte(kueueFlavor+`---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default}
value: 7
globalDefault: true
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {namespace: x, name: a}
spec:
  queueName: lq
  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
  priorityClassName: high
  podSets:
  - count: 3
    template: {spec: {initContainers: [{name: i, image: i, resources: {requests: {cpu: "2"}}}], containers: [{name: c, image: i, resources: {requests: {cpu: 500m}, limits: {memory: 1Gi}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {namespace: x, name: b}
spec:
  queueName: lq
  podSets: [{count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {namespace: x, name: c}
spec:
  queueName: lq
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: nope}
  podSets: [{count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	ws := c.Queueing.Workloads
	if len(ws) != 3 {
		t.Fatalf("%d workloads", len(ws))
	}
	a := ws[0]
	if a.Priority != 1000 || !a.HasPriority || a.PodSets[0].Name != "main" || a.PodSets[0].Count != 3 {
		t.Errorf("a = %+v", a)
	}
	if got := a.PodSets[0].Requests; got["cpu"] != 2000 || got["memory"] != 1<<30 {
		t.Errorf("a's per-pod requests = %v, want the init peak (2 cpu) and memory from limits", got)
	}
	if b := ws[1]; b.Priority != 7 || b.PriorityClass != "default" {
		t.Errorf("b = %+v, want the globalDefault PriorityClass", b)
	}
	if ws[2].Error != `WorkloadPriorityClass "nope" not found` {
		t.Errorf("c's error = %q", ws[2].Error)
	}
	if !ws[0].Created.Before(ws[1].Created) {
		t.Errorf("creation times do not follow the input order")
	}
	if _, err := Decode("in.yaml", []byte("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nadmissionFairSharing: {usageHalfLifeTime: 1h}\n")); err == nil || !strings.Contains(err.Error(), "admission fair sharing is not supported") {
		t.Errorf("admissionFairSharing: %v", err)
	}
}

// TestKueueJobs: a Job labelled with a queue name is one Workload of its
// pods, named as Kueue names it, suspended or not; a bad
// job-min-parallelism is refused with its field.
func TestKueueJobs(t *testing.T) {
	job := `apiVersion: batch/v1
kind: Job
metadata:
  namespace: batch
  name: train
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueue.x-k8s.io/job-min-parallelism: "%s"}
spec:
  parallelism: 3
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
`
	c, err := Decode("in.yaml", []byte(strings.Replace(job, "%s", "1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pods) != 3 || c.Queueing == nil || len(c.Queueing.Workloads) != 1 {
		t.Fatalf("%d pods, queueing %+v", len(c.Pods), c.Queueing)
	}
	w := c.Queueing.Workloads[0]
	if w.Name != "job-train-e5b0e" || len(w.Pods) != 3 || w.PodSets[0].Count != 3 || *w.PodSets[0].MinCount != 1 || w.PodSets[0].Requests["cpu"] != 1000 {
		t.Errorf("workload %+v, pod sets %+v", w, w.PodSets)
	}
	if _, err := Decode("in.yaml", []byte(strings.Replace(job, "%s", "7", 1))); err == nil || !strings.Contains(err.Error(), "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]") {
		t.Errorf("bad min parallelism: %v", err)
	}
}

// TestKueueStopPoliciesNotHeld: stop policies and Configuration settings
// Berth does not apply are refused, not ignored.
func TestKueueStopPoliciesNotHeld(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {namespace: x, name: lq}\nspec: {clusterQueue: cq, stopPolicy: Hold}\n",
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {stopPolicy: HoldAndDrain}\n",
		"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: true}\n",
		"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources: {excludeResourcePrefixes: [example.com/]}\n",
	} {
		if _, err := Decode("in.yaml", []byte(doc)); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: error %v", doc, err)
		}
	}
}

// TestKueueServingAndRunning: Kueue's Deployment integration makes a
// one-pod workload per replica (none scaled to zero), its StatefulSet
// integration one workload of every replica, and a running pod labelled
// with a queue name is an admitted workload on the flavor its node has.
func TestKueueServingAndRunning(t *testing.T) {
	const base = `apiVersion: v1
kind: Node
metadata: {name: n-spot, labels: {pool: spot}}
status: {allocatable: {cpu: "8"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec: {nodeLabels: {pool: od}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec: {nodeLabels: {pool: spot}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: on-demand, resources: [{name: cpu, nominalQuota: 4}]}
    - {name: spot, resources: [{name: cpu, nominalQuota: 4}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: x, name: lq}
spec: {clusterQueue: cq}
`
	const deployment = `---
apiVersion: apps/v1
kind: Deployment
metadata: {namespace: x, name: web, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
`
	const statefulSet = `---
apiVersion: apps/v1
kind: StatefulSet
metadata: {namespace: x, name: db, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
`
	const running = `---
apiVersion: v1
kind: Pod
metadata: {namespace: x, name: %s, labels: {kueue.x-k8s.io/queue-name: %s}}
spec:
  nodeName: n-spot
  containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
`
	byName := func(t *testing.T, doc string) map[string]*quota.Workload {
		t.Helper()
		c, err := Decode("in.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*quota.Workload{}
		for _, w := range c.Queueing.Workloads {
			out[w.Name] = w
		}
		return out
	}
	t.Run("deployment", func(t *testing.T) {
		ws := byName(t, base+fmt.Sprintf(deployment, 3))
		if len(ws) != 3 {
			t.Fatalf("%d workloads, want one per replica: %v", len(ws), ws)
		}
		for name, w := range ws {
			if !strings.HasPrefix(name, "pod-web-") || len(w.Pods) != 1 || w.PodSets[0].Count != 1 || w.QueueName != "lq" {
				t.Errorf("%s: %+v", name, w)
			}
		}
		if ws := byName(t, base+fmt.Sprintf(deployment, 0)); len(ws) != 0 {
			t.Errorf("scaled to zero: %d workloads", len(ws))
		}
	})
	t.Run("statefulset", func(t *testing.T) {
		ws := byName(t, base+statefulSet)
		w := ws[integrations.Name("StatefulSet", "apps", "db", "")]
		if len(ws) != 1 || w == nil {
			t.Fatalf("workloads %v, want one for the StatefulSet", ws)
		}
		if len(w.Pods) != 3 || len(w.PodSets) != 1 || w.PodSets[0].Count != 3 || w.PodSets[0].MinCount != nil || w.PodSets[0].Requests["cpu"] != 2000 {
			t.Errorf("workload %+v, pod sets %+v", w, w.PodSets)
		}
		written := base + statefulSet + "---\napiVersion: v1\nkind: Pod\nmetadata: {namespace: x, name: db-0, labels: {app: db}}\nspec: {containers: [{name: c, image: i}]}\n"
		if _, err := Decode("in.yaml", []byte(written)); err == nil || !strings.Contains(err.Error(), "metadata.labels[kueue.x-k8s.io/queue-name]") {
			t.Errorf("a queued StatefulSet with a written replica: %v", err)
		}
	})
	t.Run("running", func(t *testing.T) {
		ws := byName(t, base+fmt.Sprintf(running, "r", "lq")+fmt.Sprintf(running, "lost", "nope"))
		var r, lost *quota.Workload
		for name, w := range ws {
			switch {
			case strings.HasPrefix(name, "pod-r-"):
				r = w
			case strings.HasPrefix(name, "pod-lost-"):
				lost = w
			}
		}
		if r == nil || lost == nil {
			t.Fatalf("workloads %v", ws)
		}
		want := &quota.Admission{ClusterQueue: "cq", PodSetAssignments: []quota.PodSetAssignment{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "spot"}}}, Reserved: r.Created}
		if d := cmp.Diff(want, r.Admission); d != "" || r.Error != "" || len(r.Pods) != 0 || len(r.Running) != 1 {
			t.Errorf("running pod's admission (-want +got):\n%s\n%+v", d, r)
		}
		if lost.Admission != nil || !strings.Contains(lost.Error, "LocalQueue does not exist") {
			t.Errorf("running pod of a missing LocalQueue: %+v", lost)
		}
	})
}
