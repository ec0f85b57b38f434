package decisionsvc

import (
	"context"
	"errors"
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// Watcher is the decision log as Watch uses it; *watch.Feed
// satisfies it.
type Watcher interface {
	Watch(ctx context.Context, from uint64, logID string, f watch.Filter, send watch.Send) error
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
	if err := convert.CheckName("scheduler_name", req.GetSchedulerName(), false); err != nil {
		return errmap.Status(err)
	}
	if err := convert.CheckLength("log_id", req.GetLogId(), maxLogIDLength); err != nil {
		return errmap.Status(err)
	}
	ctx, cancel := context.WithCancelCause(stream.Context())
	defer cancel(nil)
	stop := context.AfterFunc(s.stopping, func() { cancel(errStopping) })
	defer stop()
	f := watch.Filter{SchedulerName: req.GetSchedulerName(), Types: req.GetTypes()}
	err := s.log.Watch(ctx, req.GetFromRevision(), req.GetLogId(), f, stream.Send)
	// A closed store means berthd is stopping: watch again elsewhere.
	if context.Cause(ctx) == errStopping || errors.Is(err, store.ErrClosed) {
		return errmap.Status(errStopping)
	}
	return errmap.Status(err)
}

// maxLogIDLength bounds a log_id: a log's identity is far shorter, and a
// longer one names no log.
const maxLogIDLength = 256

var errStopping = fmt.Errorf("%w; watch again from next_revision", errmap.ErrShuttingDown)
