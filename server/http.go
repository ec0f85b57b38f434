package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// httpHandler serves /metrics (the Prometheus text format), /healthz
// (200 "ok" while the gRPC server is serving, 503 otherwise; with
// ?service=NAME, while gRPC health reports that service SERVING, so that
// /healthz?service=berth.v1.StateService answers 200 on the leader only)
// and, if configured, the dashboard on every other path.
func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
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
