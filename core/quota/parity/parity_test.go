package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

func berthLines(t *testing.T, path string) []string {
	t.Helper()
	c, err := manifest.LoadFiles(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lines, _, err := admission.Run(context.Background(), c.Queueing, c.Namespaces)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
		out[i] = strings.TrimSpace(b.String())
	}
	return out
}

// TestParity holds Berth to kueueoracle on the generated corpus, line by
// line (one line per workload).
func TestParity(t *testing.T) {
	scenarios, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(scenarios) == 0 {
		t.Fatal("no scenarios: run TestUpdateGolden -update")
	}
	same, total, checked := 0, 0, 0
	for i, path := range scenarios {
		if raceDetector && i%raceStride != 0 {
			continue
		}
		checked++
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		data, err := os.ReadFile(filepath.Join("testdata/golden", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSpace(string(data)), "\n")
		got := berthLines(t, path)
		for i := range want {
			total++
			if i < len(got) && got[i] == want[i] {
				same++
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: differs from the oracle (-oracle +berth):\n%s", name, d)
		}
	}
	t.Logf("identical workload lines: %d/%d in %d of %d scenarios", same, total, checked, len(scenarios))
}
