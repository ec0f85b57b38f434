package errmap

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/fieldpath"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/pressure"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// Errors the services raise about a request, beside core's. Wrap them with
// %w; the comment says the code each maps to.
var (
	// ErrUIDMismatch: a reference names a pod by a uid other than the one
	// Berth holds under that namespace and name. FAILED_PRECONDITION.
	ErrUIDMismatch = errors.New("uid differs from the held pod's")
	// ErrBuiltinClass: the built-in PriorityClasses cannot be deleted.
	// INVALID_ARGUMENT.
	ErrBuiltinClass = errors.New("built-in PriorityClass")
	// ErrUnknownProfile: the request needs a scheduling profile Berth does
	// not run. FAILED_PRECONDITION.
	ErrUnknownProfile = errors.New("no such scheduling profile")
	// ErrShuttingDown: berthd is stopping. UNAVAILABLE.
	ErrShuttingDown = errors.New("berthd is shutting down")
	// ErrUnknownDeviceClass: a ResourceClaim or ResourceClaimTemplate names
	// a DeviceClass Berth does not hold. FAILED_PRECONDITION.
	ErrUnknownDeviceClass = errors.New("unknown DeviceClass")
	// ErrNotConfigured: this server was built without what the RPC needs.
	// UNIMPLEMENTED.
	ErrNotConfigured = errors.New("not configured on this server")
	// ErrNoDeschedulerPolicy: berthd was started without
	// --descheduler-policy. FAILED_PRECONDITION.
	ErrNoDeschedulerPolicy = errors.New("berthd runs no descheduler policy (start it with --descheduler-policy FILE)")
	// ErrLimit: the request or its work goes beyond one of berthd's
	// configured limits (a simulation's pods, attempts, response size,
	// time or concurrency). RESOURCE_EXHAUSTED.
	ErrLimit = errors.New("beyond a configured limit")
)

// NotLeaderError: this berthd replica is not the leader of its etcd-backed
// group (--store etcd), so it refuses writes. UNAVAILABLE, with an
// ErrorInfo of reason NOT_LEADER whose metadata "leader" is the leader's
// advertised address, empty while no leader is known: a client dials it
// and retries. Metadata "leader_http" is the leader's advertised HTTP API
// address, present when it serves one and it is known.
type NotLeaderError struct {
	Leader     string
	LeaderHTTP string
}

func (e *NotLeaderError) Error() string {
	if e.Leader == "" {
		return "this berthd replica is not the leader, and no leader is known now: retry shortly"
	}
	if e.LeaderHTTP == "" {
		return fmt.Sprintf("this berthd replica is not the leader: send writes to the leader at %s", e.Leader)
	}
	return fmt.Sprintf("this berthd replica is not the leader: send writes to the leader at %s (HTTP API at %s)", e.Leader, e.LeaderHTTP)
}

// ErrorReason is the ErrorInfo's reason.
func (e *NotLeaderError) ErrorReason() string { return "NOT_LEADER" }

// ErrorMetadata names the leader ("" when unknown).
func (e *NotLeaderError) ErrorMetadata() map[string]string {
	md := map[string]string{"leader": e.Leader}
	if e.LeaderHTTP != "" {
		md["leader_http"] = e.LeaderHTTP
	}
	return md
}

// ErrorDomain is the domain of every google.rpc.ErrorInfo berthd sends.
const ErrorDomain = "berth.v1"

// reasoned is an error that names the google.rpc.ErrorInfo reason clients
// match on (a *store.CompactedError: "REVISION_COMPACTED"). The reason
// lives with the error type, next to what it means; the API's protos
// document each one.
type reasoned interface {
	ErrorReason() string
}

// annotated is an error that adds metadata to the ErrorInfo of the error
// it is or wraps ("oldest_revision", "log_id").
type annotated interface {
	ErrorMetadata() map[string]string
}

// retryable is an error that says when to try again (a refusal by a
// disruption budget); Status sends it as a google.rpc.RetryInfo.
type retryable interface {
	RetryAfter() time.Duration
}

// Mapped is an error as the API reports it.
type Mapped struct {
	Code codes.Code
	// Field is the offending field as a proto field path
	// ("pods[2].containers[0].name"); empty when the error is not about
	// one field.
	Field string
	// Reason is a sentence for people, without the field.
	Reason string
}

// match is the table: the code of err and, for an error about a field of
// the message of the object it concerns (a Pod's priority_class_name), that
// field relative to the message. First match wins; every error of core,
// store and convert a caller can cause is here, anything else is INTERNAL.
func match(err error) (code codes.Code, kindField, reason string) {
	var (
		unknown   *priority.UnknownClassError
		invalid   *priority.InvalidClassError
		compacted *store.CompactedError
		ahead     *watch.AheadError
		mismatch  *watch.LogMismatchError
		podStats  *pressure.UnknownPodError
		notLeader *NotLeaderError
		immutable *gang.SpecImmutableError
		polErr    *policy.FieldError
		queueErr  *holder.InvalidError
	)
	reason = err.Error()
	switch {
	case errors.As(err, &unknown):
		return codes.FailedPrecondition, "priority_class_name", unknown.Error() + "; send the PriorityClass first"
	case errors.As(err, &invalid):
		return codes.InvalidArgument, classField(invalid.Field), invalid.Reason
	case errors.As(err, &immutable):
		return codes.FailedPrecondition, immutable.Field, reason
	case errors.Is(err, scheduler.ErrInvalid), errors.Is(err, ErrBuiltinClass), errors.Is(err, gang.ErrInvalid):
		return codes.InvalidArgument, "", reason
	case errors.Is(err, gang.ErrCompositeDisabled):
		return codes.FailedPrecondition, "", reason
	case errors.Is(err, scheduler.ErrPodBound):
		return codes.FailedPrecondition, "node_name", reason
	case errors.As(err, &queueErr):
		if len(queueErr.Errs) == 0 {
			return codes.InvalidArgument, "", reason
		}
		// The first of Kueue's field errors, at its path in the object's
		// message, as the conversion reports the same rules.
		first := queueErr.Errs[0]
		return codes.InvalidArgument, convert.KueuePath(first.Field), first.ErrorBody()
	case errors.Is(err, scheduler.ErrNotFound), errors.Is(err, holder.ErrNotFound):
		return codes.NotFound, "", reason
	case errors.Is(err, disruption.ErrBudgetExhausted), errors.Is(err, ErrLimit):
		return codes.ResourceExhausted, "", reason
	case errors.Is(err, disruption.ErrMultipleBudgets), errors.Is(err, decisionlog.ErrAlreadyEvicted):
		return codes.FailedPrecondition, "", reason
	case errors.Is(err, ErrUIDMismatch), errors.Is(err, scheduler.ErrNoBindInFlight),
		errors.Is(err, scheduler.ErrPodNotPending), errors.Is(err, ErrUnknownProfile), errors.Is(err, ErrUnknownDeviceClass):
		return codes.FailedPrecondition, "", reason
	case errors.As(err, &podStats):
		return codes.FailedPrecondition, "", reason
	case errors.As(err, &compacted):
		return codes.OutOfRange, "", fmt.Sprintf("revision %d was compacted away; the oldest revision kept is %d: watch again from 0 or %d",
			compacted.Requested, compacted.Oldest, compacted.Oldest)
	case errors.As(err, &ahead):
		return codes.OutOfRange, "", fmt.Sprintf("revision %d is beyond the end of log %s, whose next revision is %d: the revision came from another log; resync and watch again from 0",
			ahead.Requested, ahead.LogID, ahead.Next)
	case errors.As(err, &mismatch):
		return codes.FailedPrecondition, "", fmt.Sprintf("log_id %q is not this log's (%s): its revisions mean nothing here; resync and watch again from 0 without log_id",
			mismatch.Requested, mismatch.Actual)
	case errors.As(err, &notLeader):
		return codes.Unavailable, "", reason
	case errors.Is(err, store.ErrFenced):
		return codes.Unavailable, "", "this berthd replica lost the lead while writing; nothing was written: send the request to the new leader (" + reason + ")"
	case errors.Is(err, store.ErrClosed), errors.Is(err, ErrShuttingDown), errors.Is(err, store.ErrUnavailable):
		return codes.Unavailable, "", reason
	case errors.Is(err, store.ErrCorrupt):
		return codes.DataLoss, "", reason
	case errors.As(err, &polErr):
		return codes.FailedPrecondition, "", reason
	case errors.Is(err, ErrNoDeschedulerPolicy):
		return codes.FailedPrecondition, "", reason
	case errors.Is(err, ErrNotConfigured):
		return codes.Unimplemented, "", reason
	case errors.Is(err, ErrUnauthenticated):
		return codes.Unauthenticated, "", reason
	case errors.Is(err, ErrPermissionDenied):
		return codes.PermissionDenied, "", reason
	case errors.Is(err, ErrOverLimit):
		return codes.ResourceExhausted, "", reason
	case errors.Is(err, ErrMalformed):
		return codes.InvalidArgument, "", reason
	case errors.Is(err, ErrOutOfOrder):
		return codes.FailedPrecondition, "", reason
	case errors.Is(err, context.Canceled):
		return codes.Canceled, "", reason
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded, "", reason
	}
	return codes.Internal, "", reason
}

// classField maps core/priority's field names to the proto's.
func classField(f string) string {
	if f == "preemptionPolicy" {
		return "preemption_policy"
	}
	return f
}

// Classify maps err. Field holds the paths of the Field wrappers around err
// and the field of err itself.
func Classify(err error) Mapped {
	m, _ := classify(err)
	return m
}

// Bounds of what an error sends, whatever it quotes: a status stays a few
// KiB (message, field and description), and an ObjectError under 2 KiB,
// so that thousands of them still fit a response a client can receive.
const (
	maxField    = 512
	maxReason   = 1024
	maxRefField = 320 // beyond any valid name or uid
)

// bounded is m with its field and reason clipped to their bounds.
func bounded(m Mapped) Mapped {
	m.Field = clip(m.Field, maxField)
	m.Reason = clip(m.Reason, maxReason)
	return m
}

// clip cuts s to max bytes at most, saying how long it was.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", convert.Clip(s, max-32), len(s))
}

// classify also says whether the field is relative to the message of the
// object the error is about (a Pod, a PriorityClass) rather than to the
// request: ObjectError puts the object's kind in front of it.
func classify(err error) (Mapped, bool) {
	var prefix string
	for {
		l, ok := err.(interface{ FieldPath() string })
		if !ok {
			break
		}
		prefix = fieldpath.Join(prefix, l.FieldPath())
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	var fe *convert.FieldError
	if errors.As(err, &fe) {
		return Mapped{Code: codes.InvalidArgument, Field: fieldpath.Join(prefix, fe.Path), Reason: fe.Reason}, false
	}
	code, kindField, reason := match(err)
	m := Mapped{Code: code, Field: fieldpath.Join(prefix, kindField), Reason: reason}
	return m, kindField != "" && prefix == ""
}

// Field locates err at a field of the request: path is the proto field
// path of the message err is about ("pods[2]", "cluster_delta[0].pod",
// "page_token"); the paths err carries itself are relative to it.
func Field(path string, err error) error {
	if err == nil {
		return nil
	}
	return &located{path: path, err: err}
}

type located struct {
	path string
	err  error
}

func (e *located) Error() string {
	m := Classify(e)
	if m.Field == "" {
		return m.Reason
	}
	return m.Field + ": " + m.Reason
}

func (e *located) Unwrap() error     { return e.err }
func (e *located) FieldPath() string { return e.path }

// KindField is the field of berth.v1.Object holding an object of kind:
// "pod", "priority_class", ...; empty for an unknown kind.
func KindField(kind berthv1.ObjectKind) string {
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return "node"
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return "pod"
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return "priority_class"
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return "pod_disruption_budget"
	case berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:
		return "namespace"
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:
		return "device_class"
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:
		return "resource_slice"
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:
		return "resource_claim"
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE:
		return "resource_claim_template"
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:
		return "device_taint_rule"
	case berthv1.ObjectKind_OBJECT_KIND_POD_GROUP:
		return "pod_group"
	case berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP:
		return "composite_pod_group"
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:
		return "persistent_volume"
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
		return "persistent_volume_claim"
	case berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:
		return "storage_class"
	case berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:
		return "csi_node"
	case berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:
		return "csi_driver"
	case berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:
		return "csi_storage_capacity"
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:
		return "resource_flavor"
	case berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:
		return "cluster_queue"
	case berthv1.ObjectKind_OBJECT_KIND_COHORT:
		return "cohort"
	case berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:
		return "local_queue"
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS:
		return "workload_priority_class"
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		return "workload"
	}
	return ""
}

// Status is err as the gRPC status of an RPC failing as a whole; nil for
// nil. An error that already is a status passes unchanged. The message is
// "field: reason"; INVALID_ARGUMENT carries a google.rpc.BadRequest naming
// the field, an error with an ErrorReason a google.rpc.ErrorInfo with the
// metadata of every error in its chain.
func Status(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	m := bounded(Classify(err))
	msg := m.Reason
	if m.Field != "" {
		msg = m.Field + ": " + msg
	}
	st := status.New(m.Code, msg)
	var details []protoadapt.MessageV1
	if m.Code == codes.InvalidArgument {
		details = append(details, &errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: m.Field, Description: m.Reason}},
		})
	}
	if info := errorInfo(err); info != nil {
		details = append(details, info)
	}
	var retry retryable
	if errors.As(err, &retry) {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(retry.RetryAfter())})
	}
	if len(details) == 0 {
		return st.Err()
	}
	detailed, derr := st.WithDetails(details...)
	if derr != nil {
		return st.Err()
	}
	return detailed.Err()
}

// errorInfo is the ErrorInfo of err: the reason of the outermost error in
// its chain that has one, with the metadata of every error in the chain
// (outer errors win); nil when none has a reason.
func errorInfo(err error) *errdetails.ErrorInfo {
	var reason string
	md := map[string]string{}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if r, ok := e.(reasoned); ok && reason == "" {
			reason = r.ErrorReason()
		}
		if a, ok := e.(annotated); ok {
			for k, v := range a.ErrorMetadata() {
				if _, set := md[k]; !set {
					md[k] = v
				}
			}
		}
	}
	if reason == "" {
		return nil
	}
	return &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: md}
}

// ObjectError is err as the ObjectError of the object at index of a Sync,
// Apply or Delete; ref is the object as far as it could be read (nil when
// not at all). A field of the object's own message gets the object's kind
// in front ("pod.priority_class_name"), as field_path starts at the Object.
func ObjectError(index int, ref *berthv1.ObjectRef, err error) *berthv1.ObjectError {
	m, inKind := classify(err)
	if inKind && ref != nil {
		m.Field = fieldpath.Join(KindField(ref.GetKind()), m.Field)
	}
	m = bounded(m)
	if ref != nil && (len(ref.GetNamespace()) > maxRefField || len(ref.GetName()) > maxRefField || len(ref.GetUid()) > maxRefField) {
		// The object was refused: its identity as sent may be anything.
		ref = &berthv1.ObjectRef{Kind: ref.GetKind(), Namespace: clip(ref.GetNamespace(), maxRefField),
			Name: clip(ref.GetName(), maxRefField), Uid: clip(ref.GetUid(), maxRefField)}
	}
	return &berthv1.ObjectError{Index: uint32(index), Ref: ref, Code: ErrorCode(m.Code), FieldPath: m.Field, Message: m.Reason}
}

// ErrorCode is the ObjectError code of a gRPC code: the same number where
// ErrorCode has it, INTERNAL otherwise.
func ErrorCode(c codes.Code) berthv1.ErrorCode {
	switch c {
	case codes.Canceled:
		return berthv1.ErrorCode_ERROR_CODE_CANCELLED
	case codes.InvalidArgument:
		return berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT
	case codes.DeadlineExceeded:
		return berthv1.ErrorCode_ERROR_CODE_DEADLINE_EXCEEDED
	case codes.NotFound:
		return berthv1.ErrorCode_ERROR_CODE_NOT_FOUND
	case codes.FailedPrecondition:
		return berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION
	}
	return berthv1.ErrorCode_ERROR_CODE_INTERNAL
}
