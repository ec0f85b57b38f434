package cache

import (
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// nodeView is what tests compare of a NodeInfo.
type nodeView struct {
	Name             string
	Pods             []string // pod keys, sorted
	WithAffinity     []string
	WithRequiredAnti []string
	MilliCPU, Memory int64
	NonZeroMilliCPU  int64
	NonZeroMemory    int64
	UsedPorts        int
}

func keys(pis []*framework.PodInfo) []string {
	out := make([]string, 0, len(pis))
	for _, pi := range pis {
		out = append(out, pi.Pod.Key())
	}
	slices.Sort(out)
	return out
}

func view(ni *framework.NodeInfo) nodeView {
	return nodeView{
		Name:             ni.Name(),
		Pods:             keys(ni.Pods),
		WithAffinity:     keys(ni.PodsWithAffinity),
		WithRequiredAnti: keys(ni.PodsWithRequiredAntiAffinity),
		MilliCPU:         ni.Requested.MilliCPU,
		Memory:           ni.Requested.Memory,
		NonZeroMilliCPU:  ni.NonZeroRequested.MilliCPU,
		NonZeroMemory:    ni.NonZeroRequested.Memory,
		UsedPorts:        ni.UsedPorts.Len(),
	}
}

// snapView summarizes a snapshot: nodes in order, and the affinity lists.
type snapView struct {
	Nodes            []nodeView
	WithAffinity     []string
	WithRequiredAnti []string
}

func names(nis []*framework.NodeInfo) []string {
	out := make([]string, 0, len(nis))
	for _, ni := range nis {
		out = append(out, ni.Name())
	}
	return out
}

func viewSnapshot(s *Snapshot) snapView {
	v := snapView{WithAffinity: names(s.HavePodsWithAffinityList()), WithRequiredAnti: names(s.HavePodsWithRequiredAntiAffinityList())}
	for _, ni := range s.List() {
		v.Nodes = append(v.Nodes, view(ni))
	}
	return v
}

func bound(p *model.Pod, node string) *model.Pod {
	cp := *p
	cp.NodeName = node
	return &cp
}
