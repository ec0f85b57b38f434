package etcdstore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
	"github.com/berthsched/berth/store/storetest"
)

// TestConformance holds etcdstore to the contract every backend passes,
// each subtest under its own prefix of one embedded etcd.
func TestConformance(t *testing.T) {
	_, cli := etcdtest.New(t)
	n := 0
	storetest.Run(t, func(t *testing.T) storetest.Place {
		n++
		prefix := fmt.Sprintf("/conformance/%d/", n)
		return storetest.Place{
			Open: func(t *testing.T, o storetest.Options) store.Store {
				s, err := etcdstore.Open(context.Background(), cli, etcdstore.Options{
					Prefix: prefix, Retention: o.Retention, Clock: o.Clock, CompactInterval: -1,
				})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return s
			},
			Damage: storetest.Damage{
				// The layout of etcdstore/layout.go: the time header is 8 bytes.
				Record: func(t *testing.T, rev uint64) { flipKey(t, cli, fmt.Sprintf("%slog/%020d", prefix, rev), 8) },
				Value: func(t *testing.T, sp store.Space, key []byte) {
					flipKey(t, cli, fmt.Sprintf("%sspace/%s/%s", prefix, sp, key), 0)
				},
			},
		}
	})
}

// flipKey flips a bit of byte i of key's value.
func flipKey(t *testing.T, cli *clientv3.Client, key string, i int) {
	t.Helper()
	resp, err := cli.Get(context.Background(), key)
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("Get(%s) = %v, %v; want its value", key, resp, err)
	}
	v := bytes.Clone(resp.Kvs[0].Value)
	if len(v) <= i {
		t.Fatalf("%s holds %d bytes, none to damage at %d", key, len(v), i)
	}
	v[i] ^= 0x10
	if _, err := cli.Put(context.Background(), key, string(v)); err != nil {
		t.Fatal(err)
	}
}
