package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// TestJSONOutput checks the documented shape of -o json: every field
// present, 64-bit integers as numbers, enums by name, timestamps in RFC 3339.
func TestJSONOutput(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	for _, tc := range []struct {
		args []string
		want map[string]any // a subset of the top-level fields
	}{
		{[]string{"explain", "-o", "json", "shop/web"}, map[string]any{
			"attempts": 3.0, "bind_revision": 0.0, "node": "", "last_bind_failure": "", "state": "QUEUE_STATE_BACKOFF",
			"backoff_until": "2024-05-01T12:00:04Z", "rejecting_plugins": []any{"NodeResourcesFit", "TaintToleration"},
		}},
		{[]string{"get", "queue", "-o", "json"}, map[string]any{
			"attempts_scheduled": 40.0, "attempts_error": 0.0, "gated": 0.0, "bound": 40.0,
		}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := berthctl(t, nil, "", append([]string{"--server", addr}, tc.args...)...)
			if got.code != exitOK {
				t.Fatalf("%+v", got)
			}
			var fields map[string]any
			if err := json.Unmarshal([]byte(got.stdout), &fields); err != nil {
				t.Fatalf("%v in %s", err, got.stdout)
			}
			for k, want := range tc.want {
				if diff := cmp.Diff(want, fields[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
	// An unset message is null; a message that is set is an object.
	got := berthctl(t, nil, "", "--server", addr, "explain", "-o", "json", "shop/web")
	var ex struct {
		LastDiagnosis   *struct{ Message string } `json:"last_diagnosis"`
		LastAttemptTime *string                   `json:"last_attempt_time"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &ex); err != nil || ex.LastDiagnosis == nil || ex.LastAttemptTime == nil {
		t.Errorf("explain json: %v %s", err, got.stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	f := &fakeBerthd{}
	addr := f.start(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag before the command", []string{"--bogus", "get", "queue"}, "berthctl: unknown flag: --bogus\nRun 'berthctl --help' for usage.\n"},
		{"unknown flag with a value", []string{"--server", addr, "--bogus=1", "get", "queue"}, "berthctl: unknown flag: --bogus\n"},
		{"unknown flag after the command", []string{"get", "queue", "--bogus"}, "unknown flag: --bogus"},
		{"server without a port", []string{"--server", "127.0.0.1", "get", "queue"}, `berthctl: --server "127.0.0.1": missing port in address; want host:port or unix:///path`},
		{"server with a scheme", []string{"--server", "http://127.0.0.1:7070", "get", "queue"}, `unsupported scheme "http"`},
		{"server port out of range", []string{"--server", "localhost:99999", "explain", "p"}, `port "99999" is not a number from 1 to 65535`},
		{"unix socket without a path", []string{"--server", "unix://", "watch"}, "no socket path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", tc.args...)
			if got.code != exitUsage || !strings.Contains(got.stderr, tc.want) || got.stdout != "" {
				t.Errorf("exit %d stderr %q; want exit 2 and %q", got.code, got.stderr, tc.want)
			}
		})
	}
	// Global flags before the command still work.
	if got := berthctl(t, nil, "", "--timeout", "5s", "--tls=false", "--server", addr, "get", "queue"); got.code != exitOK {
		t.Errorf("known flags: %+v", got)
	}
}

func TestWatchResumeHint(t *testing.T) {
	refused := status.Error(codes.Unauthenticated, "invalid bearer token")
	// Refused before anything arrived: no resume hint, whatever the flag.
	f := &fakeBerthd{watchErr: refused}
	addr := f.start(t)
	got := berthctl(t, nil, "", "--server", addr, "watch", "--from-revision", "1")
	want := result{code: exitUnauthorized, stderr: "berthctl: berthd at " + addr + " refused the credentials (see --token, --token-file): invalid bearer token\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("refused at once (-want +got):\n%s", diff)
	}
	// Ended after decisions: resume where it stopped.
	f = &fakeBerthd{watch: watchStream()[:1], watchErr: status.Error(codes.Unavailable, "berthd is shutting down")}
	addr = f.start(t)
	got = berthctl(t, nil, "", "--server", addr, "watch", "--from-revision", "5")
	want = result{code: exitUnavailable, stdout: "5 bind default/web -> n1\n6 evict default/low from n2 for default/high: preempted\n",
		stderr: "berthctl: cannot reach berthd at " + addr + ": berthd is shutting down (resume with --from-revision 7)\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("ended after decisions (-want +got):\n%s", diff)
	}
}

// TestTLSErrors checks what berthctl says when TLS settings do not match
// berthd's, mutual TLS first: a refused client certificate exits 5.
func TestTLSErrors(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	serverCert := issue(t, ca, caKey, "berthd", filepath.Join(dir, "server"))
	issue(t, ca, caKey, "client", filepath.Join(dir, "client"))
	otherCA, otherKey := newCA(t)
	issue(t, otherCA, otherKey, "stranger", filepath.Join(dir, "stranger"))
	caFile := filepath.Join(dir, "ca.pem")
	writePEM(t, caFile, "CERTIFICATE", ca.Raw)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	mtls := (&fakeBerthd{}).start(t, grpc.Creds(credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{serverCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13,
	})))
	plain := (&fakeBerthd{}).start(t)
	client := []string{"--tls-cert", filepath.Join(dir, "client.pem"), "--tls-key", filepath.Join(dir, "client-key.pem")}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mutual TLS without a certificate", []string{"--server", mtls, "--tls-ca", caFile, "get", "queue"},
			exitUnauthorized, "berthctl: berthd at " + mtls + " requires a client certificate (mutual TLS): pass --tls-cert and --tls-key\n"},
		{"mutual TLS with a certificate of another CA", []string{"--server", mtls, "--tls-ca", caFile, "--tls-cert", filepath.Join(dir, "stranger.pem"), "--tls-key", filepath.Join(dir, "stranger-key.pem"), "get", "queue"},
			exitUnauthorized, "refused the client certificate of --tls-cert"},
		{"mutual TLS with the right certificate", append([]string{"--server", mtls, "--tls-ca", caFile, "get", "queue"}, client...), exitOK, ""},
		{"plaintext to TLS", []string{"--server", mtls, "get", "queue"}, exitUnavailable, "(if berthd serves TLS, pass --tls)"},
		{"TLS to plaintext", []string{"--server", plain, "--tls", "get", "queue"}, exitUnavailable, "(berthd does not serve TLS there: drop --tls and the --tls-* flags)"},
		{"unknown server CA", append([]string{"--server", mtls, "--tls", "get", "queue"}, client...), exitUnavailable, "see --tls-ca and --tls-server-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := berthctl(t, nil, "", append([]string{"--timeout", "10s"}, tc.args...)...)
			if got.code != tc.code || !strings.Contains(got.stderr, tc.want) || (tc.want == "" && got.stderr != "") {
				t.Errorf("exit %d stderr %q; want exit %d and %q", got.code, got.stderr, tc.code, tc.want)
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
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "berthctl test CA"},
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

// issue signs a certificate for 127.0.0.1 and localhost, writes it to
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

// berthctl pointed at berthd's HTTP listener (/metrics, the dashboard)
// says so instead of the transport's raw "http2: frame too large".
func TestMetricsPortHint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	got := berthctl(t, nil, "", "--server", addr, "get", "queue")
	if got.code != exitUnavailable {
		t.Errorf("exit %d, want %d", got.code, exitUnavailable)
	}
	want := "this looks like berthd's HTTP metrics port (--metrics-listen); berthctl needs the gRPC address (--server HOST:PORT of berthd's --listen, 127.0.0.1:7070 by default)"
	if !strings.Contains(got.stderr, want) {
		t.Errorf("stderr %q lacks %q", got.stderr, want)
	}
}
