package intake

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"

	"github.com/berthsched/berth/server/errmap"
)

// Limits bound what calls in flight may hold. A field of 0 is no bound.
type Limits struct {
	// ConnStreams bounds the calls in flight on one connection. It is the
	// HTTP/2 MAX_CONCURRENT_STREAMS setting: a gRPC client waits for a
	// free stream rather than failing; a client ignoring the setting has
	// its stream refused (REFUSED_STREAM).
	ConnStreams uint32
	// Streams bounds the calls in flight on all connections together.
	Streams int64
	// ConnRequestBytes bounds the bytes of request messages the calls of
	// one connection hold.
	ConnRequestBytes int64
	// RequestBytes bounds the bytes of request messages all calls hold.
	RequestBytes int64
}

// Defaults: room for two maximum-size requests (16 MiB) per connection
// and four in all, and far more streams than an orchestrator and its
// watchers need. Decoded, a request of many small objects takes about
// seven times its wire size (a 15 MB Apply of 41,682 nodes: ~105 MB), so
// these keep the requests' memory under about half a GiB; an
// orchestrator's batches (10,000 objects, a few MB) fit many at once.
const (
	DefaultConnStreams      = 1024
	DefaultStreams          = 16384
	DefaultConnRequestBytes = 32 << 20
	DefaultRequestBytes     = 64 << 20
)

// DefaultLimits are the limits berthd runs with unless told otherwise.
func DefaultLimits() Limits {
	return Limits{
		ConnStreams: DefaultConnStreams, Streams: DefaultStreams,
		ConnRequestBytes: DefaultConnRequestBytes, RequestBytes: DefaultRequestBytes,
	}
}

// Intake admits calls within Limits. Build one per server with New.
type Intake struct {
	limits  Limits
	streams atomic.Int64
	bytes   budget
}

// New returns an Intake enforcing l.
func New(l Limits) *Intake {
	return &Intake{limits: l, bytes: budget{limit: l.RequestBytes}}
}

// ServerOptions are the options the wrapped handlers need: the codec that
// hands them raw messages, and the stats handler that gives each
// connection its byte budget. Install them on the server whose services
// are registered through Registrar, and no other codec.
func (in *Intake) ServerOptions() []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(codec{}),
		grpc.StatsHandler(connBudgets{limit: in.limits.ConnRequestBytes}),
	}
	if in.limits.ConnStreams > 0 {
		opts = append(opts, grpc.MaxConcurrentStreams(in.limits.ConnStreams))
	}
	return opts
}

// budget is a count of bytes held, at most limit (none when limit <= 0).
type budget struct {
	limit int64
	used  atomic.Int64
}

// take reserves n bytes; false, reserving nothing, when they do not fit.
func (b *budget) take(n int64) bool {
	if b.limit <= 0 {
		return true
	}
	for {
		used := b.used.Load()
		if used+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// give returns n bytes taken.
func (b *budget) give(n int64) {
	if b.limit > 0 {
		b.used.Add(-n)
	}
}

// connBudgets is the stats handler giving each connection its budget,
// found in the context of every call on it.
type connBudgets struct{ limit int64 }

type connBudgetKey struct{}

func (c connBudgets) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return context.WithValue(ctx, connBudgetKey{}, &budget{limit: c.limit})
}
func (connBudgets) HandleConn(context.Context, stats.ConnStats)                     {}
func (connBudgets) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (connBudgets) HandleRPC(context.Context, stats.RPCStats)                       {}

// call is one call admitted: it holds a stream and the bytes of the
// request message its handler was last given. held is atomic so that a
// handler receiving on another goroutine than its own cannot race end.
type call struct {
	in   *Intake
	conn *budget // nil when the connection has none
	held atomic.Int64
}

// begin admits a call, before anything of its request is read.
func (in *Intake) begin(ctx context.Context) (*call, error) {
	if n := in.streams.Add(1); in.limits.Streams > 0 && n > in.limits.Streams {
		in.streams.Add(-1)
		return nil, errmap.Status(errmap.Refuse(errmap.ErrOverLimit, "berthd has %d calls in flight, its limit: retry later", in.limits.Streams))
	}
	c := &call{in: in}
	c.conn, _ = ctx.Value(connBudgetKey{}).(*budget)
	return c, nil
}

// reserve holds n bytes for the request message about to be decoded, in
// place of the previous one's.
func (c *call) reserve(n int64) error {
	c.release()
	if c.conn != nil && !c.conn.take(n) {
		return errmap.Status(errmap.Refuse(errmap.ErrOverLimit, "this connection's calls hold %d bytes of requests, and %d more do not fit in its limit of %d: retry later or on another connection",
			c.conn.used.Load(), n, c.conn.limit))
	}
	if !c.in.bytes.take(n) {
		if c.conn != nil {
			c.conn.give(n)
		}
		return errmap.Status(errmap.Refuse(errmap.ErrOverLimit, "berthd's calls hold %d bytes of requests, and %d more do not fit in its limit of %d: retry later",
			c.in.bytes.used.Load(), n, c.in.bytes.limit))
	}
	c.held.Store(n)
	return nil
}

// release gives back the bytes held.
func (c *call) release() {
	n := c.held.Swap(0)
	if n == 0 {
		return
	}
	if c.conn != nil {
		c.conn.give(n)
	}
	c.in.bytes.give(n)
}

// end releases everything the call holds.
func (c *call) end() {
	c.release()
	c.in.streams.Add(-1)
}
