package gang_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/simulate/fullloop"
)

var oracle = flag.String("oracle", "", "kubeoracle binary: re-record testdata/parity/*.oracle.jsonl with it")

// oracleGates are the feature gates the corpus is recorded with, unless
// NAME.gates gives others (for the oracle and Berth alike).
const oracleGates = "GenericWorkload=true"

// gatesOf returns the gates a cluster file is run with.
func gatesOf(t *testing.T, cluster string) string {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(cluster, ".yaml") + ".gates")
	if errors.Is(err, os.ErrNotExist) {
		return oracleGates
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// TestParity runs each cluster of testdata/parity through Berth's
// scheduler until nothing more can be placed and compares how many
// members of each group (and which loose pods) are bound with what the
// real kube-scheduler bound.
func TestParity(t *testing.T) {
	files, err := filepath.Glob("testdata/parity/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var same, groups, pods int
	defer func() {
		t.Logf("%d of %d clusters bind as kube does: %d groups with bound members, %d pods bound by kube", same, len(files), groups, pods)
	}()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			golden := strings.TrimSuffix(f, ".yaml") + ".oracle.jsonl"
			if *oracle != "" {
				record(t, f, golden)
			}
			data, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			c, err := manifest.LoadFiles(f)
			if err != nil {
				t.Fatal(err)
			}
			want := oracleBound(t, data, c)
			if diff := cmp.Diff(want, berthBound(t, c, gatesOf(t, f))); diff != "" {
				t.Errorf("bound per group (-kube +berth):\n%s", diff)
				return
			}
			same++
			for k, n := range want {
				if strings.HasPrefix(k, "group ") {
					groups++
				}
				pods += n
			}
		})
	}
}

func record(t *testing.T, in, out string) {
	cmd := exec.CommandContext(t.Context(), *oracle, "throughput", "-f", in, "--print-placements",
		"--stall-timeout", "5s", "--feature-gates", gatesOf(t, in))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubeoracle: %v", err)
	}
	if err := os.WriteFile(out, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// groupOf is what the comparison counts a bound pod under: its group, or
// the pod itself when it is in none.
func groupOf(p *model.Pod) string {
	if p.SchedulingGroup == "" {
		return "pod " + p.Name
	}
	return "group " + p.SchedulingGroup
}

// oracleBound counts the bound pods per group in the oracle's output.
func oracleBound(t *testing.T, data []byte, c *manifest.Cluster) map[string]int {
	byKey := map[string]*model.Pod{}
	for _, p := range c.Pods {
		byKey[p.Key()] = p
	}
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var line struct{ Pod, Node, Deleted string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Pod == "" || line.Node == "" || line.Deleted != "" {
			continue
		}
		p, ok := byKey[line.Pod]
		if !ok {
			t.Fatalf("the oracle placed %s, not in the manifest", line.Pod)
		}
		out[groupOf(p)]++
	}
	return out
}

// berthBound runs the cluster through Berth's loop until no pod can be
// popped (fullloop: binds confirmed and victims deleted as they come, as
// berthctl simulate runs a cluster with groups) and counts the bound pods
// per group.
func berthBound(t *testing.T, c *manifest.Cluster, gates string) map[string]int {
	cfg := config.Default()
	var err error
	if cfg.FeatureGates, _, err = features.Parse(gates); err != nil {
		t.Fatal(err)
	}
	res, err := fullloop.Run(t.Context(), fullloop.Input{
		Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PodGroups: c.PodGroups,
		CompositePodGroups: c.CompositePodGroups, Config: cfg,
	}, fullloop.Options{Registry: registry.InTree()})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*model.Pod{}
	for _, p := range c.Pods {
		byKey[p.Key()] = p
	}
	out := map[string]int{}
	for _, l := range res.Pods {
		if l.Result == fullloop.ResultBound {
			out[groupOf(byKey[l.Pod])]++
		}
	}
	return out
}

// nopPlanner takes every plan and decides nothing: TestCompositeGateOff
// only loads objects into its scheduler.
type nopPlanner struct{}

func (nopPlanner) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// TestCompositeGateOff: without the CompositePodGroup gate a composite
// group is refused (kube 1.37 does not serve the kind) and a PodGroup's
// parent is dropped, so its pods are placed as its own gang's.
func TestCompositeGateOff(t *testing.T) {
	const doc = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: p100}
value: 100
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 64Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job, namespace: default}
spec: {workloadRef: {workloadName: w, templateName: job}, schedulingPolicy: {gang: {minGroupCount: 2}}, priorityClassName: p100}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-a, namespace: default}
spec: {parentCompositePodGroupName: job, workloadRef: {workloadName: w, templateName: a}, schedulingPolicy: {gang: {minCount: 1}}, priorityClassName: p100}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-b, namespace: default}
spec: {parentCompositePodGroupName: job, workloadRef: {workloadName: w, templateName: b}, schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec: {priorityClassName: p100, schedulingGroup: {podGroupName: job-a}, containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default}
spec: {priorityClassName: p100, schedulingGroup: {podGroupName: job-b}, containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]}
`
	c, err := manifest.Decode("inline.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := scheduler.New(ctx, scheduler.Options{Config: config.Default(), Registry: registry.InTree(), Decisions: nopPlanner{}, Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, c.CompositePodGroups[0]); !errors.Is(err, gang.ErrCompositeDisabled) {
		t.Errorf("composite group without the gate: %v, want %v", err, gang.ErrCompositeDisabled)
	}
	// Gangs of their own, each group has its own priority: job-a's class
	// (p100, its pod's), job-b's 0 as it names none while its pod is p100,
	// so, as kube 1.37, job-b is not tried. With the gate only the root's
	// priority counts: both are bound.
	for _, tc := range []struct {
		gates string
		want  map[string]int
	}{
		{"GenericWorkload=true", map[string]int{"group job-a": 1}},
		{"GenericWorkload=true,CompositePodGroup=true,TopologyAwareWorkloadScheduling=true", map[string]int{"group job-a": 1, "group job-b": 1}},
	} {
		if diff := cmp.Diff(tc.want, berthBound(t, c, tc.gates)); diff != "" {
			t.Errorf("bound with %s (-want +got):\n%s", tc.gates, diff)
		}
	}
}
