package parity

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// draDir holds the DRA corpus: clusters/NAME.yaml and golden/NAME.jsonl.
var draDir = filepath.Join("testdata", "dra")

// draCorpus is the random DRA clusters: two to six nodes, six to
// fourteen pending pods.
func draCorpus() map[string][]byte {
	out := map[string][]byte{}
	for s := uint64(1); s <= 50; s++ {
		out[fmt.Sprintf("dra-%02d", s)] = GenerateDRA(s, DRAOptions{Nodes: 2 + int(s%5), Pods: 6 + int(s%9)})
	}
	return out
}

var sharedDir = flag.String("shared", "/work/shared", "the shared directory holding kubeoracle's examples and the scenarios, read by -update")

// draShared are the DRA clusters of kubeoracle's examples and of the
// shared scenarios (paths under -shared), copied into the corpus by
// -update.
var draShared = map[string]string{
	"example-dra":                 "kubeoracle/examples/dra.yaml",
	"scenario-dra-01-attributes":  "scenarios/dra/dra-01-attributes-cel.yaml",
	"scenario-dra-03-shared":      "scenarios/dra/dra-03-shared-claim.yaml",
	"scenario-dra-10-deallocated": "scenarios/dra/dra-10-postfilter-deallocation.yaml",
}

// TestUpdateDRAGolden regenerates the DRA corpus and the oracle's traces
// with -update; otherwise it checks the committed random clusters still
// match the generator.
func TestUpdateDRAGolden(t *testing.T) {
	clusters := draCorpus()
	if *update {
		for name, src := range draShared {
			data, err := os.ReadFile(filepath.Join(*sharedDir, src))
			if err != nil {
				t.Fatal(err)
			}
			clusters[name] = data
		}
	}
	for name, data := range clusters {
		clusterFile := filepath.Join(draDir, "clusters", name+".yaml")
		if !*update {
			have, err := os.ReadFile(clusterFile)
			if err != nil {
				t.Fatalf("%s: %v (run with -update)", name, err)
			}
			if string(have) != string(data) {
				t.Errorf("%s: the generator no longer produces the committed cluster; run with -update", name)
			}
			continue
		}
		for _, d := range []string{"clusters", "golden"} {
			if err := os.MkdirAll(filepath.Join(draDir, d), 0o755); err != nil {
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
		if err := os.WriteFile(filepath.Join(draDir, "golden", name+".jsonl"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
