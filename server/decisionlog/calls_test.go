package decisionlog

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// The tests' shorthands: each is the one-item plan (or the group's plan)
// a producer submits for the decision.

func (l *Log) Bind(ctx context.Context, pod *model.Pod, node string) error {
	_, err := framework.SubmitOne(ctx, l, &framework.Bind{Pod: pod, Node: node})
	return err
}

func (l *Log) BindWithClaims(ctx context.Context, pod *model.Pod, node string, claims []*resourceapi.ResourceClaim) error {
	_, err := framework.SubmitOne(ctx, l, &framework.Bind{Pod: pod, Node: node, Claims: claims})
	return err
}

func (l *Log) BindGroup(ctx context.Context, group string, pods []*model.Pod, nodes []string) error {
	plan := framework.Plan{Group: group}
	for i, p := range pods {
		plan.Add(&framework.Bind{Pod: p, Node: nodes[i]})
	}
	_, err := l.Submit(ctx, plan)
	return err
}

func (l *Log) Evict(ctx context.Context, victim *model.Pod, node string, preemptor *model.Pod, reason string) error {
	_, err := framework.SubmitOne(ctx, l, &framework.Eviction{Victim: victim, Node: node, Preemptor: preemptor, Message: reason})
	return err
}

func (l *Log) EvictPod(ctx context.Context, e framework.Eviction) error {
	_, err := l.EvictPodAt(ctx, e)
	return err
}

func (l *Log) EvictPodAt(ctx context.Context, e framework.Eviction) (uint64, error) {
	return framework.SubmitOne(ctx, l, &e)
}

func (l *Log) Nominate(ctx context.Context, pod *model.Pod, node string) error {
	_, err := framework.SubmitOne(ctx, l, &framework.Nomination{Pod: pod, Node: node})
	return err
}

func (l *Log) ClearNomination(ctx context.Context, pod *model.Pod, reason string) error {
	_, err := framework.SubmitOne(ctx, l, &framework.ClearNomination{Pod: pod, Reason: reason})
	return err
}

func (l *Log) Unschedulable(ctx context.Context, pod *model.Pod, message string, fitErr *framework.FitError) error {
	_, err := framework.SubmitOne(ctx, l, &framework.UnschedulableReport{Pod: pod, Message: message, FitErr: fitErr})
	return err
}

func (l *Log) DeallocateClaims(ctx context.Context, claims []*resourceapi.ResourceClaim, reason string) error {
	var plan framework.Plan
	for _, c := range claims {
		plan.Add(&framework.Deallocation{Claim: c, Reason: reason})
	}
	_, err := l.Submit(ctx, plan)
	return err
}
