package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/clients/go"
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
	fs.StringVar(&o.server, "server", server, "berthd's gRPC address, host:port or unix:///path, or a comma-separated list of replicas' (default from $"+serverEnv+")")
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
	case len(berth.SplitEndpoints(o.server)) == 0:
		return usageErrorf("--server must not be empty")
	}
	for _, f := range []string{"tls-ca", "tls-cert", "tls-key", "tls-server-name", "insecure-skip-verify"} {
		if fs.Changed(f) {
			o.tls = true
		}
	}
	return nil
}

// goClientOptions are the Go client's options of the flags; files are read
// by berth.Dial.
func (o *connOptions) goClientOptions() []berth.Option {
	var opts []berth.Option
	if o.tls {
		opts = append(opts, berth.WithTLSFiles(berth.TLSFiles{
			CA: o.tlsCA, Cert: o.tlsCert, Key: o.tlsKey, ServerName: o.tlsServerName, InsecureSkipVerify: o.insecureSkipVerify,
		}))
	}
	switch {
	case o.tokenFile != "":
		opts = append(opts, berth.WithTokenFile(o.tokenFile))
	case o.token != "":
		opts = append(opts, berth.WithToken(o.token))
	}
	return opts
}

// credentialError words the Go client's *berth.CredentialError with the
// flag that named the file (exit 1); other errors are returned as they are.
func (o *connOptions) credentialError(err error) error {
	ce := (*berth.CredentialError)(nil)
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case ce.Credential == berth.CredentialToken && errors.Is(ce.Err, berth.ErrNoToken):
		return failedf("--token-file %s holds no token", ce.Path)
	case ce.Credential == berth.CredentialToken:
		return failedf("reading --token-file: %w", ce.Err)
	case ce.Credential == berth.CredentialCA && errors.Is(ce.Err, berth.ErrNoCertificate):
		return failedf("--tls-ca %s holds no PEM certificate", ce.Path)
	case ce.Credential == berth.CredentialCA:
		return failedf("reading --tls-ca: %w", ce.Err)
	}
	return failedf("loading --tls-cert/--tls-key: %w", ce.Err)
}

// client is a connection to berthd, the Go client with what berthctl adds:
// --timeout and the mapping of errors to exit codes.
type client struct {
	*berth.Client
	opts      *connOptions
	server    string // --server as given
	endpoints int    // how many replicas --server lists
	timeout   time.Duration
	state     berthv1.StateServiceClient
	decision  berthv1.DecisionServiceClient
	admin     berthv1.AdminServiceClient
}

// dial connects to berthd through the Go client (lazily: a server that is
// down shows on the first call). --server may list several replicas: the
// Go client sends each call to the first that answers and follows the
// leader a follower names for writes.
func (o *connOptions) dial() (*client, error) {
	endpoints := berth.SplitEndpoints(o.server)
	for _, e := range endpoints {
		if _, _, err := berth.ParseTarget(e); err != nil {
			return nil, usageErrorf("--server %q: %v", e, err)
		}
	}
	bc, err := berth.DialEndpoints(context.Background(), endpoints, o.goClientOptions()...)
	if ce := (*berth.CredentialError)(nil); errors.As(err, &ce) {
		return nil, o.credentialError(err)
	}
	if err != nil {
		return nil, usageErrorf("--server %q: %v", o.server, err)
	}
	return &client{
		Client: bc, opts: o, server: strings.Join(endpoints, ","), endpoints: len(endpoints), timeout: o.timeout,
		state: bc.State, decision: bc.Decisions, admin: bc.Admin,
	}, nil
}

// maxReplicaTries bounds the NOT_LEADER answers a stream berthctl opens
// itself (apply's Sync, watch) follows: as many as the Go client follows for
// a unary call. With the backoff between them (berth.LeaderPoll at most)
// that is about 26s, more than an election takes with berthd's default
// lease TTL (10s); --timeout bounds apply's tries.
const maxReplicaTries = 30

// replicaTries counts the failures in a row of one stream.
type replicaTries struct {
	redirects   int // NOT_LEADER answers
	unreachable int // UNAVAILABLE failures since the last NOT_LEADER
}

// anotherReplica tells whether a stream that failed with err is worth
// opening again, and waits before if so (false when ctx ends). A follower
// refused it (NOT_LEADER: the Go client now points at the leader it named,
// or the next replica): again after a backoff. With several replicas
// listed, one could not be reached or cut its streams (a replica does when
// it becomes leader or follower): again at once on the next, up to two
// rounds of the list without a replica answering.
func (c *client) anotherReplica(ctx context.Context, err error, t *replicaTries) bool {
	delay := time.Duration(0)
	if _, notLeader := berth.NotLeader(err); notLeader {
		t.redirects, t.unreachable = t.redirects+1, 0
		if t.redirects >= maxReplicaTries {
			return false
		}
		delay = min(berth.DefaultBackoff().Delay(t.redirects-1), berth.LeaderPoll)
	} else {
		t.unreachable++
		if status.Code(err) != codes.Unavailable || c.endpoints < 2 || t.unreachable >= 2*c.endpoints {
			return false
		}
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(delay):
		return true
	}
}

// call is the context of one unary call, bounded by --timeout.
func (c *client) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// err maps a call's error (see rpcError). berthd refusing the client's
// certificate shows to gRPC as a broken connection (UNAVAILABLE); with TLS
// on, such an error is checked by the Go client's own handshake, so that a
// refused certificate exits 5 and not 3.
func (c *client) err(ctx context.Context, err error, what string) error {
	if status.Code(err) == codes.Unavailable && c.Client != nil {
		if refused := c.certificateRefusal(ctx); refused != nil {
			return refused
		}
	}
	return rpcError(ctx, err, c.server, what)
}

// certificateRefusal is CheckClientCertificate's verdict as an exit-5 error
// naming the flags to pass, nil when berthd did not refuse the certificate.
func (c *client) certificateRefusal(ctx context.Context) error {
	re := (*berth.CertificateRefusedError)(nil)
	if !errors.As(c.CheckClientCertificate(ctx), &re) {
		return nil
	}
	switch {
	case re.Required:
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s requires a client certificate (mutual TLS): pass --tls-cert and --tls-key", c.Target())}
	case c.opts.tlsCert == "":
		return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s refused the connection for want of a client certificate (%s): pass --tls-cert and --tls-key", c.Target(), re.Alert)}
	}
	return &exitError{code: exitUnauthorized, err: fmt.Errorf("berthd at %s refused the client certificate of --tls-cert %s: %s", c.Target(), c.opts.tlsCert, re.Alert)}
}

// String names the replica calls go to now.
func (c *client) String() string { return fmt.Sprintf("berthd at %s", c.Target()) }
