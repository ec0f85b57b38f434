package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Client holds the three berth.v1 service clients over one connection. The
// raw service clients are exported for calls this package does not wrap.
type Client struct {
	State     berthv1.StateServiceClient
	Decisions berthv1.DecisionServiceClient
	Admin     berthv1.AdminServiceClient

	conn    *grpc.ClientConn // nil when the caller owns the connection (New)
	backoff Backoff
	clock   Clock
	logger  *slog.Logger
}

// Option configures Dial and New.
type Option func(*config)

type config struct {
	tls         *tls.Config
	token       string
	dialOptions []grpc.DialOption
	backoff     Backoff
	clock       Clock
	logger      *slog.Logger
}

// WithTLS makes Dial connect over TLS with the given configuration. Without
// it the connection is plaintext, for a sidecar on loopback or a unix socket.
func WithTLS(c *tls.Config) Option { return func(o *config) { o.tls = c } }

// WithToken sends "authorization: Bearer <token>" with every call.
func WithToken(token string) Option { return func(o *config) { o.token = token } }

// WithDialOptions adds gRPC dial options (interceptors, a custom dialer, ...).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *config) { o.dialOptions = append(o.dialOptions, opts...) }
}

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
	c := config{backoff: DefaultBackoff(), clock: realClock{}, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Dial connects to the berthd at addr ("host:port", or "unix:///path"). The
// connection is established lazily, so Dial fails only on bad options; the
// first call reports an unreachable server. ctx is not kept: it bounds
// nothing today and is there so that Dial may block in the future.
func Dial(ctx context.Context, addr string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
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
	dial = append(dial, cfg.dialOptions...)
	conn, err := grpc.NewClient(addr, dial...)
	if err != nil {
		return nil, fmt.Errorf("berth client: dial %s: %w", addr, err)
	}
	c := newClient(conn, cfg)
	c.conn = conn
	return c, nil
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
		backoff:   cfg.backoff,
		clock:     cfg.clock,
		logger:    cfg.logger,
	}
}

// Close closes the connection Dial made.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// Apply upserts objects with one unary call. Refused objects are returned as
// a *BatchError; the others took effect.
func (c *Client) Apply(ctx context.Context, objs ...*berthv1.Object) error {
	resp, err := c.State.Apply(ctx, &berthv1.ApplyRequest{Objects: objs})
	if err != nil {
		return fmt.Errorf("berth client: apply: %w", err)
	}
	return batchError(0, int(resp.GetApplied()), resp.GetErrors(), nil)
}

// Delete removes objects with one unary call. A reference Berth does not hold
// (NOT_FOUND) counts as deleted; other refusals are returned as a
// *BatchError.
func (c *Client) Delete(ctx context.Context, refs ...*berthv1.ObjectRef) error {
	resp, err := c.State.Delete(ctx, &berthv1.DeleteRequest{Refs: refs})
	if err != nil {
		return fmt.Errorf("berth client: delete: %w", err)
	}
	return batchError(0, int(resp.GetDeleted()), resp.GetErrors(), func(int) bool { return true })
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
