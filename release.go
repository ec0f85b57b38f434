// Package berth is the root of the Berth repository: it holds only the
// release number of this tree, read from the VERSION file beside it (one
// number for berthd, berthctl and the Python and TypeScript packages;
// .ci/release-check checks that they agree). See CHANGELOG.md.
package berth

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var release string

// Release is this tree's release number, without a "v": "0.3.0".
func Release() string { return strings.TrimSpace(release) }
