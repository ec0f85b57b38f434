package statesvc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
)

// Errors of the service itself; match them with errors.Is.
var (
	// ErrUIDMismatch: a reference names a pod by a uid other than the one
	// Berth holds under that namespace and name.
	ErrUIDMismatch = errors.New("uid differs from the held pod's")
	// ErrBuiltinClass: the built-in PriorityClasses cannot be deleted.
	ErrBuiltinClass = errors.New("built-in PriorityClass")
)

// fieldErr is an error about one field that is not a *convert.FieldError:
// the path is where the error occurred, relative to what the ObjectError
// path starts at.
type fieldErr struct {
	path string
	err  error
}

func (e *fieldErr) Error() string { return e.path + ": " + e.err.Error() }
func (e *fieldErr) Unwrap() error { return e.err }

// classify maps an error applying one object to the code, field path and
// message of its ObjectError. This is the one table from scheduler and
// conversion errors to codes.
func classify(err error) (code codes.Code, path, msg string) {
	var (
		fe      *convert.FieldError
		unknown *priority.UnknownClassError
		invalid *priority.InvalidClassError
		located *fieldErr
	)
	msg = err.Error()
	if errors.As(err, &located) {
		path = located.path
	}
	switch {
	case errors.As(err, &fe):
		return codes.InvalidArgument, fe.Path, fe.Reason
	case errors.As(err, &unknown):
		return codes.FailedPrecondition, "pod.priority_class_name", unknown.Error() + "; send the PriorityClass first"
	case errors.As(err, &invalid):
		return codes.InvalidArgument, "priority_class." + classField(invalid.Field), invalid.Reason
	case errors.Is(err, scheduler.ErrInvalid), errors.Is(err, ErrBuiltinClass):
		return codes.InvalidArgument, path, msg
	case errors.Is(err, scheduler.ErrPodBound):
		return codes.FailedPrecondition, "pod.node_name", msg
	case errors.Is(err, scheduler.ErrNotFound):
		return codes.NotFound, path, msg
	case errors.Is(err, ErrUIDMismatch), errors.Is(err, scheduler.ErrNoBindInFlight), errors.Is(err, scheduler.ErrPodNotPending):
		return codes.FailedPrecondition, path, msg
	case errors.Is(err, context.Canceled):
		return codes.Canceled, path, msg
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded, path, msg
	}
	return codes.Internal, path, msg
}

// classField maps core/priority's field names to the proto's.
func classField(f string) string {
	if f == "preemptionPolicy" {
		return "preemption_policy"
	}
	return f
}

// objectError builds the ObjectError of the mutation at index.
func objectError(index int, ref *berthv1.ObjectRef, err error) *berthv1.ObjectError {
	code, path, msg := classify(err)
	ec := berthv1.ErrorCode(code)
	if _, known := berthv1.ErrorCode_name[int32(ec)]; !known {
		ec = berthv1.ErrorCode_ERROR_CODE_INTERNAL
	}
	return &berthv1.ObjectError{Index: uint32(index), Ref: ref, Code: ec, FieldPath: path, Message: msg}
}

// statusOf is err as a gRPC status, for RPCs that fail as a whole.
func statusOf(err error) error {
	code, path, msg := classify(err)
	if path != "" {
		msg = fmt.Sprintf("%s: %s", path, msg)
	}
	return status.Error(code, msg)
}
