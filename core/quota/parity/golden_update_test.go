package parity

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	update     = flag.Bool("update", false, "regenerate testdata/scenarios and testdata/golden with the oracle")
	oraclePath = flag.String("oracle", "/tmp/kueueoracle", "path of the kueueoracle binary used by -update")
	only       = flag.String("only", "", "with -update: regenerate only the scenarios whose name starts with this, keeping the others")
)

// oracleRuns is how many identical oracle runs a scenario needs to enter
// the corpus (a two-way map-order tie survives five runs once in 16).
const oracleRuns = 5

// TestUpdateGolden writes every scenario and the oracle's output for it;
// scenarios whose output differs between oracle runs are left out.
func TestUpdateGolden(t *testing.T) {
	if !*update {
		t.Skip("regenerates the goldens only with -update")
	}
	for _, dir := range []string{"testdata/scenarios", "testdata/golden"} {
		if *only == "" {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for _, s := range Corpus() {
		if !strings.HasPrefix(s.Name, *only) {
			continue
		}
		path := filepath.Join("testdata/scenarios", s.Name+".yaml")
		if err := os.WriteFile(path, []byte(Generate(s.Seed, s.Opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		var first []byte
		stable := true
		for i := 0; i < oracleRuns && stable; i++ {
			out, err := exec.Command(*oraclePath, "admit", "-f", path).Output()
			if err != nil {
				// Kueue 0.17 panics in fair-sharing preemption for a
				// ClusterQueue without a cohort whose own workloads do
				// not free enough (a nil cohort in its target ordering):
				// such a scenario has no oracle answer.
				t.Logf("%s: the oracle failed (%v); left out", s.Name, err)
				stable, first = false, nil
				break
			}
			if i == 0 {
				first = out
			} else if !bytes.Equal(first, out) {
				stable = false
			}
		}
		if !stable {
			if first != nil {
				t.Logf("%s: the oracle's output varies between runs; left out", s.Name)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept++
		if err := os.WriteFile(filepath.Join("testdata/golden", s.Name+".jsonl"), first, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d scenarios kept", kept)
}
