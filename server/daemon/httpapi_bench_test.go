package daemon

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// The HTTP API's overhead over gRPC on the same calls of a live daemon:
// an Apply of 100 nodes (re-sent each time: the orchestrator's periodic
// upserts) and an Explain of a bound pod. Compare the gRPC and http
// sub-benchmarks' medians (go test -bench HTTPOverhead -count 5).
func BenchmarkHTTPOverhead(b *testing.B) {
	h := startHTTP(b, Config{DataDir: b.TempDir()}, nil)
	state := berthv1.NewStateServiceClient(h.conn)
	admin := berthv1.NewAdminServiceClient(h.conn)
	apply := &berthv1.ApplyRequest{}
	for i := range 100 {
		apply.Objects = append(apply.Objects, nodeObj(fmt.Sprintf("n%03d", i), 4000))
	}
	apply.Objects = append(apply.Objects, podObj(podWire("web", 100, withNode("n000"))))
	applyJSON, err := protojson.Marshal(apply)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := state.Apply(b.Context(), apply); err != nil {
		b.Fatal(err)
	}
	explain := &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "web"}}

	post := func(b *testing.B, method, path, body string) {
		req, err := http.NewRequestWithContext(b.Context(), method, h.base+path, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d", method, path, resp.StatusCode)
		}
	}
	b.Run("apply-100-nodes/grpc", func(b *testing.B) {
		for b.Loop() {
			if _, err := state.Apply(b.Context(), apply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apply-100-nodes/http", func(b *testing.B) {
		for b.Loop() {
			post(b, "POST", "/v1/state:apply", string(applyJSON))
		}
	})
	b.Run("explain/grpc", func(b *testing.B) {
		for b.Loop() {
			if _, err := admin.Explain(b.Context(), explain); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("explain/http", func(b *testing.B) {
		for b.Loop() {
			post(b, "GET", "/v1/pods/default/web:explain", "")
		}
	})
}
