package errmap

import (
	"errors"
	"fmt"
)

// Kinds of refusal that the server's edge and services raise themselves
// (no core error behind them), each mapped to its code in match. Raise
// them with Refuse.
var (
	// ErrUnauthenticated: no bearer token, a malformed one, or one the
	// server does not hold. UNAUTHENTICATED.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrPermissionDenied: the token may not call this method (a
	// read-only token on a write). PERMISSION_DENIED.
	ErrPermissionDenied = errors.New("permission denied")
	// ErrOverLimit: the call would exceed one of berthd's limits (calls
	// or request bytes in flight, objects in one request).
	// RESOURCE_EXHAUSTED.
	ErrOverLimit = errors.New("over a limit")
	// ErrMalformed: the request is not a valid message or holds a value
	// its field does not define. INVALID_ARGUMENT.
	ErrMalformed = errors.New("malformed request")
	// ErrOutOfOrder: a request that is valid on its own but not at this
	// point of its stream (RESYNC_END without RESYNC_BEGIN).
	// FAILED_PRECONDITION.
	ErrOutOfOrder = errors.New("out of order")
)

// refusal is a refusal of one kind whose message is its own: the kind
// picks the code, and the client sees only the message.
type refusal struct {
	kind error
	msg  string
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

// Refuse is a refusal of kind (one of the Err... kinds above) with the
// message format makes; Status gives it the kind's code.
func Refuse(kind error, format string, args ...any) error {
	return &refusal{kind: kind, msg: fmt.Sprintf(format, args...)}
}
