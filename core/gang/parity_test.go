package gang_test

import (
	"bufio"
	"bytes"
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
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
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
		Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PodGroups: c.PodGroups, Config: cfg,
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
