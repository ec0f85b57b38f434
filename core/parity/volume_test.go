package parity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// volumeDir holds the storage corpus: clusters/NAME.yaml and golden/NAME.jsonl.
var volumeDir = filepath.Join("testdata", "volumes")

// volumeCorpus is the random storage clusters: three to eight nodes, eight
// to twenty pending pods.
func volumeCorpus() map[string][]byte {
	out := map[string][]byte{}
	for s := uint64(1); s <= 40; s++ {
		out[fmt.Sprintf("volumes-%02d", s)] = GenerateVolumes(s, VolumeOptions{Nodes: 3 + int(s%6), Pods: 8 + int(s%13)})
	}
	for s := uint64(41); s <= 80; s++ {
		out[fmt.Sprintf("unbound-%02d", s)] = GenerateVolumes(s, VolumeOptions{Nodes: 3 + int(s%6), Pods: 8 + int(s%13), Unbound: true})
	}
	return out
}

// TestUpdateVolumeGolden regenerates the storage corpus and the oracle's
// traces with -update; otherwise it checks the committed clusters still
// match the generator.
func TestUpdateVolumeGolden(t *testing.T) {
	for name, data := range volumeCorpus() {
		clusterFile := filepath.Join(volumeDir, "clusters", name+".yaml")
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
			if err := os.MkdirAll(filepath.Join(volumeDir, d), 0o755); err != nil {
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
		if err := os.WriteFile(filepath.Join(volumeDir, "golden", name+".jsonl"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
