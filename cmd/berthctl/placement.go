package main

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/simulate"
)

// simPlacement is admission's PlacementChecker for berthctl simulate:
// core/simulate's engine (the scheduler itself) over the manifests'
// nodes and running pods, in which placed workloads' pods stay bound so
// that the next workload meets them.
type simPlacement struct {
	eng    *simulate.Engine
	placed map[string][]*model.Pod
}

var _ admission.PlacementChecker = (*simPlacement)(nil)

// newSimPlacement holds c's cluster without its pending pods.
func newSimPlacement(ctx context.Context, c *manifest.Cluster, in simulate.Input, opts simulate.Options) (*simPlacement, error) {
	in.Pods = nil
	for _, p := range c.Pods {
		if p.NodeName != "" {
			in.Pods = append(in.Pods, p)
		}
	}
	eng, err := simulate.New(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	return &simPlacement{eng: eng, placed: map[string][]*model.Pod{}}, nil
}

// Place schedules w's pods, never by preempting (placement-aware admission
// asks whether they fit now); if one does not bind, those that did are
// taken back out.
func (p *simPlacement) Place(ctx context.Context, w admission.PlacementRequest) (map[string]string, string, error) {
	var pods []*model.Pod
	for _, ps := range w.PodSets {
		for i := range int(ps.Count) {
			name := w.PodName(ps, i)
			prio := w.Priority
			pods = append(pods, &model.Pod{
				UID: "placement-" + w.Namespace + "-" + name, Namespace: w.Namespace, Name: name,
				RequestedPriority: &prio, PreemptionPolicy: model.PreemptNever,
				Containers:   []model.Container{{Name: "main", Requests: ps.Requests}},
				NodeSelector: ps.NodeSelector, Tolerations: ps.Tolerations,
			})
		}
	}
	attempts, err := p.eng.Schedule(ctx, pods)
	if err != nil {
		return nil, "", err
	}
	nodes := map[string]string{}
	unplaced := ""
	for _, a := range attempts {
		if a.Result == simulate.ResultBound {
			nodes[a.Pod.Name] = a.Node
		} else if unplaced == "" {
			unplaced = fmt.Sprintf("pod %d of %d: %s", len(nodes)+1, len(pods), a.Message)
		}
	}
	if unplaced == "" && len(nodes) == len(pods) {
		p.placed[w.Workload] = pods
		return nodes, "", nil
	}
	if err := p.remove(ctx, pods); err != nil {
		return nil, "", err
	}
	if unplaced == "" {
		unplaced = fmt.Sprintf("%d of %d pods placed", len(nodes), len(pods))
	}
	return nil, unplaced, nil
}

// Release takes a preempted workload's pods off their nodes.
func (p *simPlacement) Release(ctx context.Context, workload string) error {
	pods := p.placed[workload]
	delete(p.placed, workload)
	return p.remove(ctx, pods)
}

func (p *simPlacement) remove(ctx context.Context, pods []*model.Pod) error {
	for _, pod := range pods {
		if err := p.eng.Remove(ctx, simulate.Object{Pod: pod}); err != nil {
			return fmt.Errorf("placement: removing %s: %w", pod.Key(), err)
		}
	}
	return nil
}
