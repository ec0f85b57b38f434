package adminsvc

import (
	"context"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/errmap"
)

// Descheduler runs berthd's descheduler policy; *deschedulesvc.Runner
// satisfies it.
type Descheduler interface {
	Run(ctx context.Context, dryRun bool) (*berthv1.DeschedulePlan, error)
	Last() *berthv1.DeschedulePlan
}

// Deschedule runs the policy now, or returns the last plan.
func (s *Service) Deschedule(ctx context.Context, req *berthv1.DescheduleRequest) (*berthv1.DescheduleResponse, error) {
	d := s.opts.Descheduler
	if d == nil {
		return nil, errmap.Status(errmap.ErrNoDeschedulerPolicy)
	}
	if req.GetLast() {
		return &berthv1.DescheduleResponse{Plan: d.Last()}, nil
	}
	plan, err := d.Run(ctx, req.GetDryRun())
	if err != nil {
		return nil, errmap.Status(err)
	}
	return &berthv1.DescheduleResponse{Plan: plan}, nil
}
