package deschedule

import (
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// ownerKey is a pod's owner with the pod's images: pods sharing one are
// duplicates.
type ownerKey struct {
	namespace, kind, name, images string
}

// removeDuplicates spreads each owner's duplicate pods: on a node with
// more than ceil(pods/target nodes) of them, the extra ones are evicted.
func (r *run) removeDuplicates(a *policy.RemoveDuplicatesArgs, nodes []*model.Node) {
	duplicates := map[ownerKey]map[string][]*model.Pod{}
	var keyOrder []ownerKey
	occurrences := map[ownerKey]int{}
	eligible := r.eligible(&policy.Filtered{Namespaces: a.Namespaces})
	for _, n := range nodes {
		seen := map[string][][]string{}
		for _, p := range r.s.podsOn(n.Name, eligible) {
			os := owners(p)
			if len(os) == 0 || excludedKind(os, a.ExcludeOwnerKinds) {
				continue
			}
			var images []string
			if p.Runtime != nil {
				images = append(images, p.Runtime.Images...)
			}
			sort.Strings(images)
			hash := strings.Join(images, "#")
			var keys []string
			for _, o := range os {
				occurrences[ownerKey{p.Namespace, o.Kind, o.Name, hash}]++
				for _, img := range images {
					keys = append(keys, strings.Join([]string{p.Namespace, o.Kind, o.Name, img}, "/"))
				}
			}
			sort.Strings(keys)
			if len(keys) == 0 {
				continue // a pod without containers' images: nothing to compare
			}
			matched := false
			for _, k := range seen[keys[0]] {
				if reflect.DeepEqual(k, keys) {
					matched = true
					break
				}
			}
			if !matched {
				seen[keys[0]] = append(seen[keys[0]], keys)
				continue
			}
			for _, o := range os {
				key := ownerKey{p.Namespace, o.Kind, o.Name, hash}
				if duplicates[key] == nil {
					duplicates[key] = map[string][]*model.Pod{}
					keyOrder = append(keyOrder, key)
				}
				duplicates[key][n.Name] = append(duplicates[key][n.Name], p)
			}
		}
	}
	for _, key := range keyOrder {
		podNodes := duplicates[key]
		targets := r.targetNodes(podNodes, nodes)
		if targets < 2 {
			continue
		}
		upper := int(math.Ceil(float64(occurrences[key]) / float64(targets)))
		names := make([]string, 0, len(podNodes))
		for name := range podNodes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			pods := podNodes[name]
			if len(pods)+1 <= upper {
				continue
			}
			if r.evictEach(pods[upper-1:], policy.RemoveDuplicates) {
				return
			}
		}
	}
}

func excludedKind(os []model.OwnerReference, kinds []string) bool {
	for _, o := range os {
		if contains(kinds, o.Kind) {
			return true
		}
	}
	return false
}

// targetNodes counts the nodes some distinct placement constraint of the
// duplicates (tolerations, required affinity, node selector) allows,
// counting only constraints that allow more than one node.
func (r *run) targetNodes(podNodes map[string][]*model.Pod, nodes []*model.Node) int {
	var distinct []*model.Pod
	names := make([]string, 0, len(podNodes))
	for name := range podNodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, p := range podNodes[name] {
			dup := false
			for _, d := range distinct {
				if samePlacement(p, d) {
					dup = true
					break
				}
			}
			if !dup {
				distinct = append(distinct, p)
			}
		}
	}
	targets := map[string]bool{}
	for _, p := range distinct {
		var matching []string
		for _, n := range nodes {
			if toleratesTaints(p.Tolerations, sentTaints(n), scheduleEffects) && matchesNodeSelector(p, n) {
				matching = append(matching, n.Name)
			}
		}
		if len(matching) > 1 {
			for _, name := range matching {
				targets[name] = true
			}
		}
	}
	return len(targets)
}

// samePlacement: the same tolerations, required node affinity and node
// selector (compared as the Descheduler does, order aside).
func samePlacement(a, b *model.Pod) bool {
	return sameTolerations(a.Tolerations, b.Tolerations) &&
		reflect.DeepEqual(requiredTerms(a), requiredTerms(b)) &&
		sameStringMap(a.NodeSelector, b.NodeSelector)
}

func requiredTerms(p *model.Pod) *model.NodeSelector {
	if p.Affinity == nil || p.Affinity.NodeAffinity == nil {
		return nil
	}
	return p.Affinity.NodeAffinity.Required
}

func sameStringMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameTolerations(a, b []model.Toleration) bool {
	norm := func(ts []model.Toleration) []model.Toleration {
		out := make([]model.Toleration, 0, len(ts))
		for _, t := range ts {
			dup := false
			for _, o := range out {
				if o.Key == t.Key && o.Operator == t.Operator && o.Value == t.Value && o.Effect == t.Effect {
					dup = true
					break
				}
			}
			if !dup {
				t.TolerationSeconds = nil
				out = append(out, t)
			}
		}
		sort.Slice(out, func(i, j int) bool {
			x, y := out[i], out[j]
			if x.Key != y.Key {
				return x.Key < y.Key
			}
			if x.Value != y.Value {
				return x.Value < y.Value
			}
			if x.Effect != y.Effect {
				return x.Effect < y.Effect
			}
			return x.Operator < y.Operator
		})
		return out
	}
	na, nb := norm(a), norm(b)
	return reflect.DeepEqual(na, nb)
}
