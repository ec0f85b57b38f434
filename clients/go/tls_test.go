package berth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// testCA issues certificates for TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
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
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue returns a leaf certificate for cn, for a server (with cn as its DNS
// name) or a client.
func (ca *testCA) issue(t *testing.T, cn string, server bool) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.DNSNames = []string{cn}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// seenCall is what the TLS server saw of one call.
type seenCall struct {
	ClientCN      string
	Authorization []string
}

// recordCalls is a server option sending what the server saw of each unary
// call to seen.
func recordCalls(seen chan<- seenCall) grpc.ServerOption {
	return grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		var sc seenCall
		if p, ok := peer.FromContext(ctx); ok {
			if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.PeerCertificates) > 0 {
				sc.ClientCN = ti.State.PeerCertificates[0].Subject.CommonName
			}
		}
		md, _ := metadata.FromIncomingContext(ctx)
		sc.Authorization = md.Get("authorization")
		seen <- sc
		return h(ctx, req)
	})
}

// TestDialTLS runs a StateService behind TLS that requires a client
// certificate (berthd's --tls-client-ca) and dials it with WithTLS.
func TestDialTLS(t *testing.T) {
	ca := newTestCA(t)
	serverCert := ca.issue(t, "berth.test", true)
	seen := make(chan seenCall, 1)
	srv := grpc.NewServer(
		grpc.Creds(credentials.NewTLS(&tls.Config{
			Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
		})),
		recordCalls(seen))
	berthv1.RegisterStateServiceServer(srv, newFakeBerth())
	lis := bufconn.Listen(1 << 16)
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	dialer := WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))

	t.Run("client certificate and token", func(t *testing.T) {
		cfg := &tls.Config{RootCAs: ca.pool, ServerName: "berth.test", Certificates: []tls.Certificate{ca.issue(t, "orchestrator", false)}, MinVersion: tls.VersionTLS12}
		c, err := Dial(t.Context(), "passthrough:///bufnet", WithTLS(cfg), WithToken("s3cret"), dialer)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Apply(t.Context(), nodeObj("n1")); err != nil {
			t.Fatalf("Apply over mutual TLS = %v", err)
		}
		want := seenCall{ClientCN: "orchestrator", Authorization: []string{"Bearer s3cret"}}
		if diff := cmp.Diff(want, <-seen); diff != "" {
			t.Errorf("what the server saw (-want +got):\n%s", diff)
		}
	})
	t.Run("no client certificate is refused", func(t *testing.T) {
		cfg := &tls.Config{RootCAs: ca.pool, ServerName: "berth.test", MinVersion: tls.VersionTLS12}
		c, err := Dial(t.Context(), "passthrough:///bufnet", WithTLS(cfg), dialer)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := c.Apply(ctx, nodeObj("n1")); status.Code(err) != codes.Unavailable {
			t.Errorf("Apply without a client certificate = %v, want UNAVAILABLE (handshake refused)", err)
		}
	})
	t.Run("unknown server certificate is refused", func(t *testing.T) {
		cfg := &tls.Config{RootCAs: newTestCA(t).pool, ServerName: "berth.test", MinVersion: tls.VersionTLS12,
			Certificates: []tls.Certificate{ca.issue(t, "orchestrator", false)}}
		c, err := Dial(t.Context(), "passthrough:///bufnet", WithTLS(cfg), dialer)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := c.Apply(ctx, nodeObj("n1")); status.Code(err) != codes.Unavailable {
			t.Errorf("Apply to a server signed by another CA = %v, want UNAVAILABLE", err)
		}
	})
}
