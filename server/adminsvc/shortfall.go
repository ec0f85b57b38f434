package adminsvc

import (
	"cmp"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/scheduler"
)

// insufficientPrefix starts NodeResourcesFit's reason for a resource a
// node lacks: "Insufficient cpu", "Insufficient example.com/gpu".
const insufficientPrefix = "Insufficient "

// podRequests is the pod's effective request by resource name, as
// NodeResourcesFit's filter compares it, with the pod itself as "pods".
func podRequests(pod *model.Pod) map[string]int64 {
	r := model.ComputeRequests(pod).Requests
	r.Pods = 1
	return resourceMap(r)
}

// shortResource is the resource a Filter reason says a node lacks.
func shortResource(reason string) (string, bool) {
	if reason == noderesources.ReasonTooManyPods {
		return model.ResourcePods, true
	}
	res, ok := strings.CutPrefix(reason, insufficientPrefix)
	return res, ok && res != ""
}

// shortfalls is, for each node of reasons short of a resource, the pod's
// request (requests) against what the node has free now, by node then
// resource name. The numbers are today's, the reasons the last attempt's:
// a node may have room again since, or lack more.
func (s *Service) shortfalls(requests map[string]int64, reasons []*berthv1.NodeReasons) []*berthv1.NodeShortfall {
	short := map[string][]string{}
	for _, nr := range reasons {
		for _, r := range nr.GetReasons() {
			if res, ok := shortResource(r); ok {
				short[nr.GetNode()] = append(short[nr.GetNode()], res)
			}
		}
	}
	if len(short) == 0 {
		return nil
	}
	nodes, err := s.admin.Nodes()
	if err != nil {
		s.logger.Error("explain: listing nodes failed", "err", err)
		return nil
	}
	slices.SortFunc(nodes, func(a, b scheduler.NodeUsage) int { return cmp.Compare(a.Node.Name, b.Node.Name) })
	var out []*berthv1.NodeShortfall
	for _, n := range nodes {
		resources := short[n.Node.Name]
		if len(resources) == 0 {
			continue
		}
		slices.Sort(resources)
		ns := &berthv1.NodeShortfall{Node: n.Node.Name}
		for _, res := range slices.Compact(resources) {
			alloc, used := n.Allocatable.Get(res), n.Requested.Get(res)
			if res == model.ResourcePods {
				used = int64(n.Pods)
			}
			ns.Resources = append(ns.Resources, &berthv1.ResourceShortfall{
				Resource: res, Requested: requests[res], Free: alloc - used, Allocatable: alloc,
			})
		}
		out = append(out, ns)
	}
	return out
}
