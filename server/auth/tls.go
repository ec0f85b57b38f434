package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// TLSFiles name the PEM files of the server's TLS.
type TLSFiles struct {
	Cert, Key string
	// ClientCA, if set, makes TLS mutual: clients must present a
	// certificate signed by one of these CAs.
	ClientCA string
}

// ErrTLSFlags means a key without a certificate, or the reverse, or a
// client CA without both.
var ErrTLSFlags = errors.New("auth: TLS needs both a certificate and a key (and both for a client CA)")

// Enabled reports whether any file is set.
func (f TLSFiles) Enabled() bool { return f.Cert != "" || f.Key != "" || f.ClientCA != "" }

// Config loads the files into a server tls.Config.
func (f TLSFiles) Config() (*tls.Config, error) {
	if f.Cert == "" || f.Key == "" {
		return nil, ErrTLSFlags
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("auth: load TLS key pair: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.ClientCA != "" {
		pem, err := os.ReadFile(f.ClientCA)
		if err != nil {
			return nil, fmt.Errorf("auth: read client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("auth: %s holds no PEM certificate", f.ClientCA)
		}
		// The server verifies the chain itself rather than through
		// ClientCAs: with ClientCAs set, the handshake lists the CAs, and a
		// Go client holding a certificate of another CA then sends none,
		// so that the refusal reads "certificate required" instead of
		// saying that the certificate is not trusted.
		cfg.ClientAuth = tls.RequireAnyClientCert
		cfg.VerifyConnection = func(cs tls.ConnectionState) error { return verifyClient(pool, cs) }
	}
	return cfg, nil
}

// verifyClient checks that the client's certificate chains to a CA of
// pool and may authenticate a client.
func verifyClient(pool *x509.CertPool, cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("auth: no client certificate")
	}
	opts := x509.VerifyOptions{
		Roots:         pool,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
		return fmt.Errorf("auth: client certificate %q is not accepted by --tls-client-ca: %w", cs.PeerCertificates[0].Subject, err)
	}
	return nil
}

// ServerOption loads the files into gRPC transport credentials. Failed
// handshakes (a refused client certificate, a client not speaking TLS) are
// logged to failures.
func (f TLSFiles) ServerOption(failures *FailureLog) (grpc.ServerOption, error) {
	creds, _, err := f.Credentials(failures)
	if err != nil {
		return nil, err
	}
	return grpc.Creds(creds), nil
}

// Credentials loads the files into gRPC transport credentials, and the
// tls.Config they are made of, for an HTTP listener (the HTTP API's) to
// serve the same TLS. Failed gRPC handshakes are logged to failures.
func (f TLSFiles) Credentials(failures *FailureLog) (credentials.TransportCredentials, *tls.Config, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, err
	}
	return loggedCreds{TransportCredentials: credentials.NewTLS(cfg.Clone()), failures: failures}, cfg, nil
}

// loggedCreds logs the handshakes that fail.
type loggedCreds struct {
	credentials.TransportCredentials
	failures *FailureLog
}

func (c loggedCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	out, info, err := c.TransportCredentials.ServerHandshake(conn)
	if err != nil && c.failures != nil {
		c.failures.Warn("TLS handshake failed", "peer", conn.RemoteAddr().String(), "err", err)
	}
	return out, info, err
}

func (c loggedCreds) Clone() credentials.TransportCredentials {
	return loggedCreds{TransportCredentials: c.TransportCredentials.Clone(), failures: c.failures}
}
