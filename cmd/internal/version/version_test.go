package version

import (
	"os"
	"regexp"
	"runtime/debug"
	"strings"
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

func TestStringWithRelease(t *testing.T) {
	for _, tc := range []struct {
		info Info
		want string
	}{
		{Info{Release: "0.3.0", Version: "(devel)", Commit: "0123456789abcdef", GoVersion: "go1.26.8"}, "v0.3.0 (devel), commit 0123456789ab, go1.26.8"},
		{Info{Release: "0.3.0", Version: "v0.3.0", Commit: "abc"}, "v0.3.0, commit abc"},
		{Info{Release: "0.3.0", Version: "v0.2.0"}, "v0.3.0 (v0.2.0), commit unknown"},
	} {
		if got := tc.info.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.info, got, tc.want)
		}
	}
}

// The release is the VERSION file's.
func TestRelease(t *testing.T) {
	b, err := os.ReadFile("../../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Get().Release, strings.TrimSpace(string(b)); got != want || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(got) {
		t.Errorf("Release %q, want VERSION's %q, a semantic version X.Y.Z", got, want)
	}
}
