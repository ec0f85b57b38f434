package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// connOptions are the global flags saying how to reach berthd.
type connOptions struct {
	server             string
	timeout            time.Duration
	tls                bool
	tlsCA              string
	tlsCert            string
	tlsKey             string
	tlsServerName      string
	insecureSkipVerify bool
	token              string
	tokenFile          string
}

func (o *connOptions) addFlags(fs *pflag.FlagSet, getenv func(string) string) {
	server := getenv(serverEnv)
	if server == "" {
		server = defaultServer
	}
	fs.StringVar(&o.server, "server", server, "berthd's gRPC address, host:port or unix:///path (default from $"+serverEnv+")")
	fs.DurationVar(&o.timeout, "timeout", defaultTimeout, "how long a call to berthd may take (apply: the whole Sync stream; watch is not bounded)")
	fs.BoolVar(&o.tls, "tls", false, "connect with TLS (implied by the other --tls-* flags)")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "PEM file of the CA that signed berthd's certificate (default: the system roots)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "PEM client certificate, for berthd's mutual TLS (with --tls-key)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "PEM key of --tls-cert")
	fs.StringVar(&o.tlsServerName, "tls-server-name", "", "name to verify berthd's certificate against (default: the host of --server)")
	fs.BoolVar(&o.insecureSkipVerify, "insecure-skip-verify", false, "with TLS, do not verify berthd's certificate (testing only)")
	fs.StringVar(&o.token, "token", "", "bearer token sent to berthd (prefer --token-file: flags show in ps)")
	fs.StringVar(&o.tokenFile, "token-file", "", "file whose first line is the bearer token sent to berthd")
}

// validate checks the flags' combinations (usage errors).
func (o *connOptions) validate(cmd *cobra.Command) error {
	fs := cmd.Flags()
	switch {
	case o.timeout <= 0:
		return usageErrorf("--timeout must be positive, got %s", o.timeout)
	case o.token != "" && o.tokenFile != "":
		return usageErrorf("--token and --token-file are exclusive")
	case (o.tlsCert == "") != (o.tlsKey == ""):
		return usageErrorf("--tls-cert and --tls-key go together")
	case strings.TrimSpace(o.server) == "":
		return usageErrorf("--server must not be empty")
	}
	for _, f := range []string{"tls-ca", "tls-cert", "tls-key", "tls-server-name", "insecure-skip-verify"} {
		if fs.Changed(f) {
			o.tls = true
		}
	}
	return nil
}

// bearerToken reads the token from --token or --token-file.
func (o *connOptions) bearerToken() (string, error) {
	if o.tokenFile == "" {
		return o.token, nil
	}
	data, err := os.ReadFile(o.tokenFile)
	if err != nil {
		return "", failedf("reading --token-file: %w", err)
	}
	tok, _, _ := strings.Cut(string(data), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", failedf("--token-file %s holds no token", o.tokenFile)
	}
	return tok, nil
}

func (o *connOptions) transport() (credentials.TransportCredentials, error) {
	if !o.tls {
		return insecure.NewCredentials(), nil
	}
	cfg, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(cfg), nil
}

// tlsConfig is the client TLS configuration of the --tls-* flags.
func (o *connOptions) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         o.tlsServerName,
		InsecureSkipVerify: o.insecureSkipVerify, //nolint:gosec // an explicit flag, for testing
	}
	if o.tlsCA != "" {
		pem, err := os.ReadFile(o.tlsCA)
		if err != nil {
			return nil, failedf("reading --tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, failedf("--tls-ca %s holds no PEM certificate", o.tlsCA)
		}
		cfg.RootCAs = pool
	}
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, failedf("loading --tls-cert/--tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// tokenCreds sends "authorization: Bearer TOKEN" with every call.
type tokenCreds struct {
	token  string
	secure bool
}

func (c tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + c.token}, nil
}

// RequireTransportSecurity is false without --tls so a token also works
// on loopback or a unix socket; with --tls it is true.
func (c tokenCreds) RequireTransportSecurity() bool { return c.secure }

// client is a connection to berthd with its three services.
type client struct {
	opts     *connOptions
	conn     *grpc.ClientConn
	server   string
	timeout  time.Duration
	state    berthv1.StateServiceClient
	decision berthv1.DecisionServiceClient
	admin    berthv1.AdminServiceClient
}

// dial connects to berthd (lazily: a server that is down shows on the
// first call).
func (o *connOptions) dial() (*client, error) {
	if _, _, err := dialTarget(o.server); err != nil {
		return nil, usageErrorf("--server %q: %v", o.server, err)
	}
	creds, err := o.transport()
	if err != nil {
		return nil, err
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	tok, err := o.bearerToken()
	if err != nil {
		return nil, err
	}
	if tok != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds{token: tok, secure: o.tls}))
	}
	conn, err := grpc.NewClient(o.server, opts...)
	if err != nil {
		return nil, usageErrorf("--server %q: %v", o.server, err)
	}
	return &client{
		opts: o, conn: conn, server: o.server, timeout: o.timeout,
		state:    berthv1.NewStateServiceClient(conn),
		decision: berthv1.NewDecisionServiceClient(conn),
		admin:    berthv1.NewAdminServiceClient(conn),
	}, nil
}

func (c *client) Close() error { return c.conn.Close() }

// call is the context of one unary call, bounded by --timeout.
func (c *client) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// err maps a call's error (see rpcError). berthd refusing the client's
// certificate shows to gRPC as a broken connection (UNAVAILABLE); with TLS
// on, such an error is checked by a handshake of berthctl's own, so that a
// refused certificate exits 5 and not 3.
func (c *client) err(ctx context.Context, err error, what string) error {
	if status.Code(err) == codes.Unavailable && c.opts != nil && c.opts.tls {
		if refused := c.opts.tlsRefusal(ctx); refused != nil {
			return refused
		}
	}
	return rpcError(ctx, err, c.server, what)
}

// tlsProbeTimeout bounds tlsRefusal's handshake and its wait for berthd's
// verdict on the client certificate.
const tlsProbeTimeout = 2 * time.Second

// tlsRefusal makes a TLS handshake with berthd as the gRPC client does and
// waits for berthd's verdict on the client certificate: with TLS 1.3 the
// server refuses it after the client considers the handshake done, so gRPC
// only sees a connection that broke. It returns the refusal as an exit-5
// error, nil when berthd did not refuse the certificate or cannot be
// reached. Go's crypto/tls has no error type for a remote alert, so the
// alert is read from the error text (the alert names are the RFC's).
func (o *connOptions) tlsRefusal(ctx context.Context) error {
	network, addr, err := dialTarget(o.server)
	if err != nil {
		return nil
	}
	cfg, err := o.tlsConfig()
	if err != nil {
		return nil
	}
	cfg.NextProtos = []string{"h2"}
	if cfg.ServerName == "" {
		cfg.ServerName = "localhost" // gRPC's authority for unix sockets
		if network == "tcp" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, tlsProbeTimeout)
	defer cancel()
	conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, network, addr)
	if err == nil {
		deadline, _ := ctx.Deadline()
		_ = conn.SetReadDeadline(deadline)
		_, err = conn.Read(make([]byte, 1))
		_ = conn.Close()
	}
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "remote error: tls: certificate required"):
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s requires a client certificate (mutual TLS): pass --tls-cert and --tls-key", o.server)}
	case strings.Contains(msg, "remote error: tls: bad certificate"), strings.Contains(msg, "remote error: tls: unknown certificate authority"),
		strings.Contains(msg, "remote error: tls: expired certificate"), strings.Contains(msg, "remote error: tls: certificate revoked"),
		strings.Contains(msg, "remote error: tls: unsupported certificate"), strings.Contains(msg, "remote error: tls: certificate unknown"):
		if o.tlsCert == "" {
			return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s refused the connection for want of a client certificate (%s): pass --tls-cert and --tls-key", o.server, msg)}
		}
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s refused the client certificate of --tls-cert %s: %s", o.server, o.tlsCert, msg)}
	}
	return nil
}

// dialTarget is where --server points, as a network and an address for
// net.Dial: host:port, dns:///host:port, passthrough:///host:port,
// unix:path or unix:///absolute/path (the forms gRPC takes). An error says
// why it is none of them.
func dialTarget(server string) (network, addr string, err error) {
	const want = "want host:port or unix:///path"
	switch scheme, rest, found := strings.Cut(server, ":"); {
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
	case strings.Contains(server, "://"):
		return "", "", fmt.Errorf("unsupported scheme %q; %s", scheme, want)
	}
	return hostPort(server, want)
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

func (c *client) String() string { return fmt.Sprintf("berthd at %s", c.server) }
