package fieldpath_test

import (
	"testing"

	"github.com/berthsched/berth/core/fieldpath"
)

func TestJoin(t *testing.T) {
	tests := []struct {
		name, p, rel, want string
	}{
		{"both empty", "", "", ""},
		{"no relative part", "pods[2]", "", "pods[2]"},
		{"no prefix", "", "containers[0].name", "containers[0].name"},
		{"a field", "pods[2]", "containers[0].name", "pods[2].containers[0].name"},
		{"an index", "pods", "[2].name", "pods[2].name"},
		{"a key", "labels", "[app]", "labels[app]"},
		{"a key in a nested field", "profiles[0].pluginConfig[1].args", "scoringStrategy.resources[0]", "profiles[0].pluginConfig[1].args.scoringStrategy.resources[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldpath.Join(tt.p, tt.rel); got != tt.want {
				t.Errorf("Join(%q, %q) = %q, want %q", tt.p, tt.rel, got, tt.want)
			}
		})
	}
}
