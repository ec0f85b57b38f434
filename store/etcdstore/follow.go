package etcdstore

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// follow watches the prefix from etcd revision after+1 on, so that
// Revisions and Wait see every replica's commits and compactions, until
// Close. When the watch fails (etcd compacted the history it needed, a
// connection lost for long), it reads the revisions again and watches
// from there.
func (s *Store) follow(after int64) {
	defer close(s.followDone)
	for s.bg.Err() == nil {
		after = s.watch(after)
		if s.bg.Err() != nil {
			return
		}
		rev, err := s.reload()
		if err != nil {
			s.opts.Logger.Warn("etcdstore: cannot read the revisions again after the watch ended; retrying", "error", err)
			select {
			case <-time.After(time.Second):
			case <-s.bg.Done():
			}
			continue
		}
		after = rev
	}
}

// watch follows the prefix until the watch ends; it returns the etcd
// revision it saw last.
func (s *Store) watch(after int64) int64 {
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(s.bg))
	defer cancel()
	wc := s.cli.Watch(ctx, s.opts.Prefix, clientv3.WithPrefix(), clientv3.WithRev(after+1))
	for resp := range wc {
		if err := resp.Err(); err != nil {
			if !errors.Is(err, context.Canceled) {
				s.opts.Logger.Warn("etcdstore: watch ended", "error", err)
			}
			return after
		}
		for _, ev := range resp.Events {
			s.observe(ev.Type == clientv3.EventTypeDelete, ev.Kv.Key, ev.Kv.Value)
		}
		after = max(after, resp.Header.Revision)
	}
	return after
}

// observe applies one watched change to the revisions: a new next
// revision, or a record removed by compaction.
func (s *Store) observe(deleted bool, key, value []byte) {
	k := string(key)
	switch {
	case k == s.keys.next() && !deleted:
		if next, err := parseMetaInt(k, value); err == nil && next > 0 {
			s.revs.Advance(0, next-1)
		}
	case deleted && len(k) > len(s.keys.logFrom()) && k[:len(s.keys.logFrom())] == s.keys.logFrom():
		if rev, err := s.keys.revision(key); err == nil {
			s.revs.Advance(rev+1, 0)
		}
	}
}

// reload reads the next revision and the oldest record again.
func (s *Store) reload() (int64, error) {
	var rev int64
	err := s.request(s.bg, "range", func(ctx context.Context) error {
		resp, err := s.cli.Txn(ctx).Then(
			clientv3.OpGet(s.keys.next()),
			clientv3.OpGet(s.keys.logFrom(), clientv3.WithRange(s.keys.logEnd()), clientv3.WithLimit(1), clientv3.WithKeysOnly()),
		).Commit()
		if err != nil {
			return err
		}
		rev = resp.Header.Revision
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			s.observe(false, kvs[0].Key, kvs[0].Value)
		}
		if kvs := resp.Responses[1].GetResponseRange().Kvs; len(kvs) > 0 {
			if first, err := s.keys.revision(kvs[0].Key); err == nil && first > 1 {
				s.revs.Advance(first, 0)
			}
		}
		return nil
	})
	return rev, err
}
