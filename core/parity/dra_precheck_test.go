package parity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

// TestDevicePrecheckUnchanged runs random DRA clusters (larger than the
// golden corpus, so nodes fill up) with and without the device precheck
// (core/dra precheck.go) and requires identical traces: ruling a node out
// before the allocator must give the allocator's own answer.
func TestDevicePrecheckUnchanged(t *testing.T) {
	seeds := uint64(60)
	if raceDetector {
		seeds = 6
	}
	attempts := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		name := fmt.Sprintf("precheck-seed%d", seed)
		data := parity.GenerateDRA(5000+seed, parity.DRAOptions{Nodes: 4 + int(seed%12), Pods: 12 + int(seed%25)})
		c, err := manifest.Decode(name+".yaml", data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, pct := range []int32{0, 100} {
			run := func(off bool) []simulate.Line {
				in := simulate.Input{Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces, Devices: c.Devices}
				lines, err := simulate.Run(context.Background(), in, simulate.Options{Registry: registry.InTree(), PercentageOfNodesToScore: &pct, NoDevicePrecheck: off})
				if err != nil {
					t.Fatalf("%s (precheck off %v): %v", name, off, err)
				}
				return lines
			}
			with, without := run(false), run(true)
			attempts += len(with)
			if diff := cmp.Diff(without, with); diff != "" {
				t.Errorf("%s, percentage %d: traces differ with the precheck (-without +with):\n%s", name, pct, diff)
			}
		}
	}
	if attempts < 500 && !raceDetector {
		t.Errorf("only %d attempts compared", attempts)
	}
}
