package daemon

import (
	"time"

	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/metrics"
)

// schedulerMetrics sends the scheduler's measurements to Prometheus and
// its attempts also to the admin service's counter.
type schedulerMetrics struct {
	*metrics.Metrics
	attempts *adminsvc.Counter
}

func (m schedulerMetrics) ObserveAttempt(profile, result string, d time.Duration) {
	m.Metrics.ObserveAttempt(profile, result, d)
	m.attempts.ObserveAttempt(profile, result, d)
}

// clockFunc adapts a time function to framework.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }
