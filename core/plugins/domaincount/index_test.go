package domaincount_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/cache"
	"github.com/berthsched/berth/core/framework"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/domaincount"
)

// webPerZone counts the app=web pods of each node in its zone.
func webPerZone(ni *framework.NodeInfo, buf []domaincount.Entry) []domaincount.Entry {
	n := int64(0)
	for _, p := range ni.Pods {
		if p.Pod.Labels["app"] == "web" {
			n++
		}
	}
	return append(buf, domaincount.Entry{Slot: "zone", Domain: ni.Node().Labels["topology.kubernetes.io/zone"], Count: n})
}

func visit(x *domaincount.Index, sig string, s *cache.Snapshot) map[string]domaincount.Total {
	out := map[string]domaincount.Total{}
	x.Visit(sig, s, webPerZone, func(_ string, domains map[string]domaincount.Total) {
		for d, t := range domains {
			out[d] = t
		}
	})
	return out
}

// TestIndexFollowsChanges: after pods come and go and nodes join and
// leave, the counts updated by deltas equal those of a new index built
// from every node; an evicted signature is rebuilt.
func TestIndexFollowsChanges(t *testing.T) {
	c := cache.New()
	c.AddNode(mt.MakeNode("n1").Zone("a").Obj())
	c.AddNode(mt.MakeNode("n2").Zone("a").Obj())
	c.AddNode(mt.MakeNode("n3").Zone("b").Obj())
	s := cache.NewEmptySnapshot()
	update := func() {
		t.Helper()
		if err := c.UpdateSnapshot(s); err != nil {
			t.Fatal(err)
		}
	}
	update()
	x := domaincount.New(1)
	if diff := cmp.Diff(map[string]domaincount.Total{"a": {0, 2}, "b": {0, 1}}, visit(x, "web", s)); diff != "" {
		t.Fatalf("empty cluster (-want +got):\n%s", diff)
	}
	web1 := mt.MakePod("w1").Label("app", "web").Node("n1").Obj()
	steps := []struct {
		name   string
		change func()
		want   map[string]domaincount.Total
	}{
		{"pod added", func() { _ = c.AddPod(web1) }, map[string]domaincount.Total{"a": {1, 2}, "b": {0, 1}}},
		{"other pod added", func() { _ = c.AddPod(mt.MakePod("db").Label("app", "db").Node("n3").Obj()) }, map[string]domaincount.Total{"a": {1, 2}, "b": {0, 1}}},
		{"node joins", func() { c.AddNode(mt.MakeNode("n4").Zone("c").Obj()) }, map[string]domaincount.Total{"a": {1, 2}, "b": {0, 1}, "c": {0, 1}}},
		{"pod removed", func() { _ = c.RemovePod(web1) }, map[string]domaincount.Total{"a": {0, 2}, "b": {0, 1}, "c": {0, 1}}},
		{"node leaves", func() { _ = c.RemoveNode("n3") }, map[string]domaincount.Total{"a": {0, 2}, "c": {0, 1}}},
	}
	for _, st := range steps {
		st.change()
		update()
		if diff := cmp.Diff(st.want, visit(x, "web", s)); diff != "" {
			t.Errorf("%s: by deltas (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.want, visit(domaincount.New(1), "web", s)); diff != "" {
			t.Errorf("%s: from scratch (-want +got):\n%s", st.name, diff)
		}
	}
	// A second signature evicts the first (max 1); the first is rebuilt.
	visit(x, "other", s)
	if diff := cmp.Diff(steps[len(steps)-1].want, visit(x, "web", s)); diff != "" {
		t.Errorf("after eviction (-want +got):\n%s", diff)
	}
}
