package adminsvc

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// ListNodes lists the nodes with what their pods use, by name.
func (s *Service) ListNodes(_ context.Context, req *berthv1.ListNodesRequest) (*berthv1.ListNodesResponse, error) {
	pg, err := parsePage(req.GetPageSize(), req.GetPageToken(), isNodeKey)
	if err != nil {
		return nil, err
	}
	for k := range req.GetMatchLabels() {
		if k == "" {
			return nil, errmap.Status(&convert.FieldError{Path: "match_labels[]", Reason: "a label key must not be empty"})
		}
	}
	nodes, err := s.admin.Nodes()
	if err != nil {
		return nil, errmap.Status(fmt.Errorf("listing nodes: %w", err))
	}
	slices.SortFunc(nodes, func(a, b scheduler.NodeUsage) int { return cmp.Compare(a.Node.Name, b.Node.Name) })
	nominated := map[string]uint32{}
	for _, n := range s.admin.Nominations() {
		nominated[n.NodeName]++
	}
	resp := &berthv1.ListNodesResponse{}
	for _, n := range nodes {
		if n.Node.Name <= pg.after || !hasLabels(n.Node.Labels, req.GetMatchLabels()) {
			continue
		}
		if len(resp.Nodes) == pg.size {
			resp.NextPageToken = pageToken(resp.Nodes[len(resp.Nodes)-1].GetName())
			break
		}
		resp.Nodes = append(resp.Nodes, nodeUsage(n, nominated[n.Node.Name]))
	}
	return resp, nil
}

func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// nodeUsage is one node's entry of ListNodes.
func nodeUsage(n scheduler.NodeUsage, nominated uint32) *berthv1.NodeUsage {
	wire := convert.NodeToProto(n.Node)
	counted := n.Requested
	counted.Pods = int64(n.Pods)
	requested := resourceMap(counted)
	return &berthv1.NodeUsage{
		Name:              wire.GetName(),
		Labels:            wire.GetLabels(),
		Taints:            wire.GetTaints(),
		Unschedulable:     wire.GetUnschedulable(),
		Allocatable:       wire.GetAllocatable(),
		Requested:         requested,
		NonZeroRequested:  resourceMap(model.Resources{MilliCPU: n.NonZeroRequested.MilliCPU, Memory: n.NonZeroRequested.Memory}),
		PodCount:          uint32(n.Pods),
		NominatedPodCount: nominated,
		Conditions:        wire.GetConditions(),
		DerivedTaints:     convert.NodeDerivedTaintsToProto(n.Node),
		Images:            wire.GetImages(),
	}
}

// resourceMap is r keyed by resource name, without the resources at zero.
func resourceMap(r model.Resources) map[string]int64 {
	out := map[string]int64{}
	add := func(name string, v int64) {
		if v != 0 {
			out[name] = v
		}
	}
	add(model.ResourceCPU, r.MilliCPU)
	add(model.ResourceMemory, r.Memory)
	add(model.ResourceEphemeralStorage, r.EphemeralStorage)
	add(model.ResourcePods, r.Pods)
	for name, v := range r.Scalar {
		add(name, v)
	}
	return out
}
