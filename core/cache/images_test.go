package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// The image index follows kube's cache: an image name's size is the first
// node's to list it while any node does, its count the nodes listing it;
// snapshots see every change.
func TestImageIndex(t *testing.T) {
	node := func(name string, images ...model.ContainerImage) *model.Node {
		return &model.Node{Name: name, Images: images}
	}
	img := func(size int64, names ...string) model.ContainerImage {
		return model.ContainerImage{Names: names, SizeBytes: size}
	}
	c := New()
	s := NewEmptySnapshot()
	check := func(step string, want map[string]framework.ImageSummary) {
		t.Helper()
		if err := c.UpdateSnapshot(s); err != nil {
			t.Fatal(err)
		}
		got := make(map[string]framework.ImageSummary)
		for _, name := range []string{"a", "b", "c"} {
			if sum, ok := s.ImageSummary(name); ok {
				got[name] = sum
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: summaries (-want +got):\n%s", step, diff)
		}
	}
	check("empty", map[string]framework.ImageSummary{})
	c.AddNode(node("n1", img(10, "a", "b"), img(99, "a")))
	c.AddNode(node("n2", img(20, "a")))
	check("two nodes", map[string]framework.ImageSummary{"a": {Size: 10, NumNodes: 2}, "b": {Size: 10, NumNodes: 1}})
	c.UpdateNode(node("n1", img(30, "b"), img(5, "c")))
	check("n1 drops a, b's size stays", map[string]framework.ImageSummary{
		"a": {Size: 10, NumNodes: 1}, "b": {Size: 30, NumNodes: 1}, "c": {Size: 5, NumNodes: 1},
	})
	c.UpdateNode(node("n1", img(30, "b"), img(5, "c")))
	check("unchanged update", map[string]framework.ImageSummary{
		"a": {Size: 10, NumNodes: 1}, "b": {Size: 30, NumNodes: 1}, "c": {Size: 5, NumNodes: 1},
	})
	c.AddNode(node("n3", img(40, "b")))
	check("n3 lists b at another size", map[string]framework.ImageSummary{
		"a": {Size: 10, NumNodes: 1}, "b": {Size: 30, NumNodes: 2}, "c": {Size: 5, NumNodes: 1},
	})
	if err := c.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	check("n1 removed", map[string]framework.ImageSummary{"a": {Size: 10, NumNodes: 1}, "b": {Size: 30, NumNodes: 1}})
	if err := c.RemoveNode("n3"); err != nil {
		t.Fatal(err)
	}
	c.AddNode(node("n4", img(50, "b")))
	check("b again after its last node went", map[string]framework.ImageSummary{"a": {Size: 10, NumNodes: 1}, "b": {Size: 50, NumNodes: 1}})
	ni, err := s.Get("n4")
	if err != nil {
		t.Fatal(err)
	}
	if !ni.HasImage("b") || ni.HasImage("a") {
		t.Errorf("n4 HasImage(b)=%v HasImage(a)=%v", ni.HasImage("b"), ni.HasImage("a"))
	}
}
