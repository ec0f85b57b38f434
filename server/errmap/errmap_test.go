package errmap_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// fieldErr is an error located by a FieldPath method, as services define.
type fieldErr struct {
	path string
	err  error
}

func (e *fieldErr) Error() string     { return e.path + ": " + e.err.Error() }
func (e *fieldErr) Unwrap() error     { return e.err }
func (e *fieldErr) FieldPath() string { return e.path }

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errmap.Mapped
	}{
		{name: "field error", err: &convert.FieldError{Path: "containers[0].name", Reason: "required"},
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "containers[0].name", Reason: "required"}},
		{name: "field error located", err: errmap.Field("pods[2]", fmt.Errorf("convert: %w", &convert.FieldError{Path: "containers[0].name", Reason: "required"})),
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "pods[2].containers[0].name", Reason: "required"}},
		{name: "nested locations", err: errmap.Field("a", errmap.Field("[3]", &fieldErr{path: "b", err: scheduler.ErrInvalid})),
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "a[3].b", Reason: "invalid object"}},
		{name: "unknown class", err: fmt.Errorf("admit pod default/p: %w", &priority.UnknownClassError{Name: "gold"}),
			want: errmap.Mapped{Code: codes.FailedPrecondition, Field: "priority_class_name", Reason: "no PriorityClass with name gold was found; send the PriorityClass first"}},
		{name: "unknown class located", err: errmap.Field("pods[1]", &priority.UnknownClassError{Name: "gold"}),
			want: errmap.Mapped{Code: codes.FailedPrecondition, Field: "pods[1].priority_class_name", Reason: "no PriorityClass with name gold was found; send the PriorityClass first"}},
		{name: "invalid class", err: &priority.InvalidClassError{Name: "x", Field: "preemptionPolicy", Reason: "unknown"},
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "preemption_policy", Reason: "unknown"}},
		{name: "scheduler invalid", err: fmt.Errorf("add pod: %w", scheduler.ErrInvalid),
			want: errmap.Mapped{Code: codes.InvalidArgument, Reason: "add pod: invalid object"}},
		{name: "built-in class", err: &fieldErr{path: "name", err: fmt.Errorf("system-x cannot be deleted: %w", errmap.ErrBuiltinClass)},
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "name", Reason: "system-x cannot be deleted: built-in PriorityClass"}},
		{name: "pod not found", err: fmt.Errorf("explain: %w", scheduler.ErrPodNotFound),
			want: errmap.Mapped{Code: codes.NotFound, Reason: "explain: pod not found"}},
		{name: "uid mismatch", err: &fieldErr{path: "uid", err: fmt.Errorf("pod has uid a, not b: %w", errmap.ErrUIDMismatch)},
			want: errmap.Mapped{Code: codes.FailedPrecondition, Field: "uid", Reason: "pod has uid a, not b: uid differs from the held pod's"}},
		{name: "no bind in flight", err: scheduler.ErrNoBindInFlight, want: errmap.Mapped{Code: codes.FailedPrecondition, Reason: "no bind in flight"}},
		{name: "pod not pending", err: scheduler.ErrPodNotPending, want: errmap.Mapped{Code: codes.FailedPrecondition, Reason: "pod is not pending"}},
		{name: "unknown profile", err: errmap.Field("scheduler_name", fmt.Errorf("%w %q", errmap.ErrUnknownProfile, "x")),
			want: errmap.Mapped{Code: codes.FailedPrecondition, Field: "scheduler_name", Reason: `no such scheduling profile "x"`}},
		{name: "compacted", err: fmt.Errorf("watch: %w", &store.CompactedError{Requested: 3, Oldest: 40}),
			want: errmap.Mapped{Code: codes.OutOfRange, Reason: "revision 3 was compacted away; the oldest revision kept is 40: watch again from 0 or 40"}},
		{name: "store closed", err: store.ErrClosed, want: errmap.Mapped{Code: codes.Unavailable, Reason: "store: closed"}},
		{name: "shutting down", err: errmap.ErrShuttingDown, want: errmap.Mapped{Code: codes.Unavailable, Reason: "berthd is shutting down"}},
		{name: "store cannot write", err: fmt.Errorf("commit: %w: disk full", store.ErrUnavailable),
			want: errmap.Mapped{Code: codes.Unavailable, Reason: "commit: store: cannot write: disk full"}},
		{name: "damaged record", err: fmt.Errorf("read: %w", &store.CorruptRecordError{Revision: 7, Reason: "checksum 1, stored 2"}),
			want: errmap.Mapped{Code: codes.DataLoss, Reason: "read: store: record at revision 7 is damaged: checksum 1, stored 2"}},
		{name: "queueing object invalid", err: fmt.Errorf("upsert: %w", queueInvalid()),
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "resource_groups[0].flavors[1].resources[0].nominal_quota",
				Reason: `Invalid value: "-1": must be greater than or equal to 0`}},
		{name: "queueing object invalid located", err: errmap.Field("objects[3]", queueInvalid()),
			want: errmap.Mapped{Code: codes.InvalidArgument, Field: "objects[3].resource_groups[0].flavors[1].resources[0].nominal_quota",
				Reason: `Invalid value: "-1": must be greater than or equal to 0`}},
		{name: "queueing object not held", err: fmt.Errorf("delete ClusterQueue q: %w", holder.ErrNotFound),
			want: errmap.Mapped{Code: codes.NotFound, Reason: "delete ClusterQueue q: not found"}},
		{name: "not configured", err: errmap.ErrNotConfigured, want: errmap.Mapped{Code: codes.Unimplemented, Reason: "not configured on this server"}},
		{name: "canceled", err: fmt.Errorf("apply: %w", context.Canceled), want: errmap.Mapped{Code: codes.Canceled, Reason: "apply: context canceled"}},
		{name: "deadline", err: context.DeadlineExceeded, want: errmap.Mapped{Code: codes.DeadlineExceeded, Reason: "context deadline exceeded"}},
		{name: "anything else", err: errors.New("boom"), want: errmap.Mapped{Code: codes.Internal, Reason: "boom"}},
		{name: "anything else located", err: errmap.Field("x", errors.New("boom")), want: errmap.Mapped{Code: codes.Internal, Field: "x", Reason: "boom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errmap.Classify(tc.err)); diff != "" {
				t.Errorf("Classify(%v) (-want +got):\n%s", tc.err, diff)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		wantCode    codes.Code
		wantMessage string
		wantDetails []any
	}{
		{name: "nil", err: nil, wantCode: codes.OK},
		{name: "already a status", err: status.Error(codes.Aborted, "as is"), wantCode: codes.Aborted, wantMessage: "as is"},
		{name: "invalid field", err: errmap.Field("pods[0]", &convert.FieldError{Path: "name", Reason: "required"}),
			wantCode: codes.InvalidArgument, wantMessage: "pods[0].name: required",
			wantDetails: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "pods[0].name", Description: "required"}}}}},
		{name: "compacted", err: &store.CompactedError{Requested: 3, Oldest: 40},
			wantCode: codes.OutOfRange, wantMessage: "revision 3 was compacted away; the oldest revision kept is 40: watch again from 0 or 40",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "REVISION_COMPACTED", Domain: "berth.v1", Metadata: map[string]string{"oldest_revision": "40"}}}},
		{name: "compacted in a watch names the log", err: &watch.ReadError{LogID: "log-1", Revision: 3, Err: &store.CompactedError{Requested: 3, Oldest: 40}},
			wantCode: codes.OutOfRange, wantMessage: "revision 3 was compacted away; the oldest revision kept is 40: watch again from 0 or 40",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "REVISION_COMPACTED", Domain: "berth.v1", Metadata: map[string]string{"oldest_revision": "40", "log_id": "log-1"}}}},
		{name: "revision not written", err: &watch.AheadError{Requested: 100, Next: 8, LogID: "log-1"},
			wantCode:    codes.OutOfRange,
			wantMessage: "revision 100 is beyond the end of log log-1, whose next revision is 8: the revision came from another log; resync and watch again from 0",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "REVISION_NOT_WRITTEN", Domain: "berth.v1", Metadata: map[string]string{"next_revision": "8", "log_id": "log-1"}}}},
		{name: "another log", err: &watch.LogMismatchError{Requested: "log-0", Actual: "log-1"},
			wantCode:    codes.FailedPrecondition,
			wantMessage: `log_id "log-0" is not this log's (log-1): its revisions mean nothing here; resync and watch again from 0 without log_id`,
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "LOG_ID_MISMATCH", Domain: "berth.v1", Metadata: map[string]string{"log_id": "log-1"}}}},
		{name: "not the leader", err: &errmap.NotLeaderError{Leader: "berthd-2:7070"},
			wantCode: codes.Unavailable, wantMessage: "this berthd replica is not the leader: send writes to the leader at berthd-2:7070",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "NOT_LEADER", Domain: "berth.v1", Metadata: map[string]string{"leader": "berthd-2:7070"}}}},
		{name: "no leader known", err: &errmap.NotLeaderError{},
			wantCode: codes.Unavailable, wantMessage: "this berthd replica is not the leader, and no leader is known now: retry shortly",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "NOT_LEADER", Domain: "berth.v1", Metadata: map[string]string{"leader": ""}}}},
		{name: "fenced", err: fmt.Errorf("bind: %w", store.ErrFenced),
			wantCode:    codes.Unavailable,
			wantMessage: "this berthd replica lost the lead while writing; nothing was written: send the request to the new leader (bind: store: fenced: this writer is no longer the leader)"},
		{name: "not found", err: fmt.Errorf("explain default/x: %w", scheduler.ErrPodNotFound), wantCode: codes.NotFound, wantMessage: "explain default/x: pod not found"},
		{name: "pod group spec changed", err: errmap.Field("pod_group", &gang.SpecImmutableError{Group: "ml/train", Field: "min_count", Old: "4", New: "3"}),
			wantCode:    codes.FailedPrecondition,
			wantMessage: "pod_group.min_count: pod group ml/train: min_count is 4, cannot change to 3: a pod group's spec is immutable (delete the group and create it again)",
			wantDetails: []any{&errdetails.ErrorInfo{Reason: "POD_GROUP_SPEC_IMMUTABLE", Domain: "berth.v1", Metadata: map[string]string{"pod_group": "ml/train", "field": "min_count"}}}},
		{name: "pod group invalid", err: fmt.Errorf("pod group ml/g: min_count 0: must be at least 1: %w", gang.ErrInvalid),
			wantCode: codes.InvalidArgument, wantMessage: "pod group ml/g: min_count 0: must be at least 1: invalid pod group",
			wantDetails: []any{&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Description: "pod group ml/g: min_count 0: must be at least 1: invalid pod group"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := errmap.Status(tc.err)
			if (err == nil) != (tc.err == nil) {
				t.Fatalf("Status(%v) = %v", tc.err, err)
			}
			st := status.Convert(err)
			if st.Code() != tc.wantCode || st.Message() != tc.wantMessage {
				t.Errorf("Status = %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMessage)
			}
			if diff := cmp.Diff(tc.wantDetails, st.Details(), protocmp.Transform(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

// queueInvalid is the holder's refusal of a ClusterQueue, with Kueue's
// field path.
func queueInvalid() error {
	return &holder.InvalidError{Kind: holder.KindClusterQueue, Key: "q", Errs: field.ErrorList{
		field.Invalid(field.NewPath("spec", "resourceGroups").Index(0).Child("flavors").Index(1).Child("resources").Index(0).Child("nominalQuota"),
			"-1", "must be greater than or equal to 0"),
	}}
}

// TestKindFieldCoversEveryKind: every ObjectKind has its Object field, so
// that an object's refusal names it.
func TestKindFieldCoversEveryKind(t *testing.T) {
	for n, name := range berthv1.ObjectKind_name {
		kind := berthv1.ObjectKind(n)
		if kind == berthv1.ObjectKind_OBJECT_KIND_UNSPECIFIED {
			continue
		}
		f := errmap.KindField(kind)
		if f == "" {
			t.Errorf("KindField(%s) is empty", name)
			continue
		}
		if (&berthv1.Object{}).ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(f)) == nil {
			t.Errorf("KindField(%s) = %q, not a field of berth.v1.Object", name, f)
		}
	}
}

func TestObjectError(t *testing.T) {
	podRef := &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: "p"}
	cqRef := &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, Name: "q"}
	classRef := &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, Name: "c"}
	tests := []struct {
		name  string
		ref   *berthv1.ObjectRef
		err   error
		want  *berthv1.ObjectError
		index int
	}{
		{name: "conversion error starts at the Object", index: 2, ref: podRef, err: &convert.FieldError{Path: "pod.containers[0].requests[cpu]", Reason: "must not be negative"},
			want: &berthv1.ObjectError{Index: 2, Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "pod.containers[0].requests[cpu]", Message: "must not be negative"}},
		{name: "unknown class gets the kind", ref: podRef, err: fmt.Errorf("admit: %w", &priority.UnknownClassError{Name: "gold"}),
			want: &berthv1.ObjectError{Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION, FieldPath: "pod.priority_class_name", Message: "no PriorityClass with name gold was found; send the PriorityClass first"}},
		{name: "invalid class gets the kind", ref: classRef, err: &priority.InvalidClassError{Name: "c", Field: "value", Reason: "too high"},
			want: &berthv1.ObjectError{Ref: classRef, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "priority_class.value", Message: "too high"}},
		{name: "delete field starts at the ref", ref: podRef, err: &fieldErr{path: "uid", err: errmap.ErrUIDMismatch},
			want: &berthv1.ObjectError{Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION, FieldPath: "uid", Message: "uid differs from the held pod's"}},
		{name: "canceled is not internal", ref: podRef, err: context.Canceled,
			want: &berthv1.ObjectError{Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_CANCELLED, Message: "context canceled"}},
		{name: "deadline is not internal", ref: podRef, err: context.DeadlineExceeded,
			want: &berthv1.ObjectError{Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_DEADLINE_EXCEEDED, Message: "context deadline exceeded"}},
		{name: "a code ErrorCode lacks is internal", ref: podRef, err: store.ErrClosed,
			want: &berthv1.ObjectError{Ref: podRef, Code: berthv1.ErrorCode_ERROR_CODE_INTERNAL, Message: "store: closed"}},
		{name: "queueing refusal gets the kind", ref: cqRef, err: queueInvalid(),
			want: &berthv1.ObjectError{Ref: cqRef, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT,
				FieldPath: "cluster_queue.resource_groups[0].flavors[1].resources[0].nominal_quota", Message: `Invalid value: "-1": must be greater than or equal to 0`}},
		{name: "no ref", err: &convert.FieldError{Reason: "the object has no kind"},
			want: &berthv1.ObjectError{Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, Message: "the object has no kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errmap.ObjectError(tc.index, tc.ref, tc.err), protocmp.Transform()); diff != "" {
				t.Errorf("ObjectError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorCodeNumbers checks that every ErrorCode is named and numbered
// as the google.rpc.Code it stands for, and that ErrorCode maps that code
// to it.
func TestErrorCodeNumbers(t *testing.T) {
	for n, name := range berthv1.ErrorCode_name {
		if n == 0 {
			continue
		}
		if want := "ERROR_CODE_" + rpccode.Code_name[n]; name != want {
			t.Errorf("ErrorCode %d is %s, want %s", n, name, want)
		}
		if got := errmap.ErrorCode(codes.Code(n)); int32(got) != n {
			t.Errorf("ErrorCode(%v) = %v, want %s", codes.Code(n), got, name)
		}
	}
}

// However large what an error quotes, the status and the ObjectError a
// client receives stay small enough to receive and read.
func TestErrorsAreBounded(t *testing.T) {
	huge := strings.Repeat("é", 3<<20) // 6 MB, runes of two bytes
	err := errmap.Field("pods[0].labels["+huge+"]", &convert.FieldError{Reason: "invalid value " + huge})
	st := status.Convert(errmap.Status(err))
	if n := proto.Size(st.Proto()); n > 8<<10 {
		t.Errorf("status of %d bytes, want at most 8 KiB", n)
	}
	if !utf8.ValidString(st.Message()) || !strings.Contains(st.Message(), "bytes)") {
		t.Errorf("message %.200q... is not valid UTF-8 or does not say it was clipped", st.Message())
	}
	oe := errmap.ObjectError(0, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: huge, Name: huge, Uid: huge}, err)
	if n := proto.Size(oe); n > 8<<10 {
		t.Errorf("ObjectError of %d bytes, want at most 8 KiB", n)
	}
	if !utf8.ValidString(oe.GetMessage()) || !utf8.ValidString(oe.GetFieldPath()) {
		t.Errorf("ObjectError is not valid UTF-8")
	}
}
