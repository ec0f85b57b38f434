package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
)

// compactChunk is the most records one compaction transaction removes, and
// scanChunk the most read at once to judge their age.
const (
	compactChunk = 8192
	scanChunk    = 1024
)

// compactInBackground applies the retention policy, every
// CompactInterval until Close (logstore.Intake.Every).
func (s *Store) compactInBackground() {
	if _, err := s.Compact(s.bg); err != nil {
		s.opts.Logger.Warn("etcdstore: compaction failed", "error", err)
	}
}

// Compact implements store.Store: it removes the records the retention
// policy lets go, oldest first, in fenced transactions of at most
// compactChunk records.
func (s *Store) Compact(ctx context.Context) (int, error) {
	return s.in.Compact(s.opts.Retention, func() (int, error) { return s.compact(ctx) })
}

func (s *Store) compact(ctx context.Context) (int, error) {
	first, last := s.Revisions()
	if last == 0 || first >= last {
		return 0, nil
	}
	upto, err := s.expiredBefore(ctx, first, last)
	if err != nil {
		return 0, err
	}
	removed := 0
	for from := first; from < upto; {
		to := min(from+compactChunk, upto)
		n, err := s.remove(ctx, from, to)
		removed += n
		if err != nil {
			return removed, err
		}
		s.revs.Advance(to, 0)
		from = to
	}
	return removed, nil
}

// expiredBefore returns the revision before which every record may go.
func (s *Store) expiredBefore(ctx context.Context, first, last uint64) (uint64, error) {
	ret, now := s.opts.Retention, s.opts.Clock()
	upto := first
	if ret.MaxRecords > 0 && last >= uint64(ret.MaxRecords) {
		upto = max(upto, last-uint64(ret.MaxRecords)+1)
	}
	if ret.MaxAge <= 0 {
		return min(upto, last), nil
	}
	for upto < last {
		recs, err := s.Read(ctx, upto, scanChunk)
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			if !ret.Expired(r.Revision, last, r.Time, now) {
				return upto, nil
			}
			upto = r.Revision + 1
		}
		if len(recs) == 0 {
			break
		}
	}
	return min(upto, last), nil
}

// remove deletes the records from..to-1 in one fenced transaction.
func (s *Store) remove(ctx context.Context, from, to uint64) (int, error) {
	var cmps []clientv3.Cmp
	if f := s.opts.Fence; f != nil {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(f.Key), "=", f.CreateRevision))
	}
	var resp *clientv3.TxnResponse
	err := s.request(ctx, "compact", func(ctx context.Context) (err error) {
		resp, err = s.cli.Txn(ctx).If(cmps...).
			Then(clientv3.OpDelete(s.keys.record(from), clientv3.WithRange(s.keys.record(to)))).Commit()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("etcdstore: compact revisions %d-%d: %w", from, to-1, err)
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("%w: election key %s is gone or was created again; compaction of revisions %d-%d not done",
			store.ErrFenced, s.opts.Fence.Key, from, to-1)
	}
	return int(resp.Responses[0].GetResponseDeleteRange().Deleted), nil
}

// Retention is the compaction policy the store applies (Options.Retention).
func (s *Store) Retention() store.Retention { return s.opts.Retention }
