package etcdstore_test

import (
	"context"
	"fmt"
	"testing"

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
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		n++
		prefix := fmt.Sprintf("/conformance/%d/", n)
		return func(t *testing.T, o storetest.Options) store.Store {
			s, err := etcdstore.Open(context.Background(), cli, etcdstore.Options{
				Prefix: prefix, Retention: o.Retention, Clock: o.Clock, CompactInterval: -1,
			})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		}
	})
}
