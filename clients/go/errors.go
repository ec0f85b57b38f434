package berth

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// ObjectError is one object Berth refused, from an ack's ObjectError.
type ObjectError struct {
	// Index is the position of the object in what the caller passed to the
	// call that returned this error (Session.Upsert, Client.Apply, ...).
	Index int
	// Ref names the object, as far as Berth could read it.
	Ref *berthv1.ObjectRef
	// Code is the failure class: codes.InvalidArgument (malformed, do not
	// resend unchanged), codes.NotFound, codes.FailedPrecondition (refers to
	// something missing, may succeed later) or codes.Internal.
	Code codes.Code
	// FieldPath is the offending field, for example
	// "pod.containers[1].requests[cpu]"; empty for the whole object.
	FieldPath string
	// Message is Berth's explanation, for people.
	Message string
}

func (e *ObjectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "object %d", e.Index)
	if r := e.Ref; r != nil && r.GetName() != "" {
		name := r.GetName()
		if r.GetNamespace() != "" {
			name = r.GetNamespace() + "/" + name
		}
		fmt.Fprintf(&b, " (%s %s)", kindName(r.GetKind()), name)
	}
	fmt.Fprintf(&b, ": %s", e.Code)
	if e.FieldPath != "" {
		fmt.Fprintf(&b, ": %s", e.FieldPath)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// BatchError reports the objects of one call that Berth refused; the others
// took effect.
type BatchError struct {
	// Applied is how many objects of the call took effect.
	Applied int
	// Errors holds one entry per refused object, in call order.
	Errors []*ObjectError
}

func (e *BatchError) Error() string {
	if len(e.Errors) == 1 {
		return "berth: 1 object refused: " + e.Errors[0].Error()
	}
	msgs := make([]string, len(e.Errors))
	for i, oe := range e.Errors {
		msgs[i] = oe.Error()
	}
	return fmt.Sprintf("berth: %d objects refused: %s", len(e.Errors), strings.Join(msgs, "; "))
}

// Unwrap lets errors.As find each *ObjectError.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, oe := range e.Errors {
		errs[i] = oe
	}
	return errs
}

// objectError converts the wire ObjectError e about the caller's object
// index.
func objectError(index int, e *berthv1.ObjectError) *ObjectError {
	return &ObjectError{Index: index, Ref: e.GetRef(), Code: codes.Code(e.GetCode()), FieldPath: e.GetFieldPath(), Message: e.GetMessage()}
}

// CompactedError is returned (or passed to the OnCompacted callback) when a
// watch position was compacted out of Berth's decision log: the decisions
// from From up to Oldest are lost to this watcher.
type CompactedError struct {
	// From is the revision the watcher asked for.
	From uint64
	// Oldest is the oldest revision Berth still holds; 0 when the server did
	// not say.
	Oldest uint64
	// Err is the OUT_OF_RANGE status error.
	Err error
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("berth: watch from revision %d: compacted, oldest revision kept is %d", e.From, e.Oldest)
}

func (e *CompactedError) Unwrap() error { return e.Err }

// ErrorInfo reasons of berth.v1's watch errors (decision_service.proto).
const (
	// ReasonRevisionCompacted: OUT_OF_RANGE, the position was compacted
	// away (a *CompactedError).
	ReasonRevisionCompacted = "REVISION_COMPACTED"
	// ReasonRevisionNotWritten: OUT_OF_RANGE, the position is beyond the
	// end of the log, so it came from another log: not a compaction.
	ReasonRevisionNotWritten = "REVISION_NOT_WRITTEN"
	// ReasonLogIDMismatch: FAILED_PRECONDITION, the log_id sent is not the
	// log's.
	ReasonLogIDMismatch = "LOG_ID_MISMATCH"
)

// ErrorInfo returns the first google.rpc.ErrorInfo in the status details
// of err (a gRPC status error, or one wrapping it), nil if there is none.
func ErrorInfo(err error) *errdetails.ErrorInfo {
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) {
		return nil
	}
	for _, d := range se.GRPCStatus().Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

// compacted returns the *CompactedError of a watch error: OUT_OF_RANGE
// with reason REVISION_COMPACTED, or with no ErrorInfo (a berthd older than
// the reasons). Any other error, REVISION_NOT_WRITTEN included, is nil.
func compacted(from uint64, err error) *CompactedError {
	if status.Code(err) != codes.OutOfRange {
		return nil
	}
	ce := &CompactedError{From: from, Err: err}
	info := ErrorInfo(err)
	switch {
	case info == nil:
		return ce
	case info.GetReason() != ReasonRevisionCompacted:
		return nil
	}
	ce.Oldest, _ = strconv.ParseUint(info.GetMetadata()["oldest_revision"], 10, 64)
	return ce
}

// retryable tells whether a stream that ended with err is worth reopening:
// transport failures and server restarts are, a refused request is not.
// RESOURCE_EXHAUSTED (a request or response larger than allowed) is not:
// the same message would be refused again.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true // the stream's, not ctx's: the server or transport gave up
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.Unknown, codes.Internal, codes.Aborted,
		codes.Canceled, codes.DeadlineExceeded:
		return true
	}
	return false
}

func kindName(k berthv1.ObjectKind) string {
	switch k {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return "node"
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return "pod"
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return "priorityclass"
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return "poddisruptionbudget"
	case berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:
		return "namespace"
	}
	return "object"
}
