package berth

import (
	"context"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		server, network, addr string
		ok                    bool
	}{
		{"127.0.0.1:7070", "tcp", "127.0.0.1:7070", true},
		{"[::1]:7070", "tcp", "[::1]:7070", true},
		{"berth.example:443", "tcp", "berth.example:443", true},
		{"dns:///berth.example:7070", "tcp", "berth.example:7070", true},
		{"dns://8.8.8.8/berth.example:7070", "tcp", "berth.example:7070", true},
		{"unix:///run/berth.sock", "unix", "/run/berth.sock", true},
		{"unix:berth.sock", "unix", "berth.sock", true},
		{"127.0.0.1", "", "", false},
		{":::", "", "", false},
		{"a b:1", "", "", false},
		{"foo://bar", "", "", false},
		{"dns:///", "", "", false},
	} {
		network, addr, err := ParseTarget(tc.server)
		if (err == nil) != tc.ok || network != tc.network || addr != tc.addr {
			t.Errorf("ParseTarget(%q) = %q, %q, %v; want %q, %q, ok %v", tc.server, network, addr, err, tc.network, tc.addr, tc.ok)
		}
	}
}

// writePEM writes cert (and its key, when keyPath is set) as PEM files.
func writePEM(t *testing.T, certPath, keyPath string, cert tls.Certificate) {
	t.Helper()
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if keyPath == "" {
		return
	}
	der, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCredentialErrors checks that Dial refuses credential files it cannot
// use with a *CredentialError naming the file and why.
func TestCredentialErrors(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "", tls.Certificate{Certificate: [][]byte{ca.cert.Raw}})
	writePEM(t, filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem"), ca.issue(t, "orchestrator", false))
	notPEM := writeFile(t, filepath.Join(dir, "not.pem"), "hello\n")
	blank := writeFile(t, filepath.Join(dir, "blank-token"), "  \nsecond line\n")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name       string
		opts       []Option
		credential string
		path       string
		is         error
	}{
		{"CA file missing", []Option{WithTLSFiles(TLSFiles{CA: missing})}, CredentialCA, missing, fs.ErrNotExist},
		{"CA file without PEM", []Option{WithTLSFiles(TLSFiles{CA: notPEM})}, CredentialCA, notPEM, ErrNoCertificate},
		{"key pair unreadable", []Option{WithTLSFiles(TLSFiles{Cert: notPEM, Key: notPEM})}, CredentialKeyPair, notPEM, nil},
		{"key without certificate", []Option{WithTLSFiles(TLSFiles{Key: filepath.Join(dir, "client-key.pem")})}, CredentialKeyPair, filepath.Join(dir, "client-key.pem"), nil},
		{"token file missing", []Option{WithTokenFile(missing)}, CredentialToken, missing, fs.ErrNotExist},
		{"token file blank first line", []Option{WithTokenFile(blank)}, CredentialToken, blank, ErrNoToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Dial(t.Context(), "127.0.0.1:1", tc.opts...)
			var ce *CredentialError
			if !errors.As(err, &ce) || ce.Credential != tc.credential || ce.Path != tc.path || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("Dial = %v; want a *CredentialError about the %s file %s (%v)", err, tc.credential, tc.path, tc.is)
			}
		})
	}
	for _, opts := range [][]Option{
		{WithToken("a"), WithTokenFile(blank)},
		{WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}), WithTLSFiles(TLSFiles{})},
	} {
		if _, err := Dial(t.Context(), "127.0.0.1:1", opts...); err == nil {
			t.Errorf("Dial with exclusive options = nil error")
		}
	}
}

// mtlsServer serves a StateService on a unix socket over TLS that requires
// a client certificate of ca, and reports what it saw of each call.
func mtlsServer(t *testing.T, ca *testCA) (sock string, seen chan seenCall) {
	t.Helper()
	seen = make(chan seenCall, 4)
	srv := grpc.NewServer(
		grpc.Creds(credentials.NewTLS(&tls.Config{
			Certificates: []tls.Certificate{ca.issue(t, "berth.test", true)}, ClientCAs: ca.pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13,
		})),
		recordCalls(seen))
	berthv1.RegisterStateServiceServer(srv, newFakeBerth())
	// A short path: unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "berth")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock = filepath.Join(dir, "s")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	return sock, seen
}

// TestDialTLSFilesOverUnixSocket dials a mutual-TLS server on a unix
// socket with the PEM files and a token file, as berthctl's flags do, and
// checks what CheckClientCertificate says of good and refused certificates.
func TestDialTLSFilesOverUnixSocket(t *testing.T) {
	ca := newTestCA(t)
	sock, seen := mtlsServer(t, ca)
	dir := t.TempDir()
	caFile, cert, key := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "c.pem"), filepath.Join(dir, "c-key.pem")
	writePEM(t, caFile, "", tls.Certificate{Certificate: [][]byte{ca.cert.Raw}})
	writePEM(t, cert, key, ca.issue(t, "orchestrator", false))
	stranger, strangerKey := filepath.Join(dir, "s.pem"), filepath.Join(dir, "s-key.pem")
	writePEM(t, stranger, strangerKey, newTestCA(t).issue(t, "stranger", false))
	token := writeFile(t, filepath.Join(dir, "token"), " s3cret \nignored\n")

	for _, tc := range []struct {
		name    string
		files   TLSFiles
		wantErr bool
		refusal *CertificateRefusedError
	}{
		{"the right certificate", TLSFiles{CA: caFile, Cert: cert, Key: key, ServerName: "berth.test"}, false, nil},
		{"no certificate", TLSFiles{CA: caFile, ServerName: "berth.test"}, true,
			&CertificateRefusedError{Target: "unix://" + sock, Missing: true, Required: true, Alert: "remote error: tls: certificate required"}},
		{"a certificate of another CA", TLSFiles{CA: caFile, Cert: stranger, Key: strangerKey, ServerName: "berth.test"}, true,
			&CertificateRefusedError{Target: "unix://" + sock, Alert: "remote error: tls: unknown certificate authority"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(t.Context(), "unix://"+sock, WithTLSFiles(tc.files), WithTokenFile(token))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err = c.Apply(ctx, nodeObj("n1"))
			if tc.wantErr != (err != nil) || (err != nil && status.Code(errors.Unwrap(err)) != codes.Unavailable && status.Code(err) != codes.Unavailable) {
				t.Fatalf("Apply = %v, want error %v (UNAVAILABLE)", err, tc.wantErr)
			}
			if !tc.wantErr {
				want := seenCall{ClientCN: "orchestrator", Authorization: []string{"Bearer s3cret"}}
				if diff := cmp.Diff(want, <-seen); diff != "" {
					t.Errorf("what the server saw (-want +got):\n%s", diff)
				}
			}
			var got *CertificateRefusedError
			if err := c.CheckClientCertificate(ctx); err != nil && !errors.As(err, &got) {
				t.Fatalf("CheckClientCertificate = %v, want a *CertificateRefusedError or nil", err)
			}
			if got != nil {
				got.Alert = trimAlert(got.Alert)
			}
			if diff := cmp.Diff(tc.refusal, got); diff != "" {
				t.Errorf("CheckClientCertificate (-want +got):\n%s", diff)
			}
		})
	}
}

// trimAlert keeps the alert of a crypto/tls error, without the operation
// and address before it.
func trimAlert(msg string) string {
	for _, a := range refusalAlerts {
		if len(msg) >= len(a) && msg[len(msg)-len(a):] == a {
			return a
		}
	}
	return msg
}
