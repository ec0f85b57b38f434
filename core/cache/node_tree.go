package cache

import (
	"slices"

	"github.com/berthsched/berth/core/model"
)

// Zone labels read by zoneKey. The beta labels win over the GA ones, as in
// Kubernetes' GetZoneKey.
const (
	labelZoneBeta   = "failure-domain.beta.kubernetes.io/zone"
	labelRegionBeta = "failure-domain.beta.kubernetes.io/region"
)

// zoneKey identifies a node's failure zone (region and zone); "" when the
// node has neither label.
func zoneKey(n *model.Node) string {
	zone, ok := n.Labels[labelZoneBeta]
	if !ok {
		zone = n.Labels[model.LabelZone]
	}
	region, ok := n.Labels[labelRegionBeta]
	if !ok {
		region = n.Labels[model.LabelRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	// A NUL byte cannot appear in either part, so the key is unambiguous.
	return region + ":\x00:" + zone
}

// nodeTree holds node names per zone and lists them zone-interleaved. It is
// not safe for concurrent use; the Cache locks it.
type nodeTree struct {
	zones  []string            // in order of first appearance
	byZone map[string][]string // zone -> node names in insertion order
	// member holds each {zone, name} of byZone, so that adding a node
	// does not scan its zone (which made loading 100,000 nodes quadratic).
	member   map[[2]string]struct{}
	numNodes int
}

func newNodeTree() nodeTree {
	return nodeTree{byZone: make(map[string][]string), member: make(map[[2]string]struct{})}
}

// add appends the node to its zone; adding a node twice is a no-op.
func (t *nodeTree) add(n *model.Node) {
	zone := zoneKey(n)
	key := [2]string{zone, n.Name}
	if _, dup := t.member[key]; dup {
		return
	}
	names, ok := t.byZone[zone]
	t.member[key] = struct{}{}
	if !ok {
		t.zones = append(t.zones, zone)
	}
	t.byZone[zone] = append(names, n.Name)
	t.numNodes++
}

// remove drops the node from its zone (and the zone when it empties). It
// reports whether the node was there.
func (t *nodeTree) remove(n *model.Node) bool {
	zone := zoneKey(n)
	key := [2]string{zone, n.Name}
	if _, ok := t.member[key]; !ok {
		return false
	}
	delete(t.member, key)
	names := t.byZone[zone]
	i := slices.Index(names, n.Name)
	names = slices.Delete(slices.Clone(names), i, i+1)
	if len(names) == 0 {
		delete(t.byZone, zone)
		t.zones = slices.DeleteFunc(t.zones, func(z string) bool { return z == zone })
	} else {
		t.byZone[zone] = names
	}
	t.numNodes--
	return true
}

// update moves the node when its zone changed and reports whether it did.
func (t *nodeTree) update(old, cur *model.Node) bool {
	if zoneKey(old) == zoneKey(cur) {
		return false
	}
	t.remove(old)
	t.add(cur)
	return true
}

// list returns every node name, taking the i-th node of each zone in zone
// order before any (i+1)-th: zones {1,2,3,4} and {5,6} give 1 5 2 6 3 4.
func (t *nodeTree) list() []string {
	out := make([]string, 0, t.numNodes)
	for i, added := 0, true; added; i++ {
		added = false
		for _, z := range t.zones {
			if names := t.byZone[z]; i < len(names) {
				out = append(out, names[i])
				added = true
			}
		}
	}
	return out
}
