package berth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Client holds the berth.v1 service clients over one connection. The
// raw service clients are exported for calls this package does not wrap.
type Client struct {
	State     berthv1.StateServiceClient
	Decisions berthv1.DecisionServiceClient
	Admin     berthv1.AdminServiceClient
	Stats     berthv1.StatsServiceClient
	Eviction  berthv1.EvictionServiceClient

	router   *router     // Dial's connections; nil when the caller owns the connection (New)
	tls      *tls.Config // Dial's TLS configuration; nil for plaintext
	backoff  Backoff
	clock    Clock
	logger   *slog.Logger
	maxBatch int
}

// Option configures Dial and New.
type Option func(*config)

type config struct {
	tls         *tls.Config
	tlsFiles    *TLSFiles
	token       string
	tokenFile   string
	dialOptions []grpc.DialOption
	backoff     Backoff
	clock       Clock
	logger      *slog.Logger
	maxBatch    int
}

// WithTLS makes Dial connect over TLS with the given configuration. Without
// it the connection is plaintext, for a sidecar on loopback or a unix socket.
func WithTLS(c *tls.Config) Option { return func(o *config) { o.tls = c } }

// WithTLSFiles makes Dial connect over TLS with the configuration the files
// make (see TLSFiles.Config); Dial fails with a *CredentialError when they
// cannot be loaded. It and WithTLS are exclusive.
func WithTLSFiles(f TLSFiles) Option { return func(o *config) { o.tlsFiles = &f } }

// WithToken sends "authorization: Bearer <token>" with every call.
func WithToken(token string) Option { return func(o *config) { o.token = token } }

// WithTokenFile sends the token on the first line of path (ReadTokenFile),
// read once by Dial, which fails with a *CredentialError when it cannot. It
// and WithToken are exclusive.
func WithTokenFile(path string) Option { return func(o *config) { o.tokenFile = path } }

// WithDialOptions adds gRPC dial options (interceptors, a custom dialer, ...).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *config) { o.dialOptions = append(o.dialOptions, opts...) }
}

// WithMaxBatch caps the objects or references per request (500 by default,
// DefaultMaxBatch) of Apply, Delete and the sessions of this client (see
// MaxBatch). A call with more is split over several requests: berthd refuses
// a request of more than its --max-batch-objects (10000 by default) with
// RESOURCE_EXHAUSTED.
func WithMaxBatch(n int) Option { return func(o *config) { o.maxBatch = max(n, 1) } }

// WithBackoff sets how long sessions and watchers wait between reconnection
// attempts. The default is DefaultBackoff().
func WithBackoff(b Backoff) Option { return func(o *config) { o.backoff = b } }

// WithClock sets the clock the reconnection backoff waits on; tests inject
// one that does not sleep.
func WithClock(c Clock) Option { return func(o *config) { o.clock = c } }

// WithLogger sets where sessions and watchers log reconnections. The default
// discards.
func WithLogger(l *slog.Logger) Option { return func(o *config) { o.logger = l } }

func newConfig(opts []Option) config {
	c := config{backoff: DefaultBackoff(), clock: realClock{}, logger: slog.New(slog.DiscardHandler), maxBatch: DefaultMaxBatch}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Dial connects to the berthd at addr ("host:port", or "unix:///path"). The
// connection is established lazily, so Dial fails only on bad options or
// credential files (*CredentialError); the first call reports an
// unreachable server. ctx is not kept: it bounds nothing today and is there
// so that Dial may block in the future. addr may also list the replicas of
// a highly available berthd, separated by commas ("a:7070,b:7070"), as
// DialEndpoints takes them; a replica that is not the leader and names the
// leader is followed either way.
func Dial(ctx context.Context, addr string, opts ...Option) (*Client, error) {
	addrs := SplitEndpoints(addr)
	if len(addrs) == 0 {
		addrs = []string{addr} // grpc.NewClient's error for it
	}
	return DialEndpoints(ctx, addrs, opts...)
}

// DialEndpoints connects to the replicas of a highly available berthd, as
// Dial does to one. Calls go to one endpoint at a time, the first at
// start. A call refused by a replica that is not the leader (UNAVAILABLE,
// reason ReasonNotLeader) moves the client to the leader the replica names
// (dialled the first time, with the same options), or to the next endpoint
// when it names none; a replica that cannot be reached (UNAVAILABLE) moves
// it to the next endpoint. Unary calls are retried there, following at most
// 30 NOT_LEADER answers with backoff (LeaderPoll apart at most); a Session
// reconnects there and re-lists, a Watcher resumes there from its revision
// with its log id. Reads go to the endpoint of the last call that answered:
// followers serve Watch, ListNominations and ServerInfo from the shared
// store, and refuse what needs the leader's memory with NOT_LEADER, which
// is followed the same way. With several endpoints calls fail fast on a
// replica that is down instead of waiting for it.
func DialEndpoints(ctx context.Context, addrs []string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	if err := cfg.loadCredentials(); err != nil {
		return nil, err
	}
	dial := cfg.grpcDialOptions()
	r, err := newRouter(addrs, func(addr string) (*grpc.ClientConn, error) {
		conn, err := grpc.NewClient(addr, dial...)
		if err != nil {
			return nil, fmt.Errorf("berth client: dial %s: %w", addr, err)
		}
		return conn, nil
	}, cfg)
	if err != nil {
		return nil, err
	}
	c := newClient(r, cfg)
	c.router, c.tls = r, cfg.tls
	return c, nil
}

// grpcDialOptions are the gRPC options of every connection Dial makes.
func (cfg *config) grpcDialOptions() []grpc.DialOption {
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if cfg.tls != nil {
		dial[0] = grpc.WithTransportCredentials(credentials.NewTLS(cfg.tls))
	}
	if cfg.token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{token: cfg.token, secure: cfg.tls != nil}))
	}
	// Reconnect the transport on the same schedule as streams.
	dial = append(dial, grpc.WithConnectParams(grpc.ConnectParams{
		Backoff: backoff.Config{
			BaseDelay: max(cfg.backoff.Initial, 10*time.Millisecond), Multiplier: max(cfg.backoff.Factor, 1),
			Jitter: 0.2, MaxDelay: max(cfg.backoff.Max, cfg.backoff.Initial, 10*time.Millisecond),
		},
		MinConnectTimeout: 5 * time.Second,
	}))
	return append(dial, cfg.dialOptions...)
}

// loadCredentials reads the files of WithTLSFiles and WithTokenFile.
func (cfg *config) loadCredentials() error {
	switch {
	case cfg.tlsFiles != nil && cfg.tls != nil:
		return errors.New("berth client: WithTLS and WithTLSFiles are exclusive")
	case cfg.tokenFile != "" && cfg.token != "":
		return errors.New("berth client: WithToken and WithTokenFile are exclusive")
	}
	if cfg.tlsFiles != nil {
		tc, err := cfg.tlsFiles.Config()
		if err != nil {
			return err
		}
		cfg.tls = tc
	}
	if cfg.tokenFile != "" {
		tok, err := ReadTokenFile(cfg.tokenFile)
		if err != nil {
			return err
		}
		cfg.token = tok
	}
	return nil
}

// New wraps a connection the caller made and keeps owning; Close does not
// close it. TLS and token options do not apply (they belong to the
// connection).
func New(conn grpc.ClientConnInterface, opts ...Option) *Client {
	return newClient(conn, newConfig(opts))
}

func newClient(conn grpc.ClientConnInterface, cfg config) *Client {
	return &Client{
		State:     berthv1.NewStateServiceClient(conn),
		Decisions: berthv1.NewDecisionServiceClient(conn),
		Admin:     berthv1.NewAdminServiceClient(conn),
		Stats:     berthv1.NewStatsServiceClient(conn),
		Eviction:  berthv1.NewEvictionServiceClient(conn),
		backoff:   cfg.backoff,
		clock:     cfg.clock,
		logger:    cfg.logger,
		maxBatch:  cfg.maxBatch,
	}
}

// Close closes the connections Dial made.
func (c *Client) Close() error {
	if c.router == nil {
		return nil
	}
	return c.router.Close()
}

// Target is the address calls go to now: the first endpoint given to Dial,
// or the replica a redirect or failover chose since; "" for a Client made
// by New.
func (c *Client) Target() string {
	if c.router == nil {
		return ""
	}
	return c.router.target()
}

// Apply upserts objects with unary calls, WithMaxBatch objects per call.
// Refused objects are returned as a *BatchError; the others took effect. A
// call that fails as a whole (its error is returned) leaves the objects of
// the calls before it applied; RESOURCE_EXHAUSTED (more objects than berthd
// accepts in one request) is returned wrapping ErrRequestTooLarge.
func (c *Client) Apply(ctx context.Context, objs ...*berthv1.Object) error {
	return c.chunked(len(objs), nil, func(lo, hi int) (int, []*berthv1.ObjectError, error) {
		resp, err := c.State.Apply(ctx, &berthv1.ApplyRequest{Objects: objs[lo:hi]})
		if err != nil {
			return 0, nil, unaryError("apply", lo, hi-lo, err)
		}
		return int(resp.GetApplied()), resp.GetErrors(), nil
	})
}

// Delete removes objects with unary calls, WithMaxBatch references per call.
// A reference Berth does not hold (NOT_FOUND) counts as deleted; other
// refusals are returned as a *BatchError. Failures as a whole are as for
// Apply.
func (c *Client) Delete(ctx context.Context, refs ...*berthv1.ObjectRef) error {
	return c.chunked(len(refs), func(int) bool { return true }, func(lo, hi int) (int, []*berthv1.ObjectError, error) {
		resp, err := c.State.Delete(ctx, &berthv1.DeleteRequest{Refs: refs[lo:hi]})
		if err != nil {
			return 0, nil, unaryError("delete", lo, hi-lo, err)
		}
		return int(resp.GetDeleted()), resp.GetErrors(), nil
	})
}

// chunked makes one call per WithMaxBatch items and merges the answers into
// one *BatchError with the caller's indexes.
func (c *Client) chunked(n int, isDelete func(int) bool, do func(lo, hi int) (int, []*berthv1.ObjectError, error)) error {
	step := max(c.maxBatch, 1)
	applied := 0
	var refused []*ObjectError
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		ok, errs, err := do(lo, hi)
		if err != nil {
			return err
		}
		applied += ok
		for _, e := range errs {
			idx := lo + int(e.GetIndex())
			if codes.Code(e.GetCode()) == codes.NotFound && isDelete != nil && isDelete(idx) {
				applied++ // deleting what Berth does not hold is success
				continue
			}
			refused = append(refused, objectError(idx, e))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &BatchError{Applied: applied, Errors: refused}
}

func unaryError(op string, lo, n int, err error) error {
	if status.Code(err) == codes.ResourceExhausted {
		return fmt.Errorf("berth client: %s objects %d..%d: %w (lower WithMaxBatch): %w", op, lo, lo+n-1, ErrRequestTooLarge, err)
	}
	if lo > 0 {
		return fmt.Errorf("berth client: %s objects %d..%d (those before took effect): %w", op, lo, lo+n-1, err)
	}
	return fmt.Errorf("berth client: %s: %w", op, err)
}

// ErrNotBind is returned by ConfirmBind and FailBind for a decision that is
// not a Bind.
var ErrNotBind = errors.New("berth client: decision is not a Bind")

// ConfirmBind reports that the pod of a Bind decision now runs on its node.
// Upserting the pod with node_name set has the same effect.
func (c *Client) ConfirmBind(ctx context.Context, d *berthv1.Decision) error {
	return c.reportBind(ctx, d, berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED, "")
}

// FailBind reports that the pod of a Bind decision could not be started on
// its node; Berth forgets the placement and requeues the pod with backoff.
func (c *Client) FailBind(ctx context.Context, d *berthv1.Decision, reason string) error {
	return c.reportBind(ctx, d, berthv1.BindOutcome_BIND_OUTCOME_FAILED, reason)
}

func (c *Client) reportBind(ctx context.Context, d *berthv1.Decision, outcome berthv1.BindOutcome, reason string) error {
	b := d.GetBind()
	if b == nil {
		return ErrNotBind
	}
	_, err := c.State.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{
		Pod: d.GetPod(), Node: b.GetNode(), Revision: d.GetRevision(), Outcome: outcome, Reason: reason,
	})
	if err != nil {
		return fmt.Errorf("berth client: report %s of %s/%s at revision %d: %w",
			outcome, d.GetPod().GetNamespace(), d.GetPod().GetName(), d.GetRevision(), err)
	}
	return nil
}

// ReportNodeStats hands berthd one kubelet Summary (stats/v1alpha1 JSON, as
// the kubelet's /stats/summary serves it) of the node it names; berthd runs
// the kubelet's node-pressure eviction manager on it and answers with the
// node's pressure and the Evict it made, if any.
func (c *Client) ReportNodeStats(ctx context.Context, summaryJSON []byte) (*berthv1.ReportNodeStatsResponse, error) {
	resp, err := c.Stats.ReportNodeStats(ctx, &berthv1.ReportNodeStatsRequest{SummaryJson: summaryJSON})
	if err != nil {
		return nil, fmt.Errorf("berth client: report node stats: %w", err)
	}
	return resp, nil
}

// bearer is a per-RPC credential carrying a bearer token.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

// RequireTransportSecurity lets a token travel in plaintext only when the
// caller chose no TLS (a loopback sidecar or a unix socket).
func (b bearer) RequireTransportSecurity() bool { return b.secure }
