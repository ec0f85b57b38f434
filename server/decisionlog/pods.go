package decisionlog

import (
	"context"
)

// Recover reads the log's identity (ID), creating it the first time. Call
// it before the scheduler runs; the per-pod facts are the book's to
// restore (podbook.Book.Restore).
func (l *Log) Recover(ctx context.Context) error {
	return l.loadID(ctx)
}
