package berth

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestBudgetRefusal(t *testing.T) {
	st, err := status.New(codes.ResourceExhausted, "budget").WithDetails(
		&errdetails.ErrorInfo{Reason: "DISRUPTION_BUDGET", Domain: "berth.v1", Metadata: map[string]string{"budget": "ns/web"}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(5 * time.Second)},
	)
	if err != nil {
		t.Fatal(err)
	}
	got := budgetRefusal(st.Err())
	if got == nil || got.Budget != "ns/web" || got.RetryAfter != 5*time.Second || !errors.Is(got, ErrBudgetRefused) {
		t.Fatalf("budgetRefusal = %+v", got)
	}
	if status.Code(got) != codes.ResourceExhausted {
		t.Errorf("the refusal lost its status: %v", status.Code(got))
	}
	// RESOURCE_EXHAUSTED for another reason (a request too large) is not one.
	if budgetRefusal(status.Error(codes.ResourceExhausted, "too large")) != nil {
		t.Error("a bare RESOURCE_EXHAUSTED taken as a budget refusal")
	}
}
