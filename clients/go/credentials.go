package berth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// TLSFiles names the PEM files of a TLS connection to berthd, as a command
// line or a configuration file gives them. WithTLSFiles loads them.
type TLSFiles struct {
	// CA is the CA that signed berthd's certificate; empty for the system
	// roots.
	CA string
	// Cert and Key are the client certificate and its key, for a berthd
	// run with --tls-client-ca (mutual TLS); both or neither.
	Cert, Key string
	// ServerName is the name berthd's certificate is verified against;
	// empty for the host of the address dialled.
	ServerName string
	// InsecureSkipVerify does not verify berthd's certificate (testing
	// only).
	InsecureSkipVerify bool
}

// Which file of a credential a *CredentialError is about.
const (
	CredentialCA      = "CA"       // TLSFiles.CA
	CredentialKeyPair = "key pair" // TLSFiles.Cert and Key
	CredentialToken   = "token"    // WithTokenFile's file
)

// Reasons a credential file that could be read is refused.
var (
	ErrNoCertificate = errors.New("holds no PEM certificate")
	ErrNoToken       = errors.New("holds no token")
)

// CredentialError is a TLS or token file that could not be loaded.
type CredentialError struct {
	// Credential is CredentialCA, CredentialKeyPair or CredentialToken.
	Credential string
	// Path is the file (for a key pair, the certificate's).
	Path string
	// Err is why: an *fs.PathError, a parse error, ErrNoCertificate or
	// ErrNoToken.
	Err error
}

func (e *CredentialError) Error() string {
	return fmt.Sprintf("berth client: %s file %s: %v", e.Credential, e.Path, e.Err)
}

func (e *CredentialError) Unwrap() error { return e.Err }

// Config loads the files into a client TLS configuration (TLS 1.2 or later).
// Errors are *CredentialError.
func (f TLSFiles) Config() (*tls.Config, error) {
	if (f.Cert == "") != (f.Key == "") {
		return nil, &CredentialError{Credential: CredentialKeyPair, Path: f.Cert + f.Key, Err: errors.New("a certificate and its key go together")}
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         f.ServerName,
		InsecureSkipVerify: f.InsecureSkipVerify, //nolint:gosec // the caller's explicit choice, for testing
	}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, &CredentialError{Credential: CredentialCA, Path: f.CA, Err: err}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &CredentialError{Credential: CredentialCA, Path: f.CA, Err: ErrNoCertificate}
		}
		cfg.RootCAs = pool
	}
	if f.Cert != "" {
		cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, &CredentialError{Credential: CredentialKeyPair, Path: f.Cert, Err: err}
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// ReadTokenFile returns the bearer token on the first line of path, without
// surrounding blanks. Errors are *CredentialError.
func ReadTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", &CredentialError{Credential: CredentialToken, Path: path, Err: err}
	}
	tok, _, _ := strings.Cut(string(data), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", &CredentialError{Credential: CredentialToken, Path: path, Err: ErrNoToken}
	}
	return tok, nil
}

// ParseTarget is where a Dial address points, as a network and an address
// for net.Dial: "host:port", "dns:///host:port", "passthrough:///host:port",
// "unix:path" or "unix:///absolute/path" (the forms gRPC takes). The error
// says why addr is none of them. Dial does not call it (gRPC takes other
// schemes too); a command line checks its --server with it.
func ParseTarget(addr string) (network, address string, err error) {
	const want = "want host:port or unix:///path"
	switch scheme, rest, found := strings.Cut(addr, ":"); {
	case found && scheme == "unix":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return "", "", fmt.Errorf("no socket path; %s", want)
		}
		return "unix", path, nil
	case found && (scheme == "dns" || scheme == "passthrough") && strings.HasPrefix(rest, "//"):
		rest = strings.TrimPrefix(rest, "//")
		_, endpoint, _ := strings.Cut(rest, "/") // after the optional authority
		return hostPort(endpoint, want)
	case strings.Contains(addr, "://"):
		return "", "", fmt.Errorf("unsupported scheme %q; %s", scheme, want)
	}
	return hostPort(addr, want)
}

func hostPort(s, want string) (string, string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", "", fmt.Errorf("%v; %s", strings.TrimPrefix(err.Error(), "address "+s+": "), want)
	}
	if strings.ContainsAny(host, " \t/") {
		return "", "", fmt.Errorf("%q is not a host name or address; %s", host, want)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("port %q is not a number from 1 to 65535; %s", port, want)
	}
	return "tcp", s, nil
}
