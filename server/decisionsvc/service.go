package decisionsvc

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/store"
)

// Error details of OUT_OF_RANGE, as decision_service.proto documents them.
const (
	ErrorDomain            = "berth.v1"
	ReasonCompacted        = "REVISION_COMPACTED"
	MetadataOldestRevision = "oldest_revision"
)

// Watcher is the decision log as Watch uses it; *decisionlog.Log
// satisfies it.
type Watcher interface {
	Watch(ctx context.Context, from uint64, f decisionlog.Filter, send decisionlog.Send) error
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
			return status.Errorf(codes.InvalidArgument, "types[%d]: %v is not a decision type", i, t)
		}
	}
	ctx, cancel := context.WithCancelCause(stream.Context())
	defer cancel(nil)
	stop := context.AfterFunc(s.stopping, func() { cancel(errStopping) })
	defer stop()
	f := decisionlog.Filter{SchedulerName: req.GetSchedulerName(), Types: req.GetTypes()}
	err := s.log.Watch(ctx, req.GetFromRevision(), f, stream.Send)
	if context.Cause(ctx) == errStopping {
		return status.Error(codes.Unavailable, "berthd is shutting down; watch again from next_revision")
	}
	return statusOf(err)
}

var errStopping = errors.New("server stopping")

// statusOf maps the log's errors to gRPC status.
func statusOf(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err // from the stream itself
	}
	var compacted *store.CompactedError
	switch {
	case errors.As(err, &compacted):
		return compactedStatus(compacted)
	case errors.Is(err, store.ErrClosed):
		return status.Error(codes.Unavailable, "berthd is shutting down; watch again from next_revision")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// compactedStatus is OUT_OF_RANGE with its ErrorInfo.
func compactedStatus(e *store.CompactedError) error {
	st := status.Newf(codes.OutOfRange, "revision %d was compacted away; the oldest revision kept is %d: watch again from 0 or %d",
		e.Requested, e.Oldest, e.Oldest)
	detailed, err := st.WithDetails(&errdetails.ErrorInfo{
		Reason:   ReasonCompacted,
		Domain:   ErrorDomain,
		Metadata: map[string]string{MetadataOldestRevision: strconv.FormatUint(e.Oldest, 10)},
	})
	if err != nil {
		return st.Err()
	}
	return detailed.Err()
}
