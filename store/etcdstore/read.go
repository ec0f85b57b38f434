package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
)

// Read implements store.Store. It reads up to the newest revision this
// store has seen (its own commits, or the watch's).
func (s *Store) Read(ctx context.Context, from uint64, limit int) ([]store.Record, error) {
	if s.in.Closed() {
		return nil, store.ErrClosed
	}
	return s.revs.Read(ctx, from, limit, s.readRange)
}

// readRange reads the n records from `from` on; on a damaged record, the
// ones before it and its *store.CorruptRecordError (logstore.Older).
func (s *Store) readRange(ctx context.Context, from, n uint64) ([]store.Record, error) {
	var resp *clientv3.GetResponse
	err := s.request(ctx, "range", func(ctx context.Context) (err error) {
		resp, err = s.cli.Get(ctx, s.keys.record(from), clientv3.WithRange(s.keys.record(from+n)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("etcdstore: read from revision %d: %w", from, err)
	}
	out := make([]store.Record, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		rev, err := s.keys.revision(kv.Key)
		if err != nil {
			return nil, err
		}
		if want := from + uint64(len(out)); rev != want {
			if len(out) == 0 {
				// Compacted since Revisions was read.
				return nil, &store.CompactedError{Requested: from, Oldest: rev}
			}
			return nil, fmt.Errorf("%w: log has revision %d where %d belongs", store.ErrCorrupt, rev, want)
		}
		r, err := decodeRecord(rev, kv.Value)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if uint64(len(out)) < n {
		if len(out) == 0 {
			// Everything asked for was compacted since: the newest record
			// always stays, so the oldest is past the range.
			first, _ := s.Revisions()
			return nil, &store.CompactedError{Requested: from, Oldest: max(first, from+n)}
		}
		return nil, fmt.Errorf("%w: log ends at revision %d, before %d", store.ErrCorrupt, from+uint64(len(out))-1, from+n-1)
	}
	return out, nil
}

// Get implements store.Store.
func (s *Store) Get(space store.Space, key []byte) ([]byte, bool, error) {
	if err := s.in.Readable(space); err != nil {
		return nil, false, err
	}
	var resp *clientv3.GetResponse
	err := s.request(context.Background(), "range", func(ctx context.Context) (err error) {
		resp, err = s.cli.Get(ctx, s.keys.spaceKey(space, key))
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("etcdstore: get %s %q: %w", space, key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, false, nil
	}
	v, ok := s.values.Open(space, key, resp.Kvs[0].Value)
	return v, ok, nil
}

// List implements store.Store.
func (s *Store) List(space store.Space) ([]store.KV, error) {
	if err := s.in.Readable(space); err != nil {
		return nil, err
	}
	prefix := s.keys.space(space)
	var resp *clientv3.GetResponse
	err := s.request(context.Background(), "range", func(ctx context.Context) (err error) {
		resp, err = s.cli.Get(ctx, prefix, clientv3.WithPrefix())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("etcdstore: list %s: %w", space, err)
	}
	out := make([]store.KV, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		key := kv.Key[len(prefix):]
		if v, ok := s.values.Open(space, key, kv.Value); ok {
			out = append(out, store.KV{Key: key, Value: v})
		}
	}
	return out, nil
}
