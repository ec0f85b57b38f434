package main

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A RESOURCE_EXHAUSTED is worded by its reason: a simulation limit is not
// a request too large for --batch-size to help.
func TestRPCErrorResourceExhausted(t *testing.T) {
	limit, err := status.New(codes.ResourceExhausted, "the simulation made 3000 attempts, the most --simulate-max-attempts allows").
		WithDetails(&errdetails.ErrorInfo{Reason: "SIMULATION_LIMIT", Domain: "berth"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		err      error
		want     string
		dontWant string
	}{
		{"simulation limit", limit.Err(), "refused the simulation: the simulation made 3000 attempts", "--batch-size"},
		{"request too large", status.Error(codes.ResourceExhausted, "request of 9 MiB over 4 MiB"), "try a smaller --batch-size", "simulation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rpcError(context.Background(), tc.err, "127.0.0.1:7070", "").Error()
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.dontWant) {
				t.Errorf("rpcError = %q, want it to say %q and not %q", got, tc.want, tc.dontWant)
			}
			if code := exitCode(rpcError(context.Background(), tc.err, "127.0.0.1:7070", "")); code != exitFailed {
				t.Errorf("exit code %d, want %d", code, exitFailed)
			}
		})
	}
}
