package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// countingBody counts the bytes a handler reads of a request body.
type countingBody struct {
	r    *strings.Reader
	read int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *countingBody) Close() error { return nil }

// A request the preflight refuses is answered before any of its body is
// read, on every kind of route; one it admits goes on to the gateway.
func TestPreflightRefusesBeforeTheBody(t *testing.T) {
	var seen []string
	api, err := New(Config{
		Dial: func(context.Context) (net.Conn, error) { return nil, net.ErrClosed },
		Preflight: func(_ context.Context, md metadata.MD) error {
			seen = append(seen, strings.Join(md.Get("authorization"), ","))
			if len(md.Get("authorization")) == 0 {
				return status.Error(codes.Unauthenticated, "missing bearer token")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path, auth string
		wantCode                 int
		wantRead                 bool
	}{
		{"apply without a token", http.MethodPost, "/v1/state:apply", "", http.StatusUnauthorized, false},
		{"sync without a token", http.MethodPost, SyncPath, "", http.StatusUnauthorized, false},
		{"openapi is open", http.MethodGet, "/openapi.json", "", http.StatusOK, false},
		{"apply with a token goes on", http.MethodPost, "/v1/state:apply", "Bearer t", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &countingBody{r: strings.NewReader(`{"objects":[]}`)}
			req := httptest.NewRequest(tt.method, tt.path, body)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			api.Handler().ServeHTTP(rec, req)
			if tt.wantCode != 0 && rec.Code != tt.wantCode {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}
			if got := body.read > 0; got != tt.wantRead {
				t.Errorf("body read = %v (%d bytes), want %v", got, body.read, tt.wantRead)
			}
		})
	}
	if want := []string{"", "", "Bearer t"}; strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("preflight saw %q, want %q", seen, want)
	}
}
