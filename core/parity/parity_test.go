package parity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

// Agreement floors, as fractions of attempts. Placement agreement compares
// each attempt's result and node; full agreement compares every field of
// the trace line (feasible set, scores per node and plugin, messages,
// victims). A change that lowers either below its floor is a parity
// regression; raise the floors as gaps close.
const (
	minPlacementAgreement = 1.0
	minFullAgreement      = 1.0
)

// TestParityWithOracle runs Berth's simulator on every cluster of the
// random corpus and compares its trace with the real kube-scheduler's
// (testdata/golden, produced by kubeoracle). Every difference is logged;
// the test fails when agreement drops below the floors.
func TestParityWithOracle(t *testing.T) {
	checkCorpus(t, filepath.Join("testdata", "clusters"), filepath.Join("testdata", "golden"))
}

// TestParityExtended does the same on the extended corpus
// (testdata/extended, see its README): clusters with namespaces and
// namespace selectors, every spread option, sidecars, host ports,
// extended resources, budgets, stale nominations, gated pods, several
// profiles and scheduler configurations, and sampled percentages of nodes
// to score on 120 to 150 nodes.
func TestParityExtended(t *testing.T) {
	dir := filepath.Join("testdata", "extended")
	checkCorpus(t, filepath.Join(dir, "clusters"), filepath.Join(dir, "golden"))
}

// TestParityImages does the same on the image corpus (testdata/images,
// GenOptions.Images): ImageLocality's scores on nodes holding images under
// every spelling, pods with several containers and init containers.
func TestParityImages(t *testing.T) {
	dir := filepath.Join("testdata", "images")
	checkCorpus(t, filepath.Join(dir, "clusters"), filepath.Join(dir, "golden"))
}

// checkCorpus compares Berth's trace with the oracle's on every cluster of
// dir (NAME.yaml, with its trace in golden/NAME.jsonl). Every difference
// is logged; the test fails when agreement drops below the floors.
func checkCorpus(t *testing.T, dir, golden string) {
	t.Helper()
	clusters, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(clusters) == 0 {
		t.Fatalf("no clusters under %s", dir)
	}
	if raceDetector { // a sample: .ci/test replays them all without it
		var some []string
		for i := 0; i < len(clusters); i += raceStride {
			some = append(some, clusters[i])
		}
		clusters = some
	}
	var attempts, placementOK, fullOK int
	for _, cluster := range clusters {
		name := strings.TrimSuffix(filepath.Base(cluster), ".yaml")
		want := readTrace(t, filepath.Join(golden, name+".jsonl"))
		got := runBerth(t, cluster)
		n := max(len(want), len(got))
		attempts += n
		for i := range n {
			var w, g simulate.Line
			if i < len(want) {
				w = want[i]
			}
			if i < len(got) {
				g = got[i]
			}
			if w.Pod == g.Pod && w.Result == g.Result && w.Node == g.Node {
				placementOK++
			}
			if diff := cmp.Diff(w, g); diff == "" {
				fullOK++
			} else {
				t.Logf("%s line %d (%s) (-oracle +berth):\n%s", name, i+1, w.Pod, diff)
			}
		}
	}
	placement := float64(placementOK) / float64(attempts)
	full := float64(fullOK) / float64(attempts)
	t.Logf("%d clusters, %d attempts: placement agreement %.4f, full-line agreement %.4f", len(clusters), attempts, placement, full)
	if placement < minPlacementAgreement {
		t.Errorf("placement agreement %.4f is below the floor %.4f", placement, minPlacementAgreement)
	}
	if full < minFullAgreement {
		t.Errorf("full-line agreement %.4f is below the floor %.4f", full, minFullAgreement)
	}
}

// runBerth simulates a cluster file as berthctl simulate does: with the
// KubeSchedulerConfiguration it carries, if any, less the plugins Berth
// does not have.
func runBerth(t *testing.T, cluster string) []simulate.Line {
	t.Helper()
	c, err := manifest.LoadFiles(cluster)
	if err != nil {
		t.Fatalf("%s: %v", cluster, err)
	}
	reg := registry.InTree()
	cfg := config.Default()
	if c.SchedulerConfig != nil {
		if cfg, err = config.Load(c.SchedulerConfig); err != nil {
			t.Fatalf("%s: %v", cluster, err)
		}
	}
	withoutUnregistered(cfg, reg)
	in := simulate.Input{Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces, Devices: c.Devices, Volumes: c.Volumes, Config: cfg}
	lines, err := simulate.Run(context.Background(), in, simulate.Options{Registry: reg})
	if err != nil {
		t.Fatalf("%s: %v", cluster, err)
	}
	out := make([]simulate.Line, len(lines))
	for i, l := range lines {
		out[i] = roundTrip(t, l)
	}
	return out
}

// withoutUnregistered drops from cfg the plugins reg lacks (those only
// Kubernetes has), as berthctl simulate does.
func withoutUnregistered(cfg *config.Config, reg runtime.Registry) {
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i].Plugins
		for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
			set := p.Set(point)
			set.Enabled = slices.DeleteFunc(set.Enabled, func(pl config.Plugin) bool {
				_, ok := reg[pl.Name]
				return !ok
			})
		}
	}
}

func readTrace(t *testing.T, path string) []simulate.Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []simulate.Line
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for dec.More() {
		var l simulate.Line
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out
}

// roundTrip passes a line through JSON so omitted empty fields compare
// equal to the oracle's.
func roundTrip(t *testing.T, l simulate.Line) simulate.Line {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var out simulate.Line
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", b, err))
	}
	return out
}
