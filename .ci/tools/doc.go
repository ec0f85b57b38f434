// Package tools pins the Go tools CI runs (staticcheck), apart from the
// root module so that their dependencies never reach berthd's build.
// Run one with: go tool -modfile=.ci/tools/go.mod staticcheck ./...
package tools
