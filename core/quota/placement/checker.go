package placement

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/simulate"
)

// Checker is admission's PlacementChecker over a copy of a cluster. It
// is not safe for concurrent use: one admission run asks it in turn.
type Checker struct {
	eng    *simulate.Engine
	placed map[string][]*model.Pod
}

var _ admission.PlacementChecker = (*Checker)(nil)

// New copies in into a simulation engine. in.Pods are held as they are
// (bound pods on their nodes, nominated ones keeping their room); none is
// scheduled.
func New(ctx context.Context, in simulate.Input, opts simulate.Options) (*Checker, error) {
	eng, err := simulate.New(ctx, in, opts)
	if err != nil {
		return nil, err // simulate's own words (berthctl reads its ConfigError)
	}
	return &Checker{eng: eng, placed: map[string][]*model.Pod{}}, nil
}

// Place schedules w's pods, never by preempting (placement-aware admission
// asks whether they fit now); if one does not bind, those that did are
// taken back out and none is placed.
func (c *Checker) Place(ctx context.Context, w admission.PlacementRequest) (map[string]string, string, error) {
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
	attempts, err := c.eng.Schedule(ctx, pods)
	if err != nil {
		return nil, "", fmt.Errorf("placement: %w", err)
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
		c.placed[w.Workload] = pods
		return nodes, "", nil
	}
	if err := c.remove(ctx, pods); err != nil {
		return nil, "", err
	}
	if unplaced == "" {
		unplaced = fmt.Sprintf("%d of %d pods placed", len(nodes), len(pods))
	}
	return nil, unplaced, nil
}

// Release takes a preempted workload's pods off their nodes.
func (c *Checker) Release(ctx context.Context, workload string) error {
	pods := c.placed[workload]
	delete(c.placed, workload)
	return c.remove(ctx, pods)
}

func (c *Checker) remove(ctx context.Context, pods []*model.Pod) error {
	for _, pod := range pods {
		if err := c.eng.Remove(ctx, simulate.Object{Pod: pod}); err != nil {
			return fmt.Errorf("placement: removing %s: %w", pod.Key(), err)
		}
	}
	return nil
}
