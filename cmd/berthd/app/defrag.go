package app

import (
	"fmt"
	"time"

	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/defragsvc"
)

// defragOptions are the --defragment settings.
type defragOptions struct {
	enabled  bool
	maxMoves int
	timeout  time.Duration
	interval time.Duration
}

func defaultDefragOptions() defragOptions {
	return defragOptions{maxMoves: defragsvc.DefaultMaxMoves, timeout: defragsvc.DefaultTimeout, interval: defragsvc.DefaultInterval}
}

// daemon is the daemon's setting: nil when --defragment is off. Each
// bound must be positive (zero would mean no bound at all), whether or not
// --defragment is on, so a bad value is not found only once it is.
func (o defragOptions) daemon() (*daemon.Defragment, error) {
	switch {
	case o.maxMoves <= 0:
		return nil, fmt.Errorf("--defragment-max-moves: %d is not positive", o.maxMoves)
	case o.timeout <= 0:
		return nil, fmt.Errorf("--defragment-timeout: %s is not positive", o.timeout)
	case o.interval <= 0:
		return nil, fmt.Errorf("--defragment-interval: %s is not positive", o.interval)
	case !o.enabled:
		return nil, nil
	}
	return &daemon.Defragment{MaxMoves: o.maxMoves, Timeout: o.timeout, Interval: o.interval}, nil
}
