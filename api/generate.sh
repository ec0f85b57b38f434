#!/usr/bin/env bash
# Regenerates the Go code of the berth.v1 API (api/berth/v1/*.pb.go) from
# api/berth/v1/*.proto, and from them and the HTTP mapping api/http.yaml
# the HTTP/JSON gateway (server/httpapi/gw) and its OpenAPI document
# (server/httpapi/openapi/berth.swagger.json). Runs from any directory and needs only Go: buf and
# the protoc plugins are pinned Go tools (api/tools/go.mod and
# api/tools/plugins/go.mod), fetched through the Go module proxy on first use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

buf() { go tool -modfile=api/tools/go.mod buf "$@"; }

# Generated files of protos that were deleted or renamed must go too.
find api/berth -name '*.pb.go' -delete
rm -rf server/httpapi/gw server/httpapi/openapi/berth.swagger.json
buf generate
