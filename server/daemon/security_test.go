package daemon

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/auth"
)

// Bearer tokens: none or a wrong one answers UNAUTHENTICATED, a read-only
// token watches but cannot write, health stays open.
func TestTokens(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("writer\nreader read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, Config{DataDir: t.TempDir(), Edge: server.Edge{Authorizer: tokens}})
	with := func(token string) context.Context {
		if token == "" {
			return t.Context()
		}
		return metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
	}
	if _, err := healthpb.NewHealthClient(e.conn).Check(t.Context(), &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Errorf("health without a token: %v", err)
	}
	apply := &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n1", 1000)}}
	tests := []struct {
		name      string
		token     string
		wantApply codes.Code
		wantWatch codes.Code
	}{
		{name: "no token", wantApply: codes.Unauthenticated, wantWatch: codes.Unauthenticated},
		{name: "wrong token", token: "guess", wantApply: codes.Unauthenticated, wantWatch: codes.Unauthenticated},
		{name: "read-only", token: "reader", wantApply: codes.PermissionDenied, wantWatch: codes.OK},
		{name: "read-write", token: "writer", wantApply: codes.OK, wantWatch: codes.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.state.Apply(with(tt.token), apply)
			if got := status.Code(err); got != tt.wantApply {
				t.Errorf("Apply: %v, want %v", err, tt.wantApply)
			}
			ctx, cancel := context.WithCancel(with(tt.token))
			defer cancel()
			stream, err := e.watch.Watch(ctx, &berthv1.WatchRequest{})
			if err == nil {
				_, err = stream.Recv()
			}
			if got := status.Code(err); got != tt.wantWatch {
				t.Errorf("Watch: %v, want %v", err, tt.wantWatch)
			}
		})
	}
}

// With a client CA, only clients presenting a certificate it signed get
// through.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	issue(t, ca, caKey, "server", filepath.Join(dir, "server"))
	clientCert := issue(t, ca, caKey, "client", filepath.Join(dir, "client"))
	files := auth.TLSFiles{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem"), ClientCA: filepath.Join(dir, "ca.pem")}
	creds, err := files.ServerOption(nil)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	withCert := credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost", Certificates: []tls.Certificate{clientCert}})
	e := start(t, Config{DataDir: dir, GRPCOptions: []grpc.ServerOption{creds}}, grpc.WithTransportCredentials(withCert))
	if _, err := healthpb.NewHealthClient(e.conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("health with a client certificate: %v", err)
	}

	target := e.conn.Target()
	for name, dc := range map[string]credentials.TransportCredentials{
		"no client certificate": credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost"}),
		"plaintext":             insecure.NewCredentials(),
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(dc))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); status.Code(err) != codes.Unavailable {
				t.Errorf("health: %v, want UNAVAILABLE (handshake refused)", err)
			}
		})
	}
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "berth test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// issue signs a certificate for localhost and 127.0.0.1, writes it to
// prefix.pem and its key to prefix-key.pem, and returns the pair.
func issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn, prefix string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, prefix+".pem", "CERTIFICATE", der)
	writePEM(t, prefix+"-key.pem", "PRIVATE KEY", keyDER)
	pair, err := tls.LoadX509KeyPair(prefix+".pem", prefix+"-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
