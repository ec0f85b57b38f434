package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateGroups = flag.Bool("update-groups", false, "rewrite testdata/groups/*.golden.* with berthctl simulate's output")

// TestSimulateGroupsGolden: on manifests with pod groups, simulate runs
// the scheduling loop to the end and prints where each pod ended and one
// line per group. A case is NAME.yaml with NAME.golden.jsonl (-o json),
// optionally NAME.golden.txt (-o text) and NAME.oracle.jsonl: the real
// kube-scheduler's full loop (kubeoracle throughput --print-placements
// --feature-gates GenericWorkload=true, copied from core/gang's parity
// corpus), whose set of bound pods per group the output must have, as
// core/gang's TestParity requires (nodes are not compared: ties are broken
// differently).
func TestSimulateGroupsGolden(t *testing.T) {
	clusters, err := filepath.Glob(filepath.Join("testdata", "groups", "*.yaml"))
	if err != nil || len(clusters) < 5 {
		t.Fatalf("%d cases: %v", len(clusters), err)
	}
	withOracle := 0
	for _, cluster := range clusters {
		base := strings.TrimSuffix(cluster, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			for _, g := range []struct{ output, golden string }{{"json", base + ".golden.jsonl"}, {"text", base + ".golden.txt"}} {
				if g.output == "text" && !fileExists(g.golden) {
					continue // -o text is checked where a golden was made (touch it, then -update-groups)
				}
				got := berthctl(t, nil, "", "simulate", "-f", cluster, "-o", g.output)
				if got.code != exitOK {
					t.Fatalf("-o %s: exit %d, stderr %q", g.output, got.code, got.stderr)
				}
				if *updateGroups {
					writeFile(t, g.golden, got.stdout)
				}
				if diff := cmp.Diff(strings.Split(readString(t, g.golden), "\n"), strings.Split(got.stdout, "\n")); diff != "" {
					t.Errorf("-o %s (-golden +berthctl):\n%s", g.output, diff)
				}
				if g.output != "json" || !fileExists(base+".oracle.jsonl") {
					continue
				}
				withOracle++
				if diff := cmp.Diff(oracleBoundPods(t, base+".oracle.jsonl"), boundPods(t, got.stdout)); diff != "" {
					t.Errorf("bound pods (-kube-scheduler's loop +berthctl):\n%s", diff)
				}
			}
		})
	}
	if withOracle < 5 {
		t.Errorf("only %d cases compared with the oracle", withOracle)
	}
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// oracleBoundPods are the pods kubeoracle's throughput mode left bound.
func oracleBoundPods(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct{ Pod, Node, Deleted string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Pod != "" && l.Node != "" && l.Deleted == "" {
			out = append(out, l.Pod)
		}
	}
	slices.Sort(out)
	return out
}

// boundPods are the pods simulate's pod lines say are bound; it checks
// that every group line agrees with them.
func boundPods(t *testing.T, stdout string) []string {
	t.Helper()
	var out []string
	perGroup := map[string]int{}
	groups := map[string]struct {
		Result         string
		MinCount       int32
		Members, Bound int
	}{}
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var l struct {
			Pod, Result, Group string
			MinCount           int32
			Members, Bound     int
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch {
		case l.Pod != "" && l.Result == "bound":
			out = append(out, l.Pod)
			if l.Group != "" {
				perGroup[l.Group]++
			}
		case l.Pod == "" && l.Group != "":
			groups[l.Group] = struct {
				Result         string
				MinCount       int32
				Members, Bound int
			}{l.Result, l.MinCount, l.Members, l.Bound}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		if g.Bound != perGroup[k] || (g.Result == "bound") != (g.Bound >= int(g.MinCount) && g.MinCount > 0) {
			t.Errorf("group %s: %+v, but %d of its pods bound", k, g, perGroup[k])
		}
	}
	slices.Sort(out)
	return out
}
