package auth

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestParseTokens(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    map[string]Scope
		wantErr bool
	}{
		{
			name: "scopes, comments and blank lines",
			file: "# admins\nalpha\n\n  beta read-only  \ngamma read-write\n",
			want: map[string]Scope{"alpha": ReadWrite, "beta": ReadOnly, "gamma": ReadWrite, "delta": 0},
		},
		{name: "unknown scope", file: "alpha admin\n", wantErr: true},
		{name: "too many fields", file: "alpha read-only extra\n", wantErr: true},
		{name: "empty", file: "# nothing\n\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := ParseTokens(strings.NewReader(tt.file))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			for token, want := range tt.want {
				if got := tok.scope(token); got != want {
					t.Errorf("scope(%q) = %v, want %v", token, got, want)
				}
			}
		})
	}
	if _, err := ParseTokens(strings.NewReader("")); !errors.Is(err, ErrNoTokens) {
		t.Errorf("empty file: %v, want ErrNoTokens", err)
	}
}

func TestAuthorize(t *testing.T) {
	tok, err := ParseTokens(strings.NewReader("rw\nro read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		health = "/grpc.health.v1.Health/Check"
		apply  = "/berth.v1.StateService/Apply"
		watch  = "/berth.v1.DecisionService/Watch"
		refl   = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
		evict  = "/berth.v1.EvictionService/EvictPod"
		stats  = "/berth.v1.StatsService/ReportNodeStats"
		// Reads of the services that otherwise change state.
		pressure = "/berth.v1.StatsService/GetNodePressure"
		nodePods = "/berth.v1.EvictionService/ListNodePods"
	)
	tests := []struct {
		name   string
		method string
		header string // authorization; "" sends none
		want   codes.Code
	}{
		{name: "health needs nothing", method: health, want: codes.OK},
		{name: "no token", method: watch, want: codes.Unauthenticated},
		{name: "not bearer", method: watch, header: "Basic cnc=", want: codes.Unauthenticated},
		{name: "wrong token", method: watch, header: "Bearer nope", want: codes.Unauthenticated},
		{name: "read-only watches", method: watch, header: "Bearer ro", want: codes.OK},
		{name: "read-only reflects", method: refl, header: "Bearer ro", want: codes.OK},
		{name: "read-only cannot write", method: apply, header: "Bearer ro", want: codes.PermissionDenied},
		{name: "read-write writes", method: apply, header: "Bearer rw", want: codes.OK},
		{name: "read-only cannot evict", method: evict, header: "Bearer ro", want: codes.PermissionDenied},
		{name: "read-write evicts", method: evict, header: "Bearer rw", want: codes.OK},
		{name: "read-only cannot report stats", method: stats, header: "Bearer ro", want: codes.PermissionDenied},
		{name: "read-only reads node pressure", method: pressure, header: "Bearer ro", want: codes.OK},
		{name: "read-only lists a node's pods", method: nodePods, header: "Bearer ro", want: codes.OK},
		{name: "node pressure needs a token", method: pressure, want: codes.Unauthenticated},
		{name: "read-write watches", method: watch, header: "Bearer rw", want: codes.OK},
		{name: "scheme in lower case", method: apply, header: "bearer rw", want: codes.OK},
		{name: "scheme in upper case", method: watch, header: "BEARER ro", want: codes.OK},
		{name: "scheme without token", method: watch, header: "Bearer", want: codes.Unauthenticated},
		{name: "token alone", method: watch, header: "rw", want: codes.Unauthenticated},
	}
	var none *Tokens
	if err := none.Authorize(t.Context(), apply, nil); err != nil {
		t.Errorf("no tokens: %v, want every call let in", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var md metadata.MD
			if tt.header != "" {
				md = metadata.Pairs("authorization", tt.header)
			}
			if got := status.Code(tok.Authorize(t.Context(), tt.method, md)); got != tt.want {
				t.Errorf("code %v, want %v", got, tt.want)
			}
		})
	}
}
