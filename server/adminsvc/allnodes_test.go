package adminsvc_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/adminsvc"
)

// AllNodes answers what ListNodes answers page after page.
func TestAllNodesIsEveryPage(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var nodes []*model.Node
	for i := range 2500 {
		nodes = append(nodes, node(fmt.Sprintf("n%04d", i), 1000))
	}
	e.load(t, nodes, pod("a", 300).Node("n0007").Obj(), pod("big", 9000).Nominated("n0002").Obj())
	var paged []*berthv1.NodeUsage
	for token := ""; ; {
		resp, err := e.client.ListNodes(ctx, &berthv1.ListNodesRequest{PageSize: 1000, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, resp.GetNodes()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	all, err := adminsvc.New(e.sched.View(), adminsvc.Options{}).AllNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2500 {
		t.Fatalf("AllNodes: %d nodes, want 2500", len(all))
	}
	if diff := cmp.Diff(paged, all, protocmp.Transform()); diff != "" {
		t.Errorf("AllNodes against the pages of ListNodes (-pages +all):\n%s", diff)
	}
}
