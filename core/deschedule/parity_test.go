package deschedule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/model"
)

// TestOracleParity holds Berth's pass to the real Descheduler's on the
// generated corpus (testdata/gen.py, recorded by testdata/record.sh).
// Evictions are compared in order; where the Descheduler's pick among tied
// candidates follows Go map order (its README's advice), a scenario passes
// with the same number of evictions per strategy and node and per strategy
// and owner (per node only where the oracle's repeated runs disagree).
// The log reports, per corpus family, the scenarios identical in
// order and the evictions identical by pod against the oracle's total.
func TestOracleParity(t *testing.T) {
	policies, _ := filepath.Glob("testdata/corpus/*.policy.yaml")
	if len(policies) < 200 {
		t.Fatalf("corpus has %d scenarios; want at least 200 (run testdata/gen.py and testdata/record.sh)", len(policies))
	}
	type tally struct{ scenarios, exact, same, evictions int }
	tallies := map[string]*tally{}
	for i, path := range policies {
		if raceDetector && i%5 != 0 {
			continue
		}
		base := strings.TrimSuffix(path, ".policy.yaml")
		name := filepath.Base(base)
		family := name[:strings.LastIndex(name, "-")]
		if tallies[family] == nil {
			tallies[family] = &tally{}
		}
		tl := tallies[family]
		t.Run(name, func(t *testing.T) {
			polData, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pol, c, err := load(t, base+".yaml", polData)
			if err != nil {
				t.Fatal(err)
			}
			res, err := deschedule.Run(pol, c, oracleNow)
			if err != nil {
				t.Fatal(err)
			}
			want, sum := readOracle(t, base+".oracle.jsonl")
			got := linesOf(res)
			normalize(want)
			normalize(got)
			tl.scenarios++
			tl.evictions += evicted(want)
			tl.same += samePods(want, got)
			if cmp.Equal(want, got) {
				tl.exact++
				return
			}
			owner := ownersByPod(c.Pods)
			keys := []func(l oracleLine) string{
				func(l oracleLine) string { return l.Strategy + " on " + l.Node + refusedTag(l) },
				func(l oracleLine) string { return l.Strategy + " of " + owner[l.Pod] + refusedTag(l) },
			}
			if !sum.RepeatsAgree {
				// The oracle's own runs disagree (a limit cut an order the
				// Descheduler takes from a Go map): only the counts per node
				// are its answer.
				keys = keys[:1]
			}
			for _, key := range keys {
				if d := cmp.Diff(countBy(want, key), countBy(got, key)); d != "" {
					t.Errorf("evictions counted (-oracle +berth):\n%s\noracle: %v\nberth:  %v", d, want, got)
					return
				}
			}
		})
	}
	families := make([]string, 0, len(tallies))
	for f := range tallies {
		families = append(families, f)
	}
	sort.Strings(families)
	for _, f := range families {
		tl := tallies[f]
		t.Logf("%-13s %3d scenarios, %3d identical in order; evictions identical by pod %d/%d", f, tl.scenarios, tl.exact, tl.same, tl.evictions)
	}
}

func refusedTag(l oracleLine) string {
	if l.Refused != "" {
		return " (refused)"
	}
	return ""
}

func normalize(lines []oracleLine) {
	for i := range lines {
		if lines[i].Refused != "" {
			lines[i].Refused = "refused"
		}
	}
}

func evicted(lines []oracleLine) int {
	n := 0
	for _, l := range lines {
		if l.Refused == "" {
			n++
		}
	}
	return n
}

// samePods counts the oracle's evictions Berth makes too (same pod, same
// strategy).
func samePods(want, got []oracleLine) int {
	have := map[string]int{}
	for _, l := range got {
		if l.Refused == "" {
			have[l.Pod+" "+l.Strategy]++
		}
	}
	n := 0
	for _, l := range want {
		if k := l.Pod + " " + l.Strategy; l.Refused == "" && have[k] > 0 {
			have[k]--
			n++
		}
	}
	return n
}

func countBy(lines []oracleLine, key func(oracleLine) string) map[string]int {
	out := map[string]int{}
	for _, l := range lines {
		out[key(l)]++
	}
	return out
}

func ownersByPod(pods []*model.Pod) map[string]string {
	out := map[string]string{}
	for _, p := range pods {
		o := "bare"
		if p.Runtime != nil && len(p.Runtime.Owners) > 0 {
			o = fmt.Sprintf("%s %s/%s", p.Runtime.Owners[0].Kind, p.Namespace, p.Runtime.Owners[0].Name)
		}
		out[p.Key()] = o
	}
	return out
}
