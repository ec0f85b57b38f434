package statesvc

import (
	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/errmap"
)

// Errors of the service itself; match them with errors.Is. server/errmap
// maps them to codes with the rest.
var (
	// ErrUIDMismatch: a reference names a pod by a uid other than the one
	// Berth holds under that namespace and name.
	ErrUIDMismatch = errmap.ErrUIDMismatch
	// ErrBuiltinClass: the built-in PriorityClasses cannot be deleted.
	ErrBuiltinClass = errmap.ErrBuiltinClass
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

// FieldPath locates the error for server/errmap.
func (e *fieldErr) FieldPath() string { return e.path }

// objectError builds the ObjectError of the mutation at index.
func objectError(index int, ref *berthv1.ObjectRef, err error) *berthv1.ObjectError {
	return errmap.ObjectError(index, ref, err)
}

// statusOf is err as a gRPC status, for RPCs that fail as a whole.
func statusOf(err error) error { return errmap.Status(err) }
