package decisionsvc

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/store"
)

// Error details of OUT_OF_RANGE and FAILED_PRECONDITION, as
// decision_service.proto documents them.
const (
	ErrorDomain            = errmap.ErrorDomain
	ReasonCompacted        = errmap.ReasonCompacted
	ReasonNotWritten       = "REVISION_NOT_WRITTEN"
	ReasonLogIDMismatch    = "LOG_ID_MISMATCH"
	MetadataOldestRevision = errmap.MetadataOldestRevision
	MetadataNextRevision   = "next_revision"
	MetadataLogID          = "log_id"
)

// Watcher is the decision log as Watch uses it; *decisionlog.Log
// satisfies it.
type Watcher interface {
	Watch(ctx context.Context, from uint64, logID string, f decisionlog.Filter, send decisionlog.Send) error
	// ID is the log's identity.
	ID() string
}

// Options configure a Service.
type Options struct {
	// Stopping, when it ends, ends every watch with UNAVAILABLE so that
	// a graceful stop does not wait for watchers; nil never ends.
	Stopping context.Context
}

// Service implements berthv1.DecisionServiceServer.
type Service struct {
	berthv1.UnimplementedDecisionServiceServer
	log      Watcher
	stopping context.Context
}

var _ berthv1.DecisionServiceServer = (*Service)(nil)

// New returns a Service streaming from log.
func New(log Watcher, opts Options) *Service {
	if opts.Stopping == nil {
		opts.Stopping = context.Background()
	}
	return &Service{log: log, stopping: opts.Stopping}
}

// Watch implements berthv1.DecisionServiceServer.
func (s *Service) Watch(req *berthv1.WatchRequest, stream berthv1.DecisionService_WatchServer) error {
	for i, t := range req.GetTypes() {
		if _, known := berthv1.DecisionType_name[int32(t)]; !known || t == berthv1.DecisionType_DECISION_TYPE_UNSPECIFIED {
			return errmap.Status(&convert.FieldError{Path: fmt.Sprintf("types[%d]", i), Reason: fmt.Sprintf("%v is not a decision type", t)})
		}
	}
	ctx, cancel := context.WithCancelCause(stream.Context())
	defer cancel(nil)
	stop := context.AfterFunc(s.stopping, func() { cancel(errStopping) })
	defer stop()
	f := decisionlog.Filter{SchedulerName: req.GetSchedulerName(), Types: req.GetTypes()}
	err := s.log.Watch(ctx, req.GetFromRevision(), req.GetLogId(), f, stream.Send)
	if context.Cause(ctx) == errStopping {
		return errmap.Status(errStopping)
	}
	return statusOf(err, s.log.ID())
}

var errStopping = fmt.Errorf("%w; watch again from next_revision", errmap.ErrShuttingDown)

// statusOf maps the log's errors to gRPC status (see server/errmap); a
// closed store means berthd is stopping. The errors about revisions carry
// an ErrorInfo with the log's identity, logID.
func statusOf(err error, logID string) error {
	var (
		compacted *store.CompactedError
		ahead     *decisionlog.AheadError
		mismatch  *decisionlog.LogMismatchError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &compacted):
		return withInfo(status.Newf(codes.OutOfRange, "revision %d was compacted away; the oldest revision kept is %d: watch again from 0 or %d",
			compacted.Requested, compacted.Oldest, compacted.Oldest), ReasonCompacted, map[string]string{
			MetadataOldestRevision: strconv.FormatUint(compacted.Oldest, 10), MetadataLogID: logID,
		})
	case errors.As(err, &ahead):
		return withInfo(status.Newf(codes.OutOfRange, "revision %d is beyond the end of log %s, whose next revision is %d: the revision came from another log; resync and watch again from 0",
			ahead.Requested, logID, ahead.Next), ReasonNotWritten, map[string]string{
			MetadataNextRevision: strconv.FormatUint(ahead.Next, 10), MetadataLogID: logID,
		})
	case errors.As(err, &mismatch):
		return withInfo(status.Newf(codes.FailedPrecondition, "log_id %q is not this log's (%s): its revisions mean nothing here; resync and watch again from 0 without log_id",
			mismatch.Requested, mismatch.Actual), ReasonLogIDMismatch, map[string]string{MetadataLogID: mismatch.Actual})
	case errors.Is(err, store.ErrClosed):
		err = errStopping
	}
	return errmap.Status(err)
}

// withInfo adds the ErrorInfo of reason to st.
func withInfo(st *status.Status, reason string, md map[string]string) error {
	detailed, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: md})
	if err != nil {
		return st.Err()
	}
	return detailed.Err()
}
