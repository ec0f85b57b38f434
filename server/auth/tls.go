package auth

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
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
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// ServerOption loads the files into gRPC transport credentials.
func (f TLSFiles) ServerOption() (grpc.ServerOption, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return grpc.Creds(credentials.NewTLS(cfg)), nil
}
