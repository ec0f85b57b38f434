package parity_test

import (
	"path/filepath"
	"testing"
)

// TestParityVolumes compares Berth's simulation with the real
// kube-scheduler's volume plugins (VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone) on the storage corpus: every line identical.
func TestParityVolumes(t *testing.T) {
	checkCorpus(t, filepath.Join("testdata", "volumes", "clusters"), filepath.Join("testdata", "volumes", "golden"))
}
