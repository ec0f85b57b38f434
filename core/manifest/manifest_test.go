package manifest_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

// Every shared scenario and oracle example must load: they are the
// manifests parity is measured on.
func TestLoadSharedManifests(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../../shared/scenarios/*.yaml", "../../../shared/kubeoracle/examples/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("../shared is not beside the repository")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := manifest.LoadFiles(f)
			if err != nil {
				t.Fatal(err)
			}
			if c.SchedulerConfig == nil && (len(c.Nodes) == 0 || len(c.Pods) == 0) {
				t.Errorf("%d nodes, %d pods and no scheduler config: expected something", len(c.Nodes), len(c.Pods))
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := manifest.Decode("inline.yaml", []byte(`
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110", example.com/gpu: "1"}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers:
  - name: c
    resources:
      limits: {cpu: 250m, memory: 64Mi}
      requests: {memory: 32Mi}
  initContainers:
  - {name: side, restartPolicy: Always, resources: {requests: {cpu: 100m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: other}
spec:
  nodeName: n1
  containers: [{name: c}]
  tolerations: [{operator: Exists}]
`))
	if err != nil {
		t.Fatal(err)
	}
	n := c.Nodes[0]
	if diff := cmp.Diff(model.ResourceList{"cpu": 2000, "memory": 4 << 30, "pods": 110, "example.com/gpu": 1}, n.Allocatable); diff != "" {
		t.Errorf("allocatable from capacity (-want +got):\n%s", diff)
	}
	a, b := c.Pods[0], c.Pods[1]
	if diff := cmp.Diff(model.ResourceList{"cpu": 250, "memory": 32 << 20}, a.Containers[0].Requests); diff != "" {
		t.Errorf("requests default to limits only where missing (-want +got):\n%s", diff)
	}
	if !a.InitContainers[0].RestartAlways {
		t.Error("restartPolicy Always init container should be a sidecar")
	}
	if a.SchedulerName != model.DefaultSchedulerName || a.Namespace != "default" || a.UID != "pod-default-a" {
		t.Errorf("defaults: scheduler %q namespace %q uid %q", a.SchedulerName, a.Namespace, a.UID)
	}
	if got := len(a.Tolerations); got != 2 {
		t.Errorf("a: %d tolerations, want the 2 default NoExecute ones", got)
	}
	if got := len(b.Tolerations); got != 1 {
		t.Errorf("b tolerates everything already: %d tolerations, want 1", got)
	}
	if !a.CreationTime.Before(b.CreationTime) {
		t.Errorf("creation times must follow input order: %v then %v", a.CreationTime, b.CreationTime)
	}
	if b.StartTime != b.CreationTime {
		t.Errorf("a running pod without startTime starts at creation: %v vs %v", b.StartTime, b.CreationTime)
	}
	var names []string
	for _, ns := range c.Namespaces {
		names = append(names, ns.Name)
	}
	if diff := cmp.Diff([]string{"default", "other"}, names); diff != "" {
		t.Errorf("namespaces (-want +got):\n%s", diff)
	}
}

func TestWorkloadExpansion(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.Pods {
		got = append(got, p.Key())
	}
	if len(got) != 6 {
		t.Fatalf("pods = %v, want 2 web + 2 db + 2 report", got)
	}
	web := c.Pods[0]
	hash := web.Labels["pod-template-hash"]
	if hash == "" || !strings.HasPrefix(web.Name, "web-"+hash+"-") || web.Namespace != "shop" {
		t.Errorf("deployment pod %s labels %v", web.Key(), web.Labels)
	}
	if web.Containers[0].Requests["cpu"] != 500 {
		t.Errorf("template requests from limits: %v", web.Containers[0].Requests)
	}
	if c.Pods[2].Name != "db-0" || c.Pods[3].Name != "db-1" || c.Pods[3].Labels["apps.kubernetes.io/pod-index"] != "1" {
		t.Errorf("statefulset pods: %s %s %v", c.Pods[2].Name, c.Pods[3].Name, c.Pods[3].Labels)
	}
	if c.Pods[4].Labels["batch.kubernetes.io/job-name"] != "report" {
		t.Errorf("job pod labels: %v", c.Pods[4].Labels)
	}
	if c.Pods[0].Name == c.Pods[1].Name {
		t.Error("replicas must have distinct names")
	}
	again, _ := manifest.LoadFiles("testdata/workloads.yaml")
	if again.Pods[0].Name != web.Name {
		t.Error("expansion must be deterministic")
	}
	if len(c.Ignored) != 1 || !strings.Contains(c.Ignored[0], "Service shop/web") {
		t.Errorf("ignored = %v, want the Service noted", c.Ignored)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string // substring of the error
		is   error
	}{
		{
			name: "unknown kind",
			doc:  "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
			want: "bad.yaml: document 1 (Widget default/w): kind: unknown kind example.com/v1 Widget",
			is:   manifest.ErrUnknownKind,
		},
		{
			name: "invalid quantity",
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: lots}}}]\n",
			want: "bad.yaml: document 1 (Pod default/p)",
		},
		{
			name: "bad selector operator",
			doc: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchExpressions: [{key: app, operator: Near, values: [x]}]}
`,
			want: `spec.topologySpreadConstraints[0].labelSelector: matchExpressions[0]: unknown operator "Near"`,
		},
		{
			name: "second document is reported by index",
			doc:  "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n9}\n",
			want: `document 2 (Node n9): metadata.name: duplicate node "n9"`,
		},
		{
			name: "negative request",
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {requests: {memory: -1Gi}}}]\n",
			want: "spec.containers[0].resources.requests[memory]: must be non-negative",
		},
		{
			name: "unknown field",
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containerz: []\n",
			want: "containerz",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Decode("bad.yaml", []byte(tc.doc))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}

func TestPodLevelResources(t *testing.T) {
	const head = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	tests := []struct {
		name    string
		spec    string
		want    model.ResourceList
		wantErr string
	}{
		{
			name: "requests are read",
			spec: "  resources: {requests: {cpu: \"4\", hugepages-2Mi: 4Mi}}\n  containers: [{name: c}]\n",
			want: model.ResourceList{"cpu": 4000, "hugepages-2Mi": 4 << 20},
		},
		{
			name: "no pod-level resources",
			spec: "  containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]\n",
		},
		{
			name: "limits give the requests nobody made",
			spec: "  resources: {limits: {cpu: \"2\", memory: 1Gi}}\n  containers: [{name: c}]\n",
			want: model.ResourceList{"cpu": 2000, "memory": 1 << 30},
		},
		{
			name: "with limits, the containers' aggregate request comes first",
			spec: "  resources: {limits: {cpu: \"2\", memory: 1Gi}}\n  containers: [{name: a, resources: {requests: {cpu: 300m}}}, {name: b, resources: {requests: {cpu: 200m}}}]\n",
			want: model.ResourceList{"cpu": 500, "memory": 1 << 30},
		},
		{
			name: "container hugepages limits become the pod's limit, so its requests are defaulted",
			spec: "  resources: {requests: {cpu: 500m}}\n  containers: [{name: a, resources: {limits: {hugepages-2Mi: 6Mi, memory: 10Mi}}}]\n",
			want: model.ResourceList{"cpu": 500, "memory": 10 << 20, "hugepages-2Mi": 6 << 20},
		},
		{
			name:    "extended resources are not pod-level",
			spec:    "  resources: {requests: {example.com/gpu: \"1\"}}\n  containers: [{name: c}]\n",
			wantErr: "document 1 (Pod default/p): spec.resources.requests[example.com/gpu]: unsupported at pod level",
		},
		{
			name:    "below the containers' aggregate",
			spec:    "  resources: {requests: {cpu: 100m}}\n  containers: [{name: a, resources: {requests: {cpu: 300m}}}]\n",
			wantErr: "spec.resources.requests[cpu]: must be greater than or equal to the aggregate of the container requests (300 millicores)",
		},
		{
			name:    "above the pod-level limit",
			spec:    "  resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}\n  containers: [{name: a}]\n",
			wantErr: "spec.resources.requests[memory]: must be less than or equal to the pod-level limit",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("p.yaml", []byte(head+tc.spec))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Pods[0].PodLevelRequests); diff != "" {
				t.Errorf("pod-level requests (-want +got):\n%s", diff)
			}
		})
	}
}
