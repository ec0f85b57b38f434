package store

import (
	"fmt"
	"time"
)

// Retention is the compaction policy: which old records may be removed. A
// record is removed when either limit says so; zero disables a limit, and the
// zero Retention keeps everything. The newest record is always kept, so the
// revision counter stays visible in the log.
type Retention struct {
	// MaxRecords keeps at most this many records.
	MaxRecords int
	// MaxAge keeps only records younger than this.
	MaxAge time.Duration
}

// Validate rejects negative limits.
func (r Retention) Validate() error {
	if r.MaxRecords < 0 {
		return fmt.Errorf("store: retention: negative MaxRecords %d", r.MaxRecords)
	}
	if r.MaxAge < 0 {
		return fmt.Errorf("store: retention: negative MaxAge %v", r.MaxAge)
	}
	return nil
}

// Expired reports whether the record at revision rev, committed at `at`, may
// be removed when the newest revision is last and the time is now.
func (r Retention) Expired(rev, last uint64, at, now time.Time) bool {
	if rev >= last {
		return false
	}
	if r.MaxRecords > 0 && last-rev >= uint64(r.MaxRecords) {
		return true
	}
	return r.MaxAge > 0 && now.Sub(at) >= r.MaxAge
}
