// Package version says which build of Berth a binary is, for berthd
// --version and berthctl version: the release (the VERSION file at the
// repository's root, package berth), the module version and the commit the Go
// toolchain stamps into binaries built from a git checkout (go build, go
// install), else the commit given at link time, for builds from a tree
// without a .git directory (the container image; a git worktree too, whose
// .git is a file the toolchain does not look at):
//
//	go build -ldflags "-X github.com/berthsched/berth/cmd/internal/version.commit=$(git rev-parse HEAD)" ./cmd/...
package version

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/berthsched/berth"
)

// commit is set only by the linker (-X); nothing assigns it at run time.
var commit string

// Info is one binary's build.
type Info struct {
	// Release is the release this tree is (VERSION): "0.3.0".
	Release string
	// Version is the main module's version: "(devel)" for a build from a
	// checkout, a tag for go install ...@version.
	Version string
	// Commit is the VCS revision, "" when unknown (go run, -buildvcs=false
	// without -X).
	Commit string
	// Modified says the checkout had uncommitted changes.
	Modified bool
	// GoVersion is the toolchain that built it.
	GoVersion string
}

// Get reads the running binary's build information.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Release: berth.Release(), Version: "(unknown)", Commit: commit}
	}
	info := fromBuildInfo(bi, commit)
	info.Release = berth.Release()
	return info
}

// fromBuildInfo prefers the toolchain's vcs.revision to the linked commit.
func fromBuildInfo(bi *debug.BuildInfo, linked string) Info {
	info := Info{Version: bi.Main.Version, Commit: linked, GoVersion: bi.GoVersion}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is one line: "v0.3.0 (devel), commit 0123456789ab (modified),
// go1.26.8"; "commit unknown" without one. The module version in
// parentheses is left out when it is the release's own tag (go install
// ...@v0.3.0).
func (i Info) String() string {
	var b strings.Builder
	if i.Release != "" {
		b.WriteString("v" + i.Release)
		if i.Version != "v"+i.Release {
			b.WriteString(" ")
		}
	}
	switch {
	case i.Release == "":
		b.WriteString(i.Version)
	case i.Version != "v"+i.Release:
		b.WriteString("(" + strings.Trim(i.Version, "()") + ")")
	}
	switch c := i.Commit; {
	case c == "":
		b.WriteString(", commit unknown")
	case len(c) > 12:
		fmt.Fprintf(&b, ", commit %s", c[:12])
	default:
		fmt.Fprintf(&b, ", commit %s", c)
	}
	if i.Modified {
		b.WriteString(" (modified)")
	}
	if i.GoVersion != "" {
		b.WriteString(", " + i.GoVersion)
	}
	return b.String()
}
