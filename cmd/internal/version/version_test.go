package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		bi     debug.BuildInfo
		linked string
		want   Info
		line   string
	}{
		{
			name: "stamped by the toolchain",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")},
			linked: "ignored",
			want:   Info{Version: "(devel)", Commit: "0123456789abcdef0123", Modified: true, GoVersion: "go1.26.8"},
			line:   "(devel), commit 0123456789ab (modified), go1.26.8",
		},
		{
			name:   "linked commit without vcs information",
			bi:     debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			linked: "abc123",
			want:   Info{Version: "v1.2.0", Commit: "abc123", GoVersion: "go1.26.8"},
			line:   "v1.2.0, commit abc123, go1.26.8",
		},
		{
			name: "nothing known",
			bi:   debug.BuildInfo{GoVersion: "go1.26.8"},
			want: Info{Version: "(devel)", GoVersion: "go1.26.8"},
			line: "(devel), commit unknown, go1.26.8",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromBuildInfo(&tc.bi, tc.linked)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.String() != tc.line {
				t.Errorf("String() = %q, want %q", got.String(), tc.line)
			}
		})
	}
}
