package cache

import (
	"maps"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// imageIndex counts, for every image name some node lists, the nodes that
// list it and keeps the size the first of them reported, as kube's cache
// does (cache.imageStates): while any node lists a name its size stays;
// when the last one drops it, the next node to list it sets it anew.
// The Cache owns it under Cache.mu.
type imageIndex struct {
	byName map[string]framework.ImageSummary
	// version changes whenever byName does, so snapshots copy it only then.
	version int64
}

// add counts node's image names, each once per node.
func (x *imageIndex) add(node *model.Node) {
	if len(node.Images) == 0 {
		return
	}
	if x.byName == nil {
		x.byName = make(map[string]framework.ImageSummary)
	}
	seen := make(map[string]struct{}, len(node.Images))
	for _, img := range node.Images {
		for _, name := range img.Names {
			if _, dup := seen[name]; dup {
				continue
			}
			seen[name] = struct{}{}
			s, ok := x.byName[name]
			if !ok {
				s.Size = img.SizeBytes
			}
			s.NumNodes++
			x.byName[name] = s
		}
	}
	x.version++
}

// remove uncounts node's image names, forgetting those no node lists.
func (x *imageIndex) remove(node *model.Node) {
	if node == nil || len(node.Images) == 0 {
		return
	}
	seen := make(map[string]struct{}, len(node.Images))
	for _, img := range node.Images {
		for _, name := range img.Names {
			if _, dup := seen[name]; dup {
				continue
			}
			seen[name] = struct{}{}
			s, ok := x.byName[name]
			if !ok {
				continue
			}
			if s.NumNodes--; s.NumNodes <= 0 {
				delete(x.byName, name)
			} else {
				x.byName[name] = s
			}
		}
	}
	x.version++
}

// update replaces old's images by node's; unchanged images (a node's
// heartbeat) change nothing.
func (x *imageIndex) update(old, node *model.Node) {
	if old != nil && sameImages(old.Images, node.Images) {
		return
	}
	x.remove(old)
	x.add(node)
}

func sameImages(a, b []model.ContainerImage) bool {
	return slices.EqualFunc(a, b, func(x, y model.ContainerImage) bool {
		return x.SizeBytes == y.SizeBytes && slices.Equal(x.Names, y.Names)
	})
}

// imageSnapshot is a snapshot's copy of the index.
type imageSnapshot struct {
	byName  map[string]framework.ImageSummary
	from    *imageIndex
	version int64
}

// syncLocked copies the index into s when it changed since s's copy.
func (x *imageIndex) syncLocked(s *imageSnapshot) {
	if s.from == x && s.version == x.version {
		return
	}
	s.byName = maps.Clone(x.byName)
	s.from, s.version = x, x.version
}

// ImageSummary implements framework.ImageLister.
func (s *Snapshot) ImageSummary(name string) (framework.ImageSummary, bool) {
	sum, ok := s.images.byName[name]
	return sum, ok
}
