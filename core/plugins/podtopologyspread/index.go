package podtopologyspread

import (
	"strconv"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/domaincount"
)

// maxIndexed bounds the constraint signatures whose counts are kept.
const maxIndexed = 64

// indexedCounts returns PreFilter's per-domain counts from the plugin's
// index: the per-(selector, topology key) match counts per domain that
// kube-scheduler's calPreFilterState recomputes from every node for every
// pod, kept here for each constraint signature and updated by the nodes
// that changed. false when the index cannot serve (turned off, or nodes
// is not the snapshot's list).
func (pl *PodTopologySpread) indexedCounts(pod *model.Pod, cs []constraint, nodes []*framework.NodeInfo) ([]map[string]int, bool) {
	if !pl.handle.IncrementalIndexes() {
		return nil, false
	}
	lister, err := pl.lister()
	if err != nil || !domaincount.Usable(lister, nodes) {
		return nil, false
	}
	counts := make([]map[string]int, len(cs))
	for i := range counts {
		counts[i] = make(map[string]int)
	}
	contribute := func(ni *framework.NodeInfo, buf []domaincount.Entry) []domaincount.Entry {
		return appendContribution(buf, pod, cs, ni)
	}
	pl.index.Visit(constraintSignature(pod, cs), lister, contribute, func(slot string, domains map[string]domaincount.Total) {
		i, _ := strconv.Atoi(slot)
		m := make(map[string]int, len(domains))
		for domain, t := range domains {
			m[domain] = int(t.Count)
		}
		counts[i] = m
	})
	return counts, true
}

// indexedScoreCounts adds to counts (PreScore's, keyed by the domains of
// the feasible nodes) the matching pods of every node, from the plugin's
// score index: the per-domain sums kube-scheduler's PreScore
// (initPreScoreState and its walk over every node) recomputes for every
// pod, kept here per signature and updated by the nodes that changed.
// false when the index cannot serve (turned off, or all is not the
// snapshot's list).
func (pl *PodTopologySpread) indexedScoreCounts(pod *model.Pod, cs []constraint, requireAll bool, all []*framework.NodeInfo, counts []map[string]int64) bool {
	if !pl.handle.IncrementalIndexes() {
		return false
	}
	lister, err := pl.lister()
	if err != nil || !domaincount.Usable(lister, all) {
		return false
	}
	contribute := func(ni *framework.NodeInfo, buf []domaincount.Entry) []domaincount.Entry {
		return appendScoreContribution(buf, pod, cs, requireAll, ni)
	}
	sig := constraintSignature(pod, cs) + strconv.FormatBool(requireAll)
	pl.scoreIndex.Visit(sig, lister, contribute, func(slot string, domains map[string]domaincount.Total) {
		i, _ := strconv.Atoi(slot)
		for domain := range counts[i] {
			counts[i][domain] += domains[domain].Count
		}
	})
	return true
}

// appendContribution appends what a node adds to PreFilter's counts: for
// each constraint that counts the node, the matching pods in its domain.
// Constraint i counts in slot strconv.Itoa(i).
func appendContribution(buf []domaincount.Entry, pod *model.Pod, cs []constraint, ni *framework.NodeInfo) []domaincount.Entry {
	node := ni.Node()
	if node == nil || !hasAllKeys(node, cs) {
		return buf
	}
	in := inclusion{pod: pod}
	for i := range cs {
		c := &cs[i]
		if in.includes(c, node) {
			buf = append(buf, domaincount.Entry{Slot: strconv.Itoa(i), Domain: node.Labels[c.topologyKey], Count: int64(countMatching(ni.Pods, c.selector, pod.Namespace))})
		}
	}
	return buf
}

// constraintSignature encodes everything appendContribution reads of the
// pod: its namespace, the constraints, and what the node inclusion
// policies test (required node affinity, tolerations) when honored.
func constraintSignature(pod *model.Pod, cs []constraint) string {
	var sig framework.Signature
	sig.String(pod.Namespace)
	sig.Int(int64(len(cs)))
	affinity, taints := false, false
	for i := range cs {
		c := &cs[i]
		sig.String(c.topologyKey)
		sig.Selector(c.selector)
		sig.Bool(c.honorAffinity)
		sig.Bool(c.honorTaints)
		affinity = affinity || c.honorAffinity
		taints = taints || c.honorTaints
	}
	if affinity {
		sig.StringMap(pod.NodeSelector)
		var na *model.NodeAffinity
		if pod.Affinity != nil {
			na = pod.Affinity.NodeAffinity
		}
		requiredOnly := model.NodeAffinity{}
		if na != nil {
			requiredOnly.Required = na.Required
		}
		sig.NodeAffinity(&requiredOnly)
	}
	if taints {
		sig.Tolerations(pod.Tolerations)
	}
	return string(sig.Bytes())
}
