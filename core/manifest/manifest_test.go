package manifest_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	if len(c.Ignored) != 0 {
		t.Errorf("ignored = %v, want nothing: the Service selects the web pods", c.Ignored)
	}
	wantSelectors := []model.LabelSelector{
		{MatchLabels: map[string]string{"app": "web", "pod-template-hash": hash}}, // the ReplicaSet's
		{MatchLabels: map[string]string{"app": "web"}},                            // the Service's
	}
	if diff := cmp.Diff(wantSelectors, web.WorkloadSelectors); diff != "" {
		t.Errorf("web pod's workload selectors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]model.LabelSelector{{MatchLabels: map[string]string{"app": "db"}}}, c.Pods[2].WorkloadSelectors); diff != "" {
		t.Errorf("db pod's workload selectors (-want +got):\n%s", diff)
	}
	if len(c.Pods[4].WorkloadSelectors) != 0 {
		t.Errorf("job pods get no workload selector: %v", c.Pods[4].WorkloadSelectors)
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
			want: `bad.yaml: document 1 (Pod default/p): spec.containers[0].resources.requests[cpu]: invalid quantity "lots": quantities must match`,
		},
		{
			name: "invalid quantity in a sidecar's status",
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: n1\n  containers: [{name: c}]\nstatus:\n  containerStatuses: [{name: c, image: x, imageID: \"\", ready: true, restartCount: 0, resources: {requests: {memory: 1Zi}}}]\n",
			want: `bad.yaml: document 1 (Pod default/p): status.containerStatuses[0].resources.requests[memory]: invalid quantity "1Zi"`,
		},
		{
			name: "missing apiVersion",
			doc:  "kind: Node\nmetadata: {name: n9}\n",
			want: "bad.yaml: document 1 (Node n9): apiVersion: missing",
		},
		{
			name: "List item of an unknown kind",
			doc:  "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n9}}\n- {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}\n",
			want: "bad.yaml: document 1 (Widget default/w): items[1].kind: unknown kind example.com/v1 Widget",
			is:   manifest.ErrUnknownKind,
		},
		{
			name: "two scheduler configurations",
			doc:  "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
			want: "bad.yaml: document 2 (KubeSchedulerConfiguration): a second KubeSchedulerConfiguration (the first is bad.yaml: document 1)",
		},
		{
			name: "a workload's selector must match its template",
			doc:  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  selector: {matchLabels: {app: a}}\n  template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c}]}}\n",
			want: "bad.yaml: document 1 (StatefulSet default/s): spec.template.metadata.labels: `selector` does not match template `labels`",
		},
		{
			name: "an empty workload selector",
			doc:  "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec:\n  selector: {}\n  template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c}]}}\n",
			want: "bad.yaml: document 1 (ReplicaSet default/r): spec.selector: empty selector is invalid for a ReplicaSet",
		},
		{
			name: "negative StatefulSet ordinal start",
			doc:  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  ordinals: {start: -1}\n  selector: {matchLabels: {app: x}}\n  template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c}]}}\n",
			want: "spec.ordinals.start: must be greater than or equal to 0",
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
			name: "namespace not a DNS label", // found by FuzzDecode: the server refused it
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: A, namespace: 0A}\nspec:\n  containers: [{name: c}]\n",
			want: `document 1 (Pod 0A/A): metadata.namespace: invalid value "0A": a lowercase RFC 1123 label`,
		},
		{
			name: "pod name not a DNS subdomain",
			doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: Web_0}\nspec:\n  containers: [{name: c}]\n",
			want: `document 1 (Pod default/Web_0): metadata.name: invalid value "Web_0": a lowercase RFC 1123 subdomain`,
		},
		{
			name: "Namespace name with a dot",
			doc:  "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a.b}}\n",
			want: `document 1 (Namespace a.b): items[0].metadata.name: invalid value "a.b": must not contain dots`,
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

func TestControllers(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/controllers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*model.Pod{}
	var names []string
	for _, p := range c.Pods {
		names = append(names, p.Name)
		byName[p.Name] = p
	}
	// The ReplicaSet owns rs-mine and creates 2 more; "released" no longer
	// matches its selector. The StatefulSet creates the ordinals missing,
	// the DaemonSet the node missing (n2's taint is not tolerated), the
	// Deployment nothing (its ReplicaSet dep-1 makes its pod), the
	// suspended Job nothing, the Indexed Job the index after the one
	// running.
	wantNames := []string{"rs-mine", "released", "rs-" + suffixOf(t, byName, "rs-", 0), "rs-" + suffixOf(t, byName, "rs-", 1),
		"db-5", "db-7", "db-6", "ds-" + suffixOf(t, byName, "ds-", 0), "ds-on-n3", "dep-1-" + suffixOf(t, byName, "dep-1-", 0),
		"idx-1-" + suffixOf(t, byName, "idx-1-", 0), "idx-0-running"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Fatalf("pods (-want +got):\n%s", diff)
	}
	r := map[string]string{"app": "r"}
	for _, tc := range []struct {
		pod  string
		want []model.LabelSelector
	}{
		{"rs-mine", []model.LabelSelector{{MatchLabels: r}, {MatchLabels: r}}}, // the ReplicaSet's, then the Service's
		{names[2], []model.LabelSelector{{MatchLabels: r}, {MatchLabels: r}}},
		{"released", nil},
		{"db-5", []model.LabelSelector{{MatchLabels: map[string]string{"app": "db"}}}},
		{"db-6", nil}, // written without ownerReferences
		{names[7], nil},
		{names[9], []model.LabelSelector{{MatchLabels: map[string]string{"app": "dep", "pod-template-hash": "1"}}}},
	} {
		if diff := cmp.Diff(tc.want, byName[tc.pod].WorkloadSelectors); diff != "" {
			t.Errorf("%s: workload selectors (-want +got):\n%s", tc.pod, diff)
		}
	}
	if idx := byName[names[10]]; idx.Labels["batch.kubernetes.io/job-completion-index"] != "1" {
		t.Errorf("%s labels %v, want completion index 1", idx.Name, idx.Labels)
	}
	if db5 := byName["db-5"]; db5.Labels["apps.kubernetes.io/pod-index"] != "5" || db5.Labels["statefulset.kubernetes.io/pod-name"] != "db-5" {
		t.Errorf("db-5 labels %v", db5.Labels)
	}
	ds := byName[names[7]]
	wantAffinity := &model.NodeSelector{Terms: []model.NodeSelectorTerm{{MatchFields: []model.NodeSelectorRequirement{{Key: "metadata.name", Operator: model.NodeSelectorOpIn, Values: []string{"n1"}}}}}}
	if diff := cmp.Diff(wantAffinity, ds.Affinity.NodeAffinity.Required); diff != "" {
		t.Errorf("daemon pod pinned (-want +got):\n%s", diff)
	}
	var tolerations []string
	for _, tol := range ds.Tolerations {
		s := tol.Key + ":" + string(tol.Effect)
		if tol.TolerationSeconds != nil {
			s += "!"
		}
		tolerations = append(tolerations, s)
	}
	// The controller's not-ready toleration replaces the template's
	// (same key, operator and effect): no tolerationSeconds.
	wantTolerations := []string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"}
	if diff := cmp.Diff(wantTolerations, tolerations); diff != "" {
		t.Errorf("daemon pod tolerations (-want +got):\n%s", diff)
	}
	if ds.Labels["controller-revision-hash"] == "" || ds.Labels["pod-template-generation"] != "1" {
		t.Errorf("daemon pod labels %v", ds.Labels)
	}
	var ignored []string
	for _, ig := range c.Ignored {
		ignored = append(ignored, ig.String())
	}
	wantIgnored := []string{
		"testdata/controllers.yaml: document 9 (Job default/paused): suspended: the Job controller creates no pods until it is resumed",
		"testdata/controllers.yaml: document 12 (Deployment default/dep): its ReplicaSet is in the manifests and makes the pods",
		"testdata/controllers.yaml: document 15 (Service default/nobody): selects no pod of the manifests, so it does not affect scheduling",
		"testdata/controllers.yaml: document 16 (ConfigMap default/settings): does not affect scheduling",
	}
	if diff := cmp.Diff(wantIgnored, ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if at, ok := c.Origin(byName["db-7"]); !ok || at.String() != "testdata/controllers.yaml: document 7" {
		t.Errorf("db-7 comes from %v %v, want the StatefulSet's document", at, ok)
	}
	if _, ok := c.Origin(c.Namespaces[0]); ok {
		t.Errorf("the implied namespace %s has an origin", c.Namespaces[0].Name)
	}
}

// suffixOf returns the generated suffix of the i-th pod whose name starts
// with prefix and is not written in controllers.yaml.
func suffixOf(t *testing.T, pods map[string]*model.Pod, prefix string, i int) string {
	t.Helper()
	var found []string
	for name := range pods {
		if rest, ok := strings.CutPrefix(name, prefix); ok && len(rest) == 5 && !strings.Contains(rest, "-") {
			found = append(found, rest)
		}
	}
	slices.Sort(found)
	if i >= len(found) {
		t.Fatalf("no generated pod %d with prefix %q among %v", i, prefix, found)
	}
	return found[i]
}

func TestInPlaceResize(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeName: %s
  resources: {requests: {memory: 1Gi}}
  initContainers: [{name: side, restartPolicy: Always, resources: {requests: {cpu: 100m}}}, {name: init, resources: {requests: {cpu: 100m}}}]
  containers: [{name: c, resources: {requests: {cpu: "1", memory: 512Mi}}}]
status:
  conditions: %s
  resources: {requests: {memory: 2Gi}}
  containerStatuses: [{name: c, image: x, imageID: "", ready: true, restartCount: 0, resources: {requests: {cpu: "3", memory: 256Mi}}, allocatedResources: {cpu: "2"}}]
  initContainerStatuses:
  - {name: side, image: x, imageID: "", ready: true, restartCount: 0, resources: {requests: {cpu: 300m}}}
  - {name: init, image: x, imageID: "", ready: true, restartCount: 0, resources: {requests: {cpu: "5"}}}
`
	type reqs struct{ C, Side, Init, Pod model.ResourceList }
	for _, tc := range []struct {
		name, node, conditions string
		want                   reqs
	}{
		{"running: the larger of spec, status and allocation", "n1", "[]", reqs{
			C: model.ResourceList{"cpu": 3000, "memory": 512 << 20}, Side: model.ResourceList{"cpu": 300},
			Init: model.ResourceList{"cpu": 100}, Pod: model.ResourceList{"memory": 2 << 30}}},
		{"infeasible resize: what the node runs", "n1", "[{type: PodResizePending, status: \"True\", reason: Infeasible}]", reqs{
			C: model.ResourceList{"cpu": 3000, "memory": 256 << 20}, Side: model.ResourceList{"cpu": 300},
			Init: model.ResourceList{"cpu": 100}, Pod: model.ResourceList{"memory": 2 << 30}}},
		{"pending: the spec", "", "[]", reqs{
			C: model.ResourceList{"cpu": 1000, "memory": 512 << 20}, Side: model.ResourceList{"cpu": 100},
			Init: model.ResourceList{"cpu": 100}, Pod: model.ResourceList{"memory": 1 << 30}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("p.yaml", []byte(fmt.Sprintf(pod, tc.node, tc.conditions)))
			if err != nil {
				t.Fatal(err)
			}
			p := c.Pods[0]
			got := reqs{C: p.Containers[0].Requests, Side: p.InitContainers[0].Requests, Init: p.InitContainers[1].Requests, Pod: p.PodLevelRequests}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPDBStatus reads a budget's status: any field, disruptedPods
// included, makes it the caller's figure.
func TestPDBStatus(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 30, 0, 0, time.UTC)
	pdbTests := []struct {
		name          string
		status        string
		wantAllowed   *int32
		wantDisrupted map[string]time.Time
	}{
		{name: "no status: Berth computes", status: "{}"},
		{name: "disruptionsAllowed", status: "{disruptionsAllowed: 2}", wantAllowed: ptr(2)},
		{name: "only currentHealthy: a status allowing none", status: "{currentHealthy: 3}", wantAllowed: ptr(0)},
		{name: "only disruptedPods: a status allowing none", status: "{disruptedPods: {web1: '2025-01-01T00:30:00Z'}}",
			wantAllowed: ptr(0), wantDisrupted: map[string]time.Time{"web1": at}},
		{name: "both", status: "{disruptionsAllowed: 1, disruptedPods: {web1: '2025-01-01T00:30:00Z'}}",
			wantAllowed: ptr(1), wantDisrupted: map[string]time.Time{"web1": at}},
	}
	for _, tc := range pdbTests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("inline.yaml", []byte("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n"+
				"spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\nstatus: "+tc.status+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			got := c.PDBs[0]
			if diff := cmp.Diff(tc.wantAllowed, got.DisruptionsAllowed); diff != "" {
				t.Errorf("DisruptionsAllowed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDisrupted, got.DisruptedPods); diff != "" {
				t.Errorf("DisruptedPods (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(v int32) *int32 { return &v }

// TestPreemptionCondition reads the DisruptionTarget condition a
// scheduler's preemption sets on its victims.
func TestPreemptionCondition(t *testing.T) {
	podDoc := func(deleting bool, conditions string) string {
		meta := "{name: p}"
		if deleting {
			meta = "{name: p, deletionTimestamp: '2025-01-01T01:00:00Z'}"
		}
		return "apiVersion: v1\nkind: Pod\nmetadata: " + meta + "\nspec: {nodeName: n1, containers: [{name: c}]}\nstatus: {conditions: " + conditions + "}\n"
	}
	const preempted = "{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}"
	tests := []struct {
		name                           string
		doc                            string
		wantTerminating, wantPreempted bool
	}{
		{"running", podDoc(false, "[]"), false, false},
		{"terminating, no condition", podDoc(true, "[]"), true, false},
		{"terminating by preemption", podDoc(true, "["+preempted+"]"), true, true},
		{"condition without deletion", podDoc(false, "["+preempted+"]"), false, true},
		{"evicted through the API", podDoc(true, "[{type: DisruptionTarget, status: 'True', reason: EvictionByEvictionAPI}]"), true, false},
		{"condition false", podDoc(true, "[{type: DisruptionTarget, status: 'False', reason: PreemptionByScheduler}]"), true, false},
		{"the first DisruptionTarget decides", podDoc(true, "[{type: DisruptionTarget, status: 'False'}, "+preempted+"]"), true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("inline.yaml", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			p := c.Pods[0]
			if p.Terminating != tc.wantTerminating || p.Preempted != tc.wantPreempted {
				t.Errorf("terminating %v preempted %v, want %v %v", p.Terminating, p.Preempted, tc.wantTerminating, tc.wantPreempted)
			}
			if got, want := p.TerminatingByPreemption(), tc.wantTerminating && tc.wantPreempted; got != want {
				t.Errorf("TerminatingByPreemption() = %v, want %v", got, want)
			}
		})
	}
}

// TestPodGroups reads kube 1.36's PodGroup and Workload templates,
// scheduler-plugins' PodGroup, and pods joining them either way.
func TestPodGroups(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/groups.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []*model.PodGroup{
		{Namespace: "ml", Name: "train", MinCount: 4, TopologyKey: "topology.kubernetes.io/zone"},
		{Namespace: "ml", Name: "job-workers-0", MinCount: 3},
		{Namespace: "ml", Name: "job-driver-0", MinCount: 1},
		{Namespace: "default", Name: "legacy", MinCount: 2},
	}
	if diff := cmp.Diff(want, c.PodGroups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, p := range c.Pods {
		got[p.Key()] = p.SchedulingGroup
	}
	if diff := cmp.Diff(map[string]string{"ml/w0": "train", "default/l0": "legacy"}, got); diff != "" {
		t.Errorf("pods' groups (-want +got):\n%s", diff)
	}
}

// TestPodGroupsV1beta1 reads kube 1.37's spelling: workloadRef,
// disruptionMode {single|all}, priorityClassName and priority.
func TestPodGroupsV1beta1(t *testing.T) {
	const doc = `apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 3}}
    disruptionMode: {all: {}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-workers-0, namespace: ml}
spec:
  workloadRef: {workloadName: job, templateName: workers}
  priorityClassName: urgent
  disruptionMode: {all: {}}
  preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  priority: 770
  disruptionMode: {single: {}}
`
	c, err := manifest.Decode("inline.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	prio := int32(770)
	want := []*model.PodGroup{
		{Namespace: "ml", Name: "job-workers-0", MinCount: 3, PriorityClassName: "urgent", DisruptionAll: true, PreemptionPolicy: model.PreemptNever},
		{Namespace: "ml", Name: "train", MinCount: 2, RequestedPriority: &prio},
	}
	if diff := cmp.Diff(want, c.PodGroups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

func TestPodGroupErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"minCount 0", "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {minCount: 0}}}\n",
			"spec.schedulingPolicy.gang.minCount: must be at least 1, got 0"},
		{"no policy", "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: {}\n",
			"spec.schedulingPolicy: required"},
		{"unknown template", "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: {podGroupTemplateRef: {workload: {workloadName: w, podGroupTemplateName: t}}}\n",
			`spec.podGroupTemplateRef.workload: no Workload default/w with podGroupTemplate "t" in the manifests`},
		{"composite parent without workloadRef", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {parentCompositePodGroupName: c, schedulingPolicy: {basic: {}}}\n",
			"spec.workloadRef: must be set when parentCompositePodGroupName is set"},
		{"composite parent not a name", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {parentCompositePodGroupName: C_1, workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {basic: {}}}\n",
			"spec.parentCompositePodGroupName: invalid value C_1"},
		{"composite without policy", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {workloadRef: {workloadName: w, templateName: t}}\n",
			"spec.schedulingPolicy: exactly one of basic and gang (with minGroupCount) is required"},
		{"composite minGroupCount 0", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {gang: {minGroupCount: 0}}}\n",
			"spec.schedulingPolicy.gang.minGroupCount: must be at least 1, got 0"},
		{"composite without workloadRef", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {schedulingPolicy: {gang: {minGroupCount: 2}}}\n",
			"spec.workloadRef: required"},
		{"composite topology", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: zone}]}}\n",
			"spec.schedulingConstraints.topology: topology constraints of composite pod groups are not modelled by Berth"},
		{"composite own parent", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {parentCompositePodGroupName: c, workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {basic: {}}}\n",
			`spec.parentCompositePodGroupName: invalid value "c"`},
		{"composite templates", "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: {compositePodGroupTemplates: [{name: t}]}\n",
			"spec.compositePodGroupTemplates: a Workload's composite pod group templates are not modelled by Berth"},
		{"unknown preemption policy", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, preemptionPolicy: Sometimes}\n",
			"spec.preemptionPolicy: unsupported value Sometimes: PreemptLowerPriority or Never"},
		{"bad label", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, labels: {kueue.x-k8s.io/queue-name: \"not a name\"}}\nspec: {schedulingPolicy: {basic: {}}}\n",
			"metadata.labels[kueue.x-k8s.io/queue-name]"},
		{"two disruption modes", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}, all: {}}}\n",
			"spec.disruptionMode: exactly one of single and all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Decode("inline.yaml", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestCompositePodGroups reads kube 1.37's alpha v1alpha3
// CompositePodGroup (gang or basic, with a parent) and a PodGroup naming
// its parent.
func TestCompositePodGroups(t *testing.T) {
	const doc = `apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job, namespace: ml}
spec:
  workloadRef: {workloadName: job, templateName: root}
  schedulingPolicy: {gang: {minGroupCount: 2}}
  priorityClassName: urgent
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job-side, namespace: ml}
spec:
  parentCompositePodGroupName: job
  workloadRef: {workloadName: job, templateName: side}
  schedulingPolicy: {basic: {}}
  disruptionMode: {single: {}}
  priority: 5
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-workers, namespace: ml}
spec:
  parentCompositePodGroupName: job
  workloadRef: {workloadName: job, templateName: workers}
  schedulingPolicy: {gang: {minCount: 2}}
`
	c, err := manifest.Decode("inline.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	prio := int32(5)
	want := []*model.CompositePodGroup{
		{Namespace: "ml", Name: "job", MinGroupCount: 2, PriorityClassName: "urgent"},
		{Namespace: "ml", Name: "job-side", Parent: "job", MinGroupCount: 1, RequestedPriority: &prio},
	}
	if diff := cmp.Diff(want, c.CompositePodGroups); diff != "" {
		t.Errorf("composite groups (-want +got):\n%s", diff)
	}
	wantGroups := []*model.PodGroup{{Namespace: "ml", Name: "job-workers", MinCount: 2, Parent: "job"}}
	if diff := cmp.Diff(wantGroups, c.PodGroups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

// TestPodGroupsV1beta1InList reads kube 1.37's PodGroups and Workloads as
// items of a v1 List (what `kubectl get podgroups,workloads -o yaml`
// writes) as it reads them as documents, errors located in the item.
func TestPodGroupsV1beta1InList(t *testing.T) {
	const doc = `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1beta1
  kind: Workload
  metadata: {name: job, namespace: ml}
  spec:
    podGroupTemplates:
    - name: workers
      schedulingPolicy: {gang: {minCount: 3}}
      disruptionMode: {all: {}}
- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: job-workers-0, namespace: ml}
  spec:
    workloadRef: {workloadName: job, templateName: workers}
    priorityClassName: urgent
    disruptionMode: {all: {}}
- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: train, namespace: ml}
  spec:
    schedulingPolicy: {gang: {minCount: 2}}
    priority: 770
    disruptionMode: {single: {}}
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: legacy, namespace: ml}
  spec: {minMember: 4}
`
	c, err := manifest.Decode("inline.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	prio := int32(770)
	want := []*model.PodGroup{
		{Namespace: "ml", Name: "job-workers-0", MinCount: 3, PriorityClassName: "urgent", DisruptionAll: true},
		{Namespace: "ml", Name: "train", MinCount: 2, RequestedPriority: &prio},
		{Namespace: "ml", Name: "legacy", MinCount: 4},
	}
	if diff := cmp.Diff(want, c.PodGroups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	_, err = manifest.Decode("inline.yaml", []byte(`apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: g}
  spec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}, all: {}}}
`))
	if want := "items[0].spec.disruptionMode: exactly one of single and all"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
}
