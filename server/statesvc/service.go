package statesvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/server/podbook"
)

// Cluster is the scheduler as the state service drives it: the object
// store in front of it (core/objstore: every kind applied through one
// Upsert and one Delete, listed through one List), the bind reports, the
// batch and the hold, and the read side a request needs.
type Cluster interface {
	// Upsert admits and applies an object of any kind (a *model.Node,
	// *model.Pod, ..., a DRA or storage object in Kubernetes' type).
	Upsert(ctx context.Context, obj any) error
	// Delete removes the object ref names; a pod by uid.
	Delete(ctx context.Context, ref objstore.Ref) error
	// List lists the objects of kind held, for resyncs.
	List(kind objstore.Kind) ([]any, error)
	// CheckAdmission returns the error the Upsert of pod would refuse it
	// with at admission (in berthd the object store's admission stage,
	// objstore.Store.Admit), changing nothing: a pod replacing another of
	// the same name is checked before the other is deleted.
	CheckAdmission(pod *model.Pod) error
	ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error
	// Hold keeps the scheduling loop from starting cycles until release
	// is called; it returns once no cycle runs.
	Hold(ctx context.Context) (release func(), err error)
	// StartBatch holds back the pending pods added until end: they are
	// queued when the request is applied in full.
	StartBatch() (end func(ctx context.Context))
	// Pod returns a pod by uid; Explain finds one by namespace and name.
	Pod(uid string) (*model.Pod, bool)
	Explain(namespace, name string) (scheduler.Explanation, error)
}

// BindReports tells the revision of a pod's outstanding Bind decision and
// remembers the last bind reported FAILED, so that reporting it again is
// harmless; the book of per-pod facts (server/podbook) knows both.
type BindReports interface {
	// WaitBindRevision returns the revision of the last Bind decision made
	// for the pod, false when none was made, 0 when it is not known (a
	// bind restored after a restart whose record was compacted away). A
	// Bind being committed is waited for: the caller may have seen it on
	// a watch before the commit returned to the binder.
	WaitBindRevision(ctx context.Context, podUID string) (uint64, bool, error)
	// FailureReported says whether r is the pod's last bind reported
	// FAILED; RecordFailure records it, until the pod is deleted.
	FailureReported(podUID string, r podbook.BindReport) bool
	RecordFailure(podUID string, r podbook.BindReport)
}

// Options configure a Service.
type Options struct {
	// Logger defaults to discarding.
	Logger *slog.Logger
	// MaxMutations bounds the mutations (objects, references) of one
	// request; a larger request fails with RESOURCE_EXHAUSTED. 0: no bound
	// beyond the message size limit.
	MaxMutations int
	// BindReports, if set, lets ReportBindResult check that the revision
	// reported is that of the pod's outstanding Bind, and take a FAILED
	// report repeated as done. Unset, any non-zero revision is accepted.
	BindReports BindReports
	// PodsResynced, if set, is called when a resync that re-listed pods
	// ends, once the pods not re-sent are deleted, before the next request
	// is applied: every pod the caller has is then known. The daemon starts
	// scheduling after a restart there, and drops what it restored for pods
	// that did not come back (deleted while it was down).
	PodsResynced func(ctx context.Context)
}

// Service implements berthv1.StateServiceServer over a Cluster.
type Service struct {
	berthv1.UnimplementedStateServiceServer
	cluster Cluster
	opts    Options
	logger  *slog.Logger

	// mu serializes the application of requests; it guards what follows.
	// It is taken after Cluster.Hold and before the Cluster's locks.
	mu sync.Mutex
	// sent records the disruption budgets and namespaces the caller sent
	// and did not delete (the Cluster does not list them), by kind and key.
	sent map[berthv1.ObjectKind]map[string]bool
	// seq counts upserts; upserted holds, for each object held, the seq
	// of its last upsert, by anyone: a resync deletes only objects last
	// upserted before it began.
	seq      uint64
	upserted map[objectKey]uint64
}

var _ berthv1.StateServiceServer = (*Service)(nil)

// New returns a Service applying state to cluster.
func New(cluster Cluster, opts Options) *Service {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		cluster: cluster, opts: opts, logger: logger,
		sent: map[berthv1.ObjectKind]map[string]bool{
			berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET: {},
			berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:             {},
		},
		upserted: map[objectKey]uint64{},
	}
}

// Sync serves one stream: each request is applied and acknowledged in
// order. The stream ends when the caller closes it, its context ends, or a
// request is malformed as a whole (bad resync markers, too many mutations).
//
// Each request is one batch: the pending pods it adds are queued once it
// is applied in full. Scheduling is held from RESYNC_BEGIN to RESYNC_END,
// so no pod is placed while the pods running on the nodes may not all be
// re-sent yet. A stream that ends during a resync abandons it: nothing is
// deleted and the hold ends.
func (s *Service) Sync(stream berthv1.StateService_SyncServer) error {
	ctx := stream.Context()
	var rs resync
	defer func() {
		if rs.open {
			s.logger.Info("resync abandoned: the stream ended before RESYNC_END; nothing deleted")
		}
		rs.close()
	}()
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.checkSize(len(req.GetMutations())); err != nil {
			return err
		}
		if err := rs.check(req); err != nil {
			return err
		}
		resp, err := s.applySync(ctx, req, &rs)
		if err != nil {
			return err
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// applySync applies one Sync request as one batch.
func (s *Service) applySync(ctx context.Context, req *berthv1.SyncRequest, rs *resync) (*berthv1.SyncResponse, error) {
	if req.GetResync() == berthv1.Resync_RESYNC_BEGIN && rs.release == nil {
		var err error
		if rs.release, err = s.cluster.Hold(ctx); err != nil {
			return nil, errmap.Status(err)
		}
	}
	resp := &berthv1.SyncResponse{BatchId: req.GetBatchId()}
	s.mu.Lock()
	defer s.mu.Unlock()
	endBatch := s.cluster.StartBatch()
	defer endBatch(ctx) // ending twice does nothing
	if req.GetResync() == berthv1.Resync_RESYNC_BEGIN {
		rs.begin(req.GetResyncKinds(), s.seq)
	}
	checks := newRequestCheck()
	for i, m := range req.GetMutations() {
		if e := s.applyMutationLocked(ctx, i, m, checks); e != nil {
			resp.Errors = append(resp.Errors, e)
		} else {
			resp.Applied++
		}
	}
	if req.GetResync() == berthv1.Resync_RESYNC_END {
		deleted, finish := s.endResyncLocked(ctx, rs)
		resp.ResyncDeleted = uint32(deleted)
		endBatch(ctx)
		finish()
	}
	return resp, nil
}

// applyMutationLocked applies one mutation of a Sync request; it returns
// the mutation's error, nil when it took effect.
func (s *Service) applyMutationLocked(ctx context.Context, i int, m *berthv1.Mutation, checks *requestCheck) *berthv1.ObjectError {
	switch op := m.GetOp().(type) {
	case *berthv1.Mutation_Upsert:
		if err := checks.check(i, op.Upsert); err != nil {
			return errmap.ObjectError(i, convert.ObjectRefOf(op.Upsert), err)
		}
		if err := s.upsertLocked(ctx, op.Upsert); err != nil {
			return errmap.ObjectError(i, convert.ObjectRefOf(op.Upsert), err)
		}
	case *berthv1.Mutation_Delete:
		if err := s.deleteLocked(ctx, op.Delete); err != nil {
			return errmap.ObjectError(i, op.Delete, err)
		}
	default:
		return errmap.ObjectError(i, nil, &convert.FieldError{Reason: "the mutation is empty: exactly one of upsert and delete is required"})
	}
	return nil
}

// Apply upserts objects, like a Sync batch without markers.
func (s *Service) Apply(ctx context.Context, req *berthv1.ApplyRequest) (*berthv1.ApplyResponse, error) {
	if err := s.checkSize(len(req.GetObjects())); err != nil {
		return nil, err
	}
	resp := &berthv1.ApplyResponse{}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cluster.StartBatch()(ctx)
	checks := newRequestCheck()
	for i, o := range req.GetObjects() {
		err := checks.check(i, o)
		if err == nil {
			err = s.upsertLocked(ctx, o)
		}
		if err != nil {
			resp.Errors = append(resp.Errors, errmap.ObjectError(i, convert.ObjectRefOf(o), err))
		} else {
			resp.Applied++
		}
	}
	return resp, nil
}

// Delete removes objects, like a Sync batch of deletes without markers.
func (s *Service) Delete(ctx context.Context, req *berthv1.DeleteRequest) (*berthv1.DeleteResponse, error) {
	if err := s.checkSize(len(req.GetRefs())); err != nil {
		return nil, err
	}
	resp := &berthv1.DeleteResponse{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range req.GetRefs() {
		if err := s.deleteLocked(ctx, r); err != nil {
			resp.Errors = append(resp.Errors, errmap.ObjectError(i, r, err))
		} else {
			resp.Deleted++
		}
	}
	return resp, nil
}

func (s *Service) checkSize(n int) error {
	if s.opts.MaxMutations > 0 && n > s.opts.MaxMutations {
		return errmap.Status(errmap.Refuse(errmap.ErrOverLimit, "the request holds %d mutations, more than the limit of %d; send smaller batches", n, s.opts.MaxMutations))
	}
	return nil
}

// ReportBindResult settles a Bind decision.
func (s *Service) ReportBindResult(ctx context.Context, req *berthv1.ReportBindResultRequest) (*berthv1.ReportBindResultResponse, error) {
	ns, name, uid, err := convert.PodRefFromProto(req.GetPod(), true)
	if err != nil {
		var fe *convert.FieldError
		errors.As(err, &fe)
		return nil, errmap.Status(fe.Prefixed("pod"))
	}
	if err := convert.CheckName("node", req.GetNode(), true); err != nil {
		return nil, errmap.Status(err)
	}
	if err := convert.CheckLength("reason", req.GetReason(), convert.MaxReasonLength); err != nil {
		return nil, errmap.Status(err)
	}
	var ok bool
	switch {
	case req.GetRevision() == 0:
		return nil, errmap.Status(&convert.FieldError{Path: "revision", Reason: "required"})
	case req.GetOutcome() == berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED:
		ok = true
	case req.GetOutcome() == berthv1.BindOutcome_BIND_OUTCOME_FAILED:
	case req.GetOutcome() == berthv1.BindOutcome_BIND_OUTCOME_UNSPECIFIED:
		return nil, errmap.Status(&convert.FieldError{Path: "outcome", Reason: "required"})
	default:
		return nil, errmap.Status(&convert.FieldError{Path: "outcome", Reason: fmt.Sprintf("unknown value %d", req.GetOutcome())})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pod, found := s.cluster.Pod(uid)
	if !found || pod.Namespace != ns || pod.Name != name {
		return nil, errmap.Status(fmt.Errorf("pod %s/%s with uid %s: %w", ns, name, uid, scheduler.ErrPodNotFound))
	}
	reports := s.opts.BindReports
	report := podbook.BindReport{Node: req.GetNode(), Revision: req.GetRevision()}
	if !ok && reports != nil && reports.FailureReported(uid, report) {
		return &berthv1.ReportBindResultResponse{}, nil // already reported
	}
	if reports != nil {
		// A bind whose revision is not known (restored after a restart,
		// its record compacted away) is identified by the pod and node.
		rev, made, err := reports.WaitBindRevision(ctx, uid)
		switch {
		case err != nil:
			return nil, errmap.Status(err)
		case !made:
			return nil, errmap.Status(errmap.Field("revision", fmt.Errorf("no Bind decision was made for the pod: %w", scheduler.ErrNoBindInFlight)))
		case rev != 0 && rev != req.GetRevision():
			return nil, errmap.Status(errmap.Field("revision", fmt.Errorf("%d is not the revision of the pod's last Bind decision (%d): %w", req.GetRevision(), rev, scheduler.ErrNoBindInFlight)))
		}
	}
	if err := s.cluster.ReportBindResult(ctx, uid, req.GetNode(), ok, req.GetReason()); err != nil {
		return nil, errmap.Status(err)
	}
	if !ok && reports != nil {
		reports.RecordFailure(uid, report)
	}
	return &berthv1.ReportBindResultResponse{}, nil
}
