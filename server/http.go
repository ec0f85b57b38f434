package server

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/berthsched/berth/server/auth"
)

// TokenScopes tells the scope of a bearer token, 0 for an unknown one;
// *auth.Tokens satisfies it.
type TokenScopes interface {
	Scope(token string) auth.Scope
}

// httpHandler serves /metrics (the Prometheus text format; behind
// s.metricsTokens when set), /healthz (200 "ok" while the gRPC server is
// serving, 503 otherwise; with ?service=NAME, while gRPC health reports
// that service SERVING, so that /healthz?service=berth.v1.StateService
// answers 200 on the leader only; never behind a token, for probes) and,
// if configured, the dashboard on every other path.
func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	var metrics http.Handler = promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{})
	if s.metricsTokens != nil {
		metrics = bearerOnly(s.metricsTokens, metrics)
	}
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		resp, err := s.health.Check(r.Context(), &healthpb.HealthCheckRequest{Service: r.URL.Query().Get("service")})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			http.Error(w, "not serving", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	if s.dashboard != nil {
		mux.Handle("/", s.dashboard)
	}
	return mux
}

// bearerOnly lets through the requests whose Authorization header holds
// "Bearer <token>" of a token tokens knows, read-only ones included (as
// Prometheus' authorization.credentials_file or bearer_token_file sends
// it; the scheme in any case, as gRPC's tokens are checked); it answers
// the others 401 without saying which tokens exist.
func bearerOnly(tokens TokenScopes, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || tokens.Scope(strings.TrimSpace(token)) < auth.ReadOnly {
			w.Header().Set("WWW-Authenticate", `Bearer realm="berthd"`)
			http.Error(w, `berthd runs with --metrics-auth token: send "Authorization: Bearer <token>" with a token of its --token-file`, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
