package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/plugins/registry"
)

var (
	update     = flag.Bool("update", false, "regenerate testdata/oracle/*.jsonl with the oracle")
	oraclePath = flag.String("oracle", "/tmp/kubeoracle", "path of the kubeoracle binary used by -update")
)

// goldenCase is a cluster under testdata/oracle with the oracle's trace.
type goldenCase struct {
	name, cluster, config, golden string
}

func goldenCases(t *testing.T) []goldenCase {
	files, err := filepath.Glob(filepath.Join("testdata", "oracle", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// DRA clusters apart: berthd does not take DRA objects yet, so
	// cmd/berthctl's offline-versus-server test leaves them out.
	dra, err := filepath.Glob(filepath.Join("testdata", "dra", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, dra...)
	// Storage scenarios apart too (testdata/volumes).
	vols, err := filepath.Glob(filepath.Join("testdata", "volumes", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, vols...)
	var out []goldenCase
	for _, f := range files {
		if strings.HasSuffix(f, ".config.yaml") {
			continue
		}
		base := strings.TrimSuffix(f, ".yaml")
		out = append(out, goldenCase{name: filepath.Base(base), cluster: f, golden: base + ".jsonl"})
	}
	// A configuration given apart from the cluster (oracle --config).
	out = append(out, goldenCase{
		name:    "resource-fit.mostallocated",
		cluster: filepath.Join("testdata", "oracle", "resource-fit.yaml"),
		config:  filepath.Join("testdata", "oracle", "config-mostallocated.config.yaml"),
		golden:  filepath.Join("testdata", "oracle", "resource-fit.mostallocated.jsonl"),
	})
	return out
}

// TestOracleGolden runs simulate on the oracle's examples and the shared
// scenarios and compares every line with the real kube-scheduler's trace.
func TestOracleGolden(t *testing.T) {
	reg := registry.InTree()
	for _, gc := range goldenCases(t) {
		t.Run(gc.name, func(t *testing.T) {
			if *update {
				args := []string{"place", "-f", gc.cluster}
				if gc.config != "" {
					args = append(args, "--config", gc.config)
				}
				out, err := exec.Command(*oraclePath, args...).Output()
				if err != nil {
					t.Fatalf("oracle: %v", err)
				}
				if err := os.WriteFile(gc.golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := readTrace(t, gc.golden)
			c, err := manifest.LoadFiles(gc.cluster)
			if err != nil {
				t.Fatal(err)
			}
			cfg := config.Default()
			raw := c.SchedulerConfig
			if gc.config != "" {
				if raw, err = os.ReadFile(gc.config); err != nil {
					t.Fatal(err)
				}
			}
			if raw != nil {
				if cfg, err = config.Load(raw); err != nil {
					t.Fatal(err)
				}
			}
			in := Input{Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces, Devices: c.Devices, Volumes: c.Volumes, Config: withoutMissing(cfg, reg)}
			lines, err := Run(context.Background(), in, Options{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]Line, len(lines))
			for i, l := range lines {
				got[i] = roundTrip(t, l)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("trace (-oracle +berth):\n%s", diff)
			}
			checkBytes(t, gc.golden, lines)
		})
	}
}

func readTrace(t *testing.T, path string) []Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Line
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for dec.More() {
		var l Line
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out
}

// roundTrip marshals a line and reads it back, so the comparison covers
// the JSON form (omitted empty fields).
func roundTrip(t *testing.T, l Line) Line {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var out Line
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkBytes requires the lines to marshal to the oracle's very bytes
// (field order included).
func checkBytes(t *testing.T, golden string, lines []Line) {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := string(data)
	var got strings.Builder
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(b)
		got.WriteByte('\n')
	}
	if diff := cmp.Diff(want, got.String()); diff != "" {
		t.Errorf("trace bytes (-oracle +berth):\n%s", diff)
	}
}
