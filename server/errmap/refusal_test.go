package errmap_test

import (
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/berthsched/berth/server/errmap"
)

// Each kind of refusal has its code, and the client sees the refusal's
// message as it was written, wrapped or not.
func TestRefuse(t *testing.T) {
	tests := []struct {
		kind error
		want codes.Code
	}{
		{errmap.ErrUnauthenticated, codes.Unauthenticated},
		{errmap.ErrPermissionDenied, codes.PermissionDenied},
		{errmap.ErrOverLimit, codes.ResourceExhausted},
		{errmap.ErrMalformed, codes.InvalidArgument},
		{errmap.ErrOutOfOrder, codes.FailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.kind.Error(), func(t *testing.T) {
			err := errmap.Refuse(tt.kind, "batch %d: %s", 3, "refused")
			if err.Error() != "batch 3: refused" {
				t.Errorf("Error() = %q, want the message alone", err.Error())
			}
			for _, e := range []error{err, fmt.Errorf("wrapped: %w", err)} {
				st := status.Convert(errmap.Status(e))
				if st.Code() != tt.want || st.Message() != e.Error() {
					t.Errorf("Status(%v) = %v %q, want %v %q", e, st.Code(), st.Message(), tt.want, e.Error())
				}
			}
		})
	}
}
