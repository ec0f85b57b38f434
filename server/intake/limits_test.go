package intake

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A call's reservation replaces its previous one, fails whole (taking
// nothing) when either budget is short, and is given back at its end.
func TestReserve(t *testing.T) {
	in := New(Limits{Streams: 2, RequestBytes: 100})
	conn := &budget{limit: 60}
	ctx := context.WithValue(context.Background(), connBudgetKey{}, conn)
	a, err := in.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := in.begin(context.Background()) // a connection without a budget
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.begin(ctx); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third call with 2 streams allowed: %v, want RESOURCE_EXHAUSTED", err)
	}
	steps := []struct {
		name       string
		c          *call
		n          int64
		want       codes.Code
		conn, glob int64 // held after the step
	}{
		{"within both", a, 50, codes.OK, 50, 50},
		{"replaces the previous message", a, 60, codes.OK, 60, 60},
		{"over the connection's", a, 61, codes.ResourceExhausted, 0, 0},
		{"again within", a, 40, codes.OK, 40, 40},
		{"over the total, on another connection", b, 61, codes.ResourceExhausted, 40, 40},
		{"within the total", b, 60, codes.OK, 40, 100},
	}
	for _, s := range steps {
		err := s.c.reserve(s.n)
		if got := status.Code(err); got != s.want {
			t.Errorf("%s: reserve(%d) = %v, want %v", s.name, s.n, err, s.want)
		}
		if conn.used.Load() != s.conn || in.bytes.used.Load() != s.glob {
			t.Errorf("%s: held %d on the connection, %d in all; want %d, %d", s.name, conn.used.Load(), in.bytes.used.Load(), s.conn, s.glob)
		}
	}
	a.end()
	b.end()
	if conn.used.Load() != 0 || in.bytes.used.Load() != 0 || in.streams.Load() != 0 {
		t.Errorf("after the calls: %d, %d bytes and %d streams held, want none", conn.used.Load(), in.bytes.used.Load(), in.streams.Load())
	}
}
