package parity

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var (
	update     = flag.Bool("update", false, "regenerate testdata/clusters and testdata/golden with the oracle")
	oraclePath = flag.String("oracle", "/tmp/kubeoracle", "path of the kubeoracle binary used by -update")
)

// corpus is the set of random clusters parity is measured on.
func corpus() []struct {
	name string
	seed uint64
	opts GenOptions
} {
	var out []struct {
		name string
		seed uint64
		opts GenOptions
	}
	for s := uint64(1); s <= 20; s++ {
		out = append(out, struct {
			name string
			seed uint64
			opts GenOptions
		}{fmt.Sprintf("mixed-%02d", s), s, GenOptions{Nodes: 15, RunningPods: 12, PendingPods: 30}})
	}
	for s := uint64(101); s <= 110; s++ {
		out = append(out, struct {
			name string
			seed uint64
			opts GenOptions
		}{fmt.Sprintf("preempt-%03d", s), s, GenOptions{Nodes: 6, RunningPods: 24, PendingPods: 16, Preemption: true}})
	}
	for s := uint64(201); s <= 215; s++ {
		out = append(out, struct {
			name string
			seed uint64
			opts GenOptions
		}{fmt.Sprintf("varied-%03d", s), s, GenOptions{Nodes: 6, RunningPods: 24, PendingPods: 16, Preemption: true, Varied: true}})
	}
	// Two crowded nodes: preemptions follow one another on the same node,
	// among many equally important victims whose order earlier removals
	// changed.
	for s := uint64(301); s <= 320; s++ {
		out = append(out, struct {
			name string
			seed uint64
			opts GenOptions
		}{fmt.Sprintf("crowded-%03d", s), s, GenOptions{Nodes: 2, RunningPods: 24, PendingPods: 16, Preemption: true, Varied: true}})
	}
	return out
}

// TestUpdateGolden regenerates the corpus and the oracle's traces when run
// with -update; otherwise it checks the committed clusters still match the
// generator, so a generator change cannot silently desync the goldens.
func TestUpdateGolden(t *testing.T) {
	for _, c := range corpus() {
		data, err := Generate(c.seed, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		clusterFile := filepath.Join("testdata", "clusters", c.name+".yaml")
		goldenFile := filepath.Join("testdata", "golden", c.name+".jsonl")
		if !*update {
			have, err := os.ReadFile(clusterFile)
			if err != nil {
				t.Fatalf("%s: %v (run with -update)", c.name, err)
			}
			if string(have) != string(data) {
				t.Errorf("%s: the generator no longer produces the committed cluster; run with -update", c.name)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(clusterFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(clusterFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(*oraclePath, "place", "-f", clusterFile).Output()
		if err != nil {
			t.Fatalf("%s: oracle: %v", c.name, err)
		}
		if err := os.WriteFile(goldenFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// imageCorpus is the ImageLocality corpus (testdata/images): nodes
// holding images, pods using them; some with preemption.
func imageCorpus() []corpusCase {
	var out []corpusCase
	for s := uint64(401); s <= 415; s++ {
		out = append(out, corpusCase{fmt.Sprintf("images-%03d", s), s, GenOptions{Nodes: 15, RunningPods: 12, PendingPods: 30, Images: true}})
	}
	for s := uint64(451); s <= 455; s++ {
		out = append(out, corpusCase{fmt.Sprintf("images-preempt-%03d", s), s, GenOptions{Nodes: 6, RunningPods: 24, PendingPods: 16, Preemption: true, Images: true}})
	}
	return out
}

type corpusCase struct {
	name string
	seed uint64
	opts GenOptions
}

// TestUpdateImagesGolden is TestUpdateGolden for the image corpus.
func TestUpdateImagesGolden(t *testing.T) {
	dir := filepath.Join("testdata", "images")
	for _, c := range imageCorpus() {
		data, err := Generate(c.seed, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		syncGolden(t, c.name, data, filepath.Join(dir, "clusters", c.name+".yaml"), filepath.Join(dir, "golden", c.name+".jsonl"))
	}
}

// syncGolden writes a generated cluster and the oracle's trace of it with
// -update; without, it checks the committed cluster is what the generator
// makes.
func syncGolden(t *testing.T, name string, data []byte, clusterFile, goldenFile string) {
	t.Helper()
	if !*update {
		have, err := os.ReadFile(clusterFile)
		if err != nil {
			t.Fatalf("%s: %v (run with -update)", name, err)
		}
		if string(have) != string(data) {
			t.Errorf("%s: the generator no longer produces the committed cluster; run with -update", name)
		}
		return
	}
	for _, f := range []string{clusterFile, goldenFile} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(clusterFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(*oraclePath, "place", "-f", clusterFile).Output()
	if err != nil {
		t.Fatalf("%s: oracle: %v", name, err)
	}
	if err := os.WriteFile(goldenFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
