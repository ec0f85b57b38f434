package berth

import (
	"context"
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// EvictOptions are the optional parts of an eviction.
type EvictOptions struct {
	// DryRun checks everything and writes nothing.
	DryRun bool
	// GracePeriodSeconds, if set, is how long the pod may take to stop.
	GracePeriodSeconds *int64
}

// Evict asks berthd's eviction API (EvictionService.EvictPod) to evict the
// pod namespace/name. A refusal by a disruption budget is a
// *BudgetRefusedError (errors.Is ErrBudgetRefused); other failures are
// the call's gRPC status.
func (c *Client) Evict(ctx context.Context, namespace, name string, opts EvictOptions) (*berthv1.EvictPodResponse, error) {
	resp, err := c.Eviction.EvictPod(ctx, &berthv1.EvictPodRequest{
		Pod:    &berthv1.PodRef{Namespace: namespace, Name: name},
		DryRun: opts.DryRun, GracePeriodSeconds: opts.GracePeriodSeconds,
	})
	if err != nil {
		if refused := budgetRefusal(err); refused != nil {
			return nil, refused
		}
		return nil, err
	}
	return resp, nil
}

// ErrBudgetRefused: a disruption budget allows no disruption now.
var ErrBudgetRefused = errors.New("refused by a disruption budget")

// BudgetRefusedError is a refusal by a disruption budget: which one, and
// when berthd suggests trying again.
type BudgetRefusedError struct {
	Budget     string
	RetryAfter time.Duration
	Status     *status.Status
}

func (e *BudgetRefusedError) Error() string { return e.Status.Message() }
func (e *BudgetRefusedError) Unwrap() error { return ErrBudgetRefused }

// GRPCStatus lets status.FromError see the call's status.
func (e *BudgetRefusedError) GRPCStatus() *status.Status { return e.Status }

func budgetRefusal(err error) *BudgetRefusedError {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.ResourceExhausted {
		return nil
	}
	out := &BudgetRefusedError{Status: st}
	isBudget := false
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetReason() == "DISRUPTION_BUDGET" {
				isBudget, out.Budget = true, d.GetMetadata()["budget"]
			}
		case *errdetails.RetryInfo:
			out.RetryAfter = d.GetRetryDelay().AsDuration()
		}
	}
	if !isBudget {
		return nil
	}
	return out
}
