package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
	"github.com/berthsched/berth/store/logstore"
)

// Sizes counted for a transaction besides its keys and values: what etcd's
// request encoding adds per operation (tags, lengths, the op's wrapper) and
// per transaction (compares, header), rounded up.
const (
	opOverhead  = 32
	txnOverhead = 1024
)

// request is one Commit handed to the committer, with copies of the batch.
type request struct {
	logstore.Call
	records [][]byte
	ops     []store.Op
	nOps    int // etcd operations: records and distinct keys
	size    int // bytes they count towards the request limit
}

// newRequest copies b and counts what it needs in a transaction.
func (s *Store) newRequest(ctx context.Context, b *store.Batch) *request {
	r := &request{}
	r.Init(ctx, len(b.Records))
	for _, p := range b.Records {
		r.records = append(r.records, append([]byte(nil), p...))
		r.size += len(s.keys.record(0)) + timeSize + len(p) + crcSize + opOverhead
	}
	seen := make(map[string]bool, len(b.Ops))
	for _, op := range b.Ops {
		c := store.Op{Space: op.Space, Key: append([]byte(nil), op.Key...), Delete: op.Delete}
		if !op.Delete {
			c.Value = append([]byte{}, op.Value...)
		}
		r.ops = append(r.ops, c)
		k := s.keys.spaceKey(op.Space, op.Key)
		if !seen[k] {
			seen[k] = true
			r.nOps++
		}
		// Every op counts, even a key written twice: an upper bound.
		r.size += len(k) + len(op.Value) + crcSize + opOverhead
	}
	r.nOps += len(b.Records)
	return r
}

// fits reports whether a transaction of n etcd operations and size bytes
// is within the limits, counting the next-revision put.
func (s *Store) fits(n, size int) bool {
	return n+1 <= s.opts.MaxTxnOps && size+txnOverhead <= s.opts.MaxTxnBytes
}

// Commit implements store.Store. A batch that cannot fit in one etcd
// transaction is refused (store.ErrInvalidBatch), never split: it would
// not be atomic.
func (s *Store) Commit(ctx context.Context, b *store.Batch) (store.CommitResult, error) {
	if ok, err := s.in.Admit(ctx, b); !ok {
		return store.CommitResult{}, err
	}
	r := s.newRequest(ctx, b)
	if !s.fits(r.nOps, r.size) {
		return store.CommitResult{}, fmt.Errorf("%w: %d records and %d keyspace keys need %d operations and about %d bytes in one etcd transaction; "+
			"etcd takes at most %d operations (--max-txn-ops, one is the revision counter) and %d bytes (--max-request-bytes) per request",
			store.ErrInvalidBatch, len(b.Records), r.nOps-len(b.Records), r.nOps+1, r.size+txnOverhead, s.opts.MaxTxnOps, s.opts.MaxTxnBytes)
	}
	if err := s.in.HandOver(ctx, r); err != nil {
		return store.CommitResult{}, err
	}
	return s.in.Await(ctx, &r.Call)
}

// commitLoop is the committer: it takes what queued while the previous
// transaction ran and writes it in as few transactions as the limits allow.
// On stop it writes what was queued and returns.
func (s *Store) commitLoop() {
	reqs, stop := s.in.Requests(), s.in.Stopping()
	var carry *request // the request that did not fit the previous transaction
	for {
		var first *request
		switch {
		case carry != nil:
			first, carry = carry, nil
		default:
			select {
			case first = <-reqs:
			case <-stop:
				s.drain()
				return
			}
		}
		group, next := s.gather(first)
		s.write(group)
		carry = next
	}
}

// gather adds queued requests to first's transaction while they fit; it
// returns the first one that does not, if any.
func (s *Store) gather(first *request) (group []*request, carry *request) {
	group = []*request{first}
	n, size := first.nOps, first.size
	reqs := s.in.Requests()
	for len(group) < s.opts.MaxBatch {
		select {
		case r := <-reqs:
			if !s.fits(n+r.nOps, size+r.size) {
				return group, r
			}
			group = append(group, r)
			n, size = n+r.nOps, size+r.size
		default:
			return group, nil
		}
	}
	return group, nil
}

func (s *Store) drain() {
	reqs := s.in.Requests()
	for {
		select {
		case r := <-reqs:
			group, carry := s.gather(r)
			s.write(group)
			if carry != nil {
				s.write([]*request{carry})
			}
		default:
			return
		}
	}
}

// write commits one group in one transaction and answers its callers.
func (s *Store) write(group []*request) {
	live := logstore.Live("etcdstore", group)
	if len(live) == 0 {
		return
	}
	if s.failed == nil && s.unsure {
		if err := s.resync(); err != nil {
			logstore.Fail(live, err)
			return
		}
	}
	if s.failed != nil {
		logstore.Fail(live, s.failed)
		return
	}
	now := s.clock.Stamp()
	ops, n := s.txnOps(live, now)
	err := s.request(context.Background(), "txn", func(ctx context.Context) error {
		resp, err := s.cli.Txn(ctx).If(s.conditions()...).Then(ops...).Else(s.elseOps()...).Commit()
		if err != nil {
			s.unsure = true
			return fmt.Errorf("etcdstore: commit outcome unknown: %w", err)
		}
		if !resp.Succeeded {
			s.failed = s.fenceError(resp)
			s.fenceOnce.Do(func() { close(s.fenced) })
			return s.failed
		}
		return nil
	})
	if err != nil {
		logstore.Fail(live, err)
		return
	}
	first := s.next
	s.next += uint64(n)
	s.clock.Committed(now)
	s.revs.Advance(0, s.next-1)
	logstore.Committed(live, first, now)
}

// txnOps returns the operations of a group's transaction and how many
// records it appends. Keyspace operations are applied in order, so only the
// last one on each key counts (etcd refuses a key written twice in one
// transaction).
func (s *Store) txnOps(group []*request, now time.Time) ([]clientv3.Op, int) {
	var ops []clientv3.Op
	rev := s.next
	for _, r := range group {
		for _, p := range r.records {
			ops = append(ops, clientv3.OpPut(s.keys.record(rev), string(recordValue(rev, now, p))))
			rev++
		}
	}
	n := int(rev - s.next)
	last := make(map[string]int)
	var order []string
	var spaceOps []store.Op
	for _, r := range group {
		for _, op := range r.ops {
			k := s.keys.spaceKey(op.Space, op.Key)
			if i, ok := last[k]; ok {
				spaceOps[i] = op
				continue
			}
			last[k] = len(spaceOps)
			order = append(order, k)
			spaceOps = append(spaceOps, op)
		}
	}
	for i, op := range spaceOps {
		if op.Delete {
			ops = append(ops, clientv3.OpDelete(order[i]))
		} else {
			ops = append(ops, clientv3.OpPut(order[i], string(checksum.SealValue(op.Space, op.Key, op.Value))))
		}
	}
	return append(ops, clientv3.OpPut(s.keys.next(), formatMetaInt(rev))), n
}

// conditions are every write's: next-revision unchanged, and the fence.
func (s *Store) conditions() []clientv3.Cmp {
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.Value(s.keys.next()), "=", formatMetaInt(s.next))}
	if f := s.opts.Fence; f != nil {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(f.Key), "=", f.CreateRevision))
	}
	return cmps
}

// elseOps read what a failed condition needs to be explained.
func (s *Store) elseOps() []clientv3.Op {
	ops := []clientv3.Op{clientv3.OpGet(s.keys.next())}
	if f := s.opts.Fence; f != nil {
		ops = append(ops, clientv3.OpGet(f.Key))
	}
	return ops
}

// fenceError explains a failed transaction's conditions.
func (s *Store) fenceError(resp *clientv3.TxnResponse) error {
	kv := func(i int) *mvccpb.KeyValue {
		if i >= len(resp.Responses) {
			return nil
		}
		if kvs := resp.Responses[i].GetResponseRange().GetKvs(); len(kvs) > 0 {
			return kvs[0]
		}
		return nil
	}
	if f := s.opts.Fence; f != nil {
		switch k := kv(1); {
		case k == nil:
			return fmt.Errorf("%w: election key %s is gone (its lease expired or was revoked); nothing was written", store.ErrFenced, f.Key)
		case k.CreateRevision != f.CreateRevision:
			return fmt.Errorf("%w: election key %s was created again at etcd revision %d, this leader's at %d; nothing was written",
				store.ErrFenced, f.Key, k.CreateRevision, f.CreateRevision)
		}
	}
	next := "missing"
	if k := kv(0); k != nil {
		next = string(k.Value)
	}
	return fmt.Errorf("%w: %s is %s where this store expected %d: another writer appended; nothing was written",
		store.ErrFenced, s.keys.next(), next, s.next)
}

// resync re-reads the next revision after a transaction whose outcome is
// unknown: if it went through, its revisions are taken (its callers were
// told the outcome was unknown, and Read tells them now). While it cannot
// be read, commits fail with store.ErrUnavailable.
func (s *Store) resync() error {
	err := s.request(context.Background(), "range", func(ctx context.Context) error {
		resp, err := s.cli.Get(ctx, s.keys.next())
		if err != nil {
			return err
		}
		if len(resp.Kvs) == 0 {
			return fmt.Errorf("%w: %s missing", store.ErrCorrupt, s.keys.next())
		}
		next, err := parseMetaInt(s.keys.next(), resp.Kvs[0].Value)
		if err != nil {
			return err
		}
		if next < s.next {
			return fmt.Errorf("%w: %s went back from %d to %d", store.ErrCorrupt, s.keys.next(), s.next, next)
		}
		s.next = next
		s.revs.Advance(0, next-1)
		return nil
	})
	if errors.Is(err, store.ErrCorrupt) {
		s.failed = err
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: etcd: after a commit of unknown outcome, cannot read %s: %w", store.ErrUnavailable, s.keys.next(), err)
	}
	s.unsure = false
	return nil
}
