package admission_test

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

// runFile admits a manifest's workloads and returns the JSON lines.
func runFile(t *testing.T, path string) []string {
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

func readGolden(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// TestOracleExamples holds Berth to kueueoracle's output on its own
// examples (the .expect.jsonl files are the oracle's real output).
func TestOracleExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			got := runFile(t, f)
			want := readGolden(t, strings.TrimSuffix(f, ".yaml")+".expect.jsonl")
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("lines differ from the oracle (-oracle +berth):\n%s", d)
			}
		})
	}
}
