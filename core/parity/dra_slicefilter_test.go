package parity_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

// TestDeviceSliceFilterUnchanged replays the DRA parity corpus and random
// DRA clusters with the slice filter (core/dra filter.go: slices without
// the devices no request matches, claims without selectors where every
// device left matches) and the node memo (nodememo.go: the allocator's
// answer given again on an unchanged node) on and off, and requires
// identical traces: placements, per-node reasons, scores, messages,
// claims and devices.
func TestDeviceSliceFilterUnchanged(t *testing.T) {
	attempts := 0
	clusters, err := filepath.Glob(filepath.Join("testdata", "dra", "clusters", "*.yaml"))
	if err != nil || len(clusters) == 0 {
		t.Fatalf("no DRA corpus: %v", err)
	}
	for i, cluster := range clusters {
		if i%raceStride != 0 {
			continue
		}
		c, err := manifest.LoadFiles(cluster)
		if err != nil {
			t.Fatalf("%s: %v", cluster, err)
		}
		name := strings.TrimSuffix(filepath.Base(cluster), ".yaml")
		attempts += compareSliceFilter(t, name, c, nil)
	}
	seeds := uint64(40)
	if raceDetector {
		seeds = 4
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		name := fmt.Sprintf("slicefilter-seed%d", seed)
		data := parity.GenerateDRA(7000+seed, parity.DRAOptions{Nodes: 4 + int(seed%12), Pods: 12 + int(seed%25)})
		c, err := manifest.Decode(name+".yaml", data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, pct := range []int32{0, 100} {
			attempts += compareSliceFilter(t, fmt.Sprintf("%s, percentage %d", name, pct), c, &pct)
		}
	}
	if attempts < 500 && !raceDetector {
		t.Errorf("only %d attempts compared", attempts)
	}
}

// compareSliceFilter simulates c with every device shortcut, without the
// slice filter, without the node memo, and without any (kube's path), and
// reports where the traces differ; it returns the number of attempts
// compared.
func compareSliceFilter(t *testing.T, name string, c *manifest.Cluster, pct *int32) int {
	t.Helper()
	reg := registry.InTree()
	cfg := config.Default()
	if c.SchedulerConfig != nil {
		var err error
		if cfg, err = config.Load(c.SchedulerConfig); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	withoutUnregistered(cfg, reg)
	run := func(noFilter, noMemo, noPrecheck bool) []simulate.Line {
		in := simulate.Input{Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces, Devices: c.Devices, Volumes: c.Volumes, Config: cfg}
		opts := simulate.Options{Registry: reg, PercentageOfNodesToScore: pct, NoDeviceSliceFilter: noFilter, NoDeviceNodeMemo: noMemo, NoDevicePrecheck: noPrecheck}
		lines, err := simulate.Run(context.Background(), in, opts)
		if err != nil {
			t.Fatalf("%s (slice filter off %v, node memo off %v, precheck off %v): %v", name, noFilter, noMemo, noPrecheck, err)
		}
		return lines
	}
	with := run(false, false, false)
	if diff := cmp.Diff(run(true, false, false), with); diff != "" {
		t.Errorf("%s: traces differ with the slice filter (-without +with):\n%s", name, diff)
	}
	if diff := cmp.Diff(run(false, true, false), with); diff != "" {
		t.Errorf("%s: traces differ with the node memo (-without +with):\n%s", name, diff)
	}
	if diff := cmp.Diff(run(true, true, true), with); diff != "" {
		t.Errorf("%s: traces differ with every device shortcut (-kube's path +shortcuts):\n%s", name, diff)
	}
	return len(with)
}
