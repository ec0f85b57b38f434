package auth

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Failures are logged at warn, at most one line per interval; the next
// line counts those not logged.
func TestFailureLogRateLimits(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	now := time.Unix(0, 0)
	f := NewFailureLog(logger, time.Second, func() time.Time { return now })
	for _, step := range []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		now = now.Add(step)
		f.Warn("call refused", "peer", "10.0.0.1:1234")
	}
	want := []string{
		`level=WARN msg="call refused" peer=10.0.0.1:1234`,
		`level=WARN msg="call refused" peer=10.0.0.1:1234 not_logged_since_last=2`,
		`level=WARN msg="call refused" peer=10.0.0.1:1234`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(buf.String()), "\n")); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}
