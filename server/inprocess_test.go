package server

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// A refused call is logged with its caller: the HTTP client's address for
// the HTTP API's in-process calls, the connection's for the others.
func TestCallerAddr(t *testing.T) {
	fwd := metadata.Pairs("x-forwarded-for", "192.0.2.7")
	tcp := &net.TCPAddr{IP: net.IPv4(198, 51, 100, 1), Port: 4242}
	for _, tc := range []struct {
		name string
		addr net.Addr
		md   metadata.MD
		want string
	}{
		{"in process", inProcessConn{}.RemoteAddr(), fwd, "192.0.2.7 (HTTP)"},
		{"in process, no header", inProcessAddr{}, nil, "in-process"},
		{"gRPC client claiming a forward", tcp, fwd, "198.51.100.1:4242"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: tc.addr})
			if got := callerAddr(ctx, tc.md); got != tc.want {
				t.Errorf("callerAddr = %q, want %q", got, tc.want)
			}
		})
	}
}
