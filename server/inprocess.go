package server

import (
	"context"
	"net"
	"sync"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// inProcess is a listener whose connections are dialed from within berthd
// (the HTTP API's, server/httpapi): in-memory pipes to the gRPC server, so
// that HTTP calls pass every check gRPC calls pass.
type inProcess struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newInProcess() *inProcess {
	return &inProcess{conns: make(chan net.Conn), done: make(chan struct{})}
}

// inProcessConn is the server's end of an in-process connection. Only
// inProcess makes them, so only they skip TLS (trustInProcess).
type inProcessConn struct{ net.Conn }

// The addresses say where the call came from (a pipe's say "pipe").
func (inProcessConn) LocalAddr() net.Addr  { return inProcessAddr{} }
func (inProcessConn) RemoteAddr() net.Addr { return inProcessAddr{} }

// Dial opens a connection to the listener's server.
func (l *inProcess) Dial(ctx context.Context) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- inProcessConn{srv}:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	_ = client.Close()
	_ = srv.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, net.ErrClosed
}

func (l *inProcess) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *inProcess) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *inProcess) Addr() net.Addr { return inProcessAddr{} }

type inProcessAddr struct{}

func (inProcessAddr) Network() string { return "in-process" }
func (inProcessAddr) String() string  { return "in-process" }

// trustInProcess is the gRPC server's TLS, but for the in-process
// connections, which never leave berthd: the HTTP API's listener does TLS
// (and verifies client certificates) for them with the same configuration.
type trustInProcess struct {
	credentials.TransportCredentials
}

func (c trustInProcess) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if _, ok := conn.(inProcessConn); ok {
		return insecure.NewCredentials().ServerHandshake(conn)
	}
	return c.TransportCredentials.ServerHandshake(conn)
}

func (c trustInProcess) Clone() credentials.TransportCredentials {
	return trustInProcess{c.TransportCredentials.Clone()}
}
