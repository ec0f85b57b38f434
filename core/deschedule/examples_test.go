package deschedule_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/deschedule"
)

// TestOracleExamples runs descheduleroracle's own examples (copied with
// the oracle's recorded output into testdata/examples) and requires the
// same evictions in the same order. Budget refusals are compared by pod
// only (the texts are the API server's). Examples the oracle runs in other
// eviction modes (--evicted terminating, --pdb ignore) are not copied:
// Berth's pass is the default mode's.
func TestOracleExamples(t *testing.T) {
	names, _ := filepath.Glob("testdata/examples/*.yaml")
	if len(names) < 12 {
		t.Fatalf("%d examples; want at least 12", len(names))
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			pol, c, err := load(t, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := deschedule.Run(pol, c, oracleNow)
			if err != nil {
				t.Fatal(err)
			}
			want, sum := readOracle(t, strings.TrimSuffix(path, ".yaml")+".expect.jsonl")
			got := linesOf(res)
			for i := range want {
				if want[i].Refused != "" {
					want[i].Refused = "refused"
				}
			}
			for i := range got {
				if got[i].Refused != "" {
					got[i].Refused = "refused"
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("evictions (-oracle +berth):\n%s", d)
			}
			limits := 0
			for _, n := range sum.LimitRefusals {
				limits += n
			}
			if len(res.LimitRefusals) != limits {
				t.Errorf("limit refusals: berth %d, oracle %d (%v)", len(res.LimitRefusals), limits, sum.LimitRefusals)
			}
			if res.Skipped != sum.Skipped {
				t.Errorf("skipped: berth %v, oracle %v", res.Skipped, sum.Skipped)
			}
		})
	}
}
