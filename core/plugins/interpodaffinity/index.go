package interpodaffinity

import (
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/domaincount"
)

// maxIndexed bounds the signatures whose counts the index keeps.
const maxIndexed = 128

// A pod's own required terms count affinity and anti-affinity matches in
// one signature, told apart by a byte before the topology key.
const (
	slotAffinity = 'A'
	slotAnti     = 'N'
)

// The index holds, per signature, what kube-scheduler recomputes from
// every node for every pod: the existing pods' required anti-affinity
// terms that match a pod (getExistingAntiAffinityCounts), the running
// pods a pod's required terms match (getIncomingAffinityAntiAffinityCounts)
// and the preferred-term scores (PreScore's processExistingPod), per
// topology pair. Pods alike in what these read (replicas) share the
// counts, which follow the cluster by the nodes that changed.

// indexUsable reports whether the index can serve the cycle over nodes.
func (pl *InterPodAffinity) indexUsable(lister framework.NodeInfoLister, nodes []*framework.NodeInfo) bool {
	return pl.handle.IncrementalIndexes() && domaincount.Usable(lister, nodes)
}

// visitPairs brings sig up to date and calls fn per topology key (the
// slot) with its counts by value, as contribute's pairs give them.
func (pl *InterPodAffinity) visitPairs(sig string, lister framework.NodeInfoLister, contribute func(list []pairCount, ni *framework.NodeInfo) []pairCount, fn func(key string, values map[string]domaincount.Total)) {
	var list []pairCount
	pl.index.Visit(sig, lister, func(ni *framework.NodeInfo, buf []domaincount.Entry) []domaincount.Entry {
		list = contribute(list[:0], ni)
		for _, pc := range list {
			buf = append(buf, domaincount.Entry{Slot: pc.key, Domain: pc.value, Count: pc.count})
		}
		return buf
	}, fn)
}

// setCounts adds values to c under key, sized once.
func (c *topologyCounts) setCounts(key string, values map[string]domaincount.Total) {
	m := make(map[string]int64, len(values))
	for v, t := range values {
		if t.Count != 0 {
			m[v] = t.Count
		}
	}
	if len(m) > 0 {
		c.byKey = append(c.byKey, keyCounts{key, m})
		c.len += len(m)
	}
}

// indexedExistingAnti is existingAntiCounts from the index.
func (pl *InterPodAffinity) indexedExistingAnti(s *preFilterState, lister framework.NodeInfoLister) topologyCounts {
	var sig framework.Signature
	sig.Tag("existing-anti")
	sig.String(s.pod.Namespace)
	sig.StringMap(s.pod.Labels)
	sig.StringMap(s.nsLabels)
	var counts topologyCounts
	pl.visitPairs(string(sig.Bytes()), lister, s.appendExistingAnti, counts.setCounts)
	return counts
}

// indexedOwnCounts sets affinityCounts and antiCounts from the index.
func (pl *InterPodAffinity) indexedOwnCounts(s *preFilterState, lister framework.NodeInfoLister) {
	var sig framework.Signature
	sig.Tag("own-required")
	signTerms(&sig, s.affinity)
	signTerms(&sig, s.antiTerms)
	contribute := func(list []pairCount, ni *framework.NodeInfo) []pairCount {
		node := ni.Node()
		for _, existing := range ni.Pods {
			if matchesAll(s.affinity, existing.Pod) {
				for i := range s.affinity {
					list = appendSlotPair(list, node, slotAffinity, s.affinity[i].topologyKey)
				}
			}
			for i := range s.antiTerms {
				if s.antiTerms[i].matches(existing.Pod) {
					list = appendSlotPair(list, node, slotAnti, s.antiTerms[i].topologyKey)
				}
			}
		}
		return list
	}
	pl.visitPairs(string(sig.Bytes()), lister, contribute, func(key string, values map[string]domaincount.Total) {
		// The count travels in the key's first byte (appendSlotPair).
		if key[0] == slotAffinity {
			s.affinityCounts.setCounts(key[1:], values)
		} else {
			s.antiCounts.setCounts(key[1:], values)
		}
	})
}

// appendSlotPair is appendPair for one of two counts, told apart by a
// byte before the key.
func appendSlotPair(list []pairCount, node *model.Node, slot byte, key string) []pairCount {
	if v, ok := node.Labels[key]; ok {
		list = append(list, pairCount{pair{string([]byte{slot}) + key, v}, 1})
	}
	return list
}

// indexedScores is PreScore's sum from the index.
func (pl *InterPodAffinity) indexedScores(sc *scorer, ownTerms bool, lister framework.NodeInfoLister) *preScoreState {
	var sig framework.Signature
	sig.Tag("scores")
	sig.Bool(ownTerms)
	sig.String(sc.pod.Namespace)
	sig.StringMap(sc.pod.Labels)
	sig.StringMap(sc.nsLabels)
	sig.Int(int64(sc.hardAffinityScore))
	signTerms(&sig, sc.preferred)
	signTerms(&sig, sc.preferredAnti)
	contribute := func(list []pairCount, ni *framework.NodeInfo) []pairCount {
		pods := ni.PodsWithAffinity
		if ownTerms {
			pods = ni.Pods
		}
		for _, existing := range pods {
			list = sc.appendScores(list, existing, ni.Node())
		}
		return list
	}
	s := &preScoreState{}
	pl.visitPairs(string(sig.Bytes()), lister, contribute, func(key string, values map[string]domaincount.Total) {
		// Every listed pair is kept, even at 0: a term matched there.
		m := make(map[string]int64, len(values))
		for v, t := range values {
			m[v] = t.Count
		}
		s.byKey = append(s.byKey, keyCounts{key, m})
	})
	return s
}

// signTerms encodes compiled terms: everything term.matches reads, and the
// topology key and weight.
func signTerms(sig *framework.Signature, terms []term) {
	sig.Int(int64(len(terms)))
	for i := range terms {
		t := &terms[i]
		sig.Bool(t.anyNamespace)
		sig.String(t.namespace)
		names := make([]string, 0, len(t.namespaces))
		for n := range t.namespaces {
			names = append(names, n)
		}
		slices.Sort(names)
		sig.Strings(names)
		sig.Selector(t.selector)
		sig.String(t.topologyKey)
		sig.Int(int64(t.weight))
	}
}
