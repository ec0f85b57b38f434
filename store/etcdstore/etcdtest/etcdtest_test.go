package etcdtest_test

import (
	"context"
	"testing"

	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

func TestStartServes(t *testing.T) {
	_, cli := etcdtest.New(t)
	ctx := context.Background()
	if _, err := cli.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, "k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get k = %v, %v; want v", resp, err)
	}
}
