package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/berthsched/berth/server/auth"
)

// /metrics is open without MetricsTokens (--metrics-auth none) and needs a
// bearer token of any scope with them (--metrics-auth token); /healthz is
// open either way, and the dashboard's paths are left to the dashboard.
func TestMetricsAuth(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("rw-secret\nro-secret read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }
	tests := []struct {
		name   string
		guard  bool // MetricsTokens set
		path   string
		header http.Header
		want   int
	}{
		{name: "none: metrics open", path: "/metrics", want: http.StatusOK},
		{name: "none: a token does no harm", path: "/metrics", header: bearer("nope"), want: http.StatusOK},
		{name: "none: healthz open", path: "/healthz", want: http.StatusOK},
		{name: "token: metrics without a token", guard: true, path: "/metrics", want: http.StatusUnauthorized},
		{name: "token: unknown token", guard: true, path: "/metrics", header: bearer("nope"), want: http.StatusUnauthorized},
		{name: "token: not a bearer", guard: true, path: "/metrics", header: http.Header{"Authorization": {"Basic cm8tc2VjcmV0"}}, want: http.StatusUnauthorized},
		{name: "token: read-only token", guard: true, path: "/metrics", header: bearer("ro-secret"), want: http.StatusOK},
		{name: "token: the scheme in any case", guard: true, path: "/metrics", header: http.Header{"Authorization": {"bearer ro-secret"}}, want: http.StatusOK},
		{name: "token: read-write token", guard: true, path: "/metrics", header: bearer("rw-secret"), want: http.StatusOK},
		{name: "token: healthz stays open for probes", guard: true, path: "/healthz", want: http.StatusOK},
		{name: "token: healthz of a service stays open", guard: true, path: "/healthz?service=berth.v1.StateService", want: http.StatusOK},
		{name: "token: the dashboard guards its own paths", guard: true, path: "/static/style.css", want: http.StatusTeapot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Dashboard: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })}
			if tt.guard {
				cfg.MetricsTokens = tokens
			}
			srv, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Header = tt.header
			if req.Header == nil {
				req.Header = http.Header{}
			}
			rec := httptest.NewRecorder()
			srv.httpHandler().ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("GET %s: status %d, want %d; body %q", tt.path, rec.Code, tt.want, rec.Body.String())
			}
			switch {
			case rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") != `Bearer realm="berthd"`:
				t.Errorf("401 with WWW-Authenticate %q", rec.Header().Get("WWW-Authenticate"))
			case rec.Code == http.StatusUnauthorized && strings.Contains(rec.Body.String(), "secret"):
				t.Errorf("the refusal names a token: %q", rec.Body.String())
			case rec.Code == http.StatusOK && tt.path == "/metrics" && !strings.Contains(rec.Body.String(), "go_goroutines"):
				t.Errorf("/metrics without the Go collector's metrics:\n%.300s", rec.Body.String())
			}
		})
	}
}
