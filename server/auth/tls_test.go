package auth

import (
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
)

// testCA signs certificates for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
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
	return testCA{cert: cert, key: key}
}

// issue signs a certificate for name, usable by a server and a client.
func (ca testCA) issue(t *testing.T, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// handshake runs a TLS handshake between the server's config and a client
// presenting certs, and returns what each side saw. The client reads after
// its handshake: with TLS 1.3 the server's verdict on the client
// certificate arrives then.
func handshake(t *testing.T, server *tls.Config, client *tls.Config) (serverErr, clientErr error) {
	t.Helper()
	sc, cc := net.Pipe()
	done := make(chan error, 1)
	go func() {
		s := tls.Server(sc, server)
		err := s.Handshake()
		if err == nil {
			_, err = s.Write([]byte("ok"))
		}
		done <- err
		sc.Close()
	}()
	c := tls.Client(cc, client)
	clientErr = c.Handshake()
	if clientErr == nil {
		_, clientErr = c.Read(make([]byte, 2))
	}
	cc.Close()
	return <-done, clientErr
}

// A client certificate from another CA is refused as such ("bad
// certificate", and the server says which CA it wants), not as a missing
// one: the server does not list its CAs, so the client sends the
// certificate it has.
func TestClientCertificateOfAnotherCA(t *testing.T) {
	dir := t.TempDir()
	trusted, other := newTestCA(t, "trusted CA"), newTestCA(t, "other CA")
	serverCert := trusted.issue(t, "localhost")
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", trusted.cert.Raw)
	writePEM(t, filepath.Join(dir, "server.pem"), "CERTIFICATE", serverCert.Certificate[0])
	keyDER, err := x509.MarshalPKCS8PrivateKey(serverCert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "server-key.pem"), "PRIVATE KEY", keyDER)
	cfg, err := TLSFiles{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem"), ClientCA: filepath.Join(dir, "ca.pem")}.Config()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(trusted.cert)
	client := func(certs ...tls.Certificate) *tls.Config {
		return &tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: certs}
	}
	tests := []struct {
		name                  string
		client                *tls.Config
		wantClient, wantServe string // substrings of the errors; "" for none
	}{
		{name: "trusted certificate", client: client(trusted.issue(t, "c"))},
		{name: "certificate of another CA", client: client(other.issue(t, "c")),
			wantClient: "bad certificate", wantServe: "not accepted by --tls-client-ca"},
		{name: "no certificate", client: client(), wantClient: "certificate required", wantServe: "didn't provide a certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serverErr, clientErr := handshake(t, cfg, tt.client)
			for _, c := range []struct {
				side string
				err  error
				want string
			}{{"client", clientErr, tt.wantClient}, {"server", serverErr, tt.wantServe}} {
				if (c.want == "") != (c.err == nil) || (c.err != nil && !strings.Contains(c.err.Error(), c.want)) {
					t.Errorf("%s: %v, want %q", c.side, c.err, c.want)
				}
			}
		})
	}
}
