package statesvc

import (
	"context"
	"errors"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
)

// allKinds are the kinds a RESYNC_BEGIN without resync_kinds re-lists, in
// the order RESYNC_END deletes them: pods before the nodes they run on and
// the classes and namespaces they name.
func allKinds() []berthv1.ObjectKind {
	return []berthv1.ObjectKind{
		berthv1.ObjectKind_OBJECT_KIND_POD,
		berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET,
		berthv1.ObjectKind_OBJECT_KIND_NODE,
		berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS,
		berthv1.ObjectKind_OBJECT_KIND_NAMESPACE,
	}
}

// resync is the re-list in progress on one Sync stream.
type resync struct {
	open bool
	// resent holds, for each kind re-listed, the keys upserted since
	// RESYNC_BEGIN and not deleted since.
	resent map[berthv1.ObjectKind]map[string]bool
}

// check validates a request's marker before anything of it is applied;
// an error ends the stream.
func (r *resync) check(req *berthv1.SyncRequest) error {
	switch req.GetResync() {
	case berthv1.Resync_RESYNC_UNSPECIFIED, berthv1.Resync_RESYNC_BEGIN:
	case berthv1.Resync_RESYNC_END:
		if !r.open {
			return status.Errorf(codes.FailedPrecondition, "batch %d: RESYNC_END without an open resync (send RESYNC_BEGIN first)", req.GetBatchId())
		}
	default:
		return status.Errorf(codes.InvalidArgument, "batch %d: resync: unknown value %d", req.GetBatchId(), req.GetResync())
	}
	if len(req.GetResyncKinds()) > 0 && req.GetResync() != berthv1.Resync_RESYNC_BEGIN {
		return status.Errorf(codes.FailedPrecondition, "batch %d: resync_kinds is only allowed with RESYNC_BEGIN", req.GetBatchId())
	}
	for i, k := range req.GetResyncKinds() {
		if !convert.KnownKind(k) {
			return status.Errorf(codes.InvalidArgument, "batch %d: resync_kinds[%d]: %s is not an object kind", req.GetBatchId(), i, k)
		}
	}
	return nil
}

// begin opens (or restarts) a resync of kinds, every kind when empty.
func (r *resync) begin(kinds []berthv1.ObjectKind) {
	if len(kinds) == 0 {
		kinds = allKinds()
	}
	r.open = true
	r.resent = make(map[berthv1.ObjectKind]map[string]bool, len(kinds))
	for _, k := range kinds {
		r.resent[k] = map[string]bool{}
	}
}

func (r *resync) upserted(ref convert.Ref) {
	if set, ok := r.resent[ref.Kind]; ok && r.open {
		set[ref.Key()] = true
	}
}

func (r *resync) deleted(ref convert.Ref) {
	if set, ok := r.resent[ref.Kind]; ok && r.open {
		delete(set, ref.Key())
	}
}

// endResyncLocked closes the stream's resync: the objects of the re-listed
// kinds that were not re-sent are deleted. It returns how many were.
func (s *Service) endResyncLocked(ctx context.Context, r *resync) int {
	deleted := 0
	for _, kind := range allKinds() {
		resent, listed := r.resent[kind]
		if !listed {
			continue
		}
		held, err := s.heldLocked(kind)
		if err != nil {
			s.logger.Error("resync: listing what is held failed; nothing of this kind deleted", "kind", kind, "err", err)
			continue
		}
		slices.SortFunc(held, func(a, b convert.Ref) int { return strings.Compare(a.Key(), b.Key()) })
		for _, ref := range held {
			if resent[ref.Key()] {
				continue
			}
			if ref.Kind == berthv1.ObjectKind_OBJECT_KIND_POD {
				ref.UID = "" // the pod held now, whatever its uid
			}
			err := s.deleteRefLocked(ctx, ref)
			switch {
			case err == nil:
				deleted++
			case !errors.Is(err, scheduler.ErrNotFound):
				s.logger.Error("resync: deleting an object that was not re-sent failed", "kind", kind, "object", ref.Key(), "err", err)
			}
		}
	}
	_, podsListed := r.resent[berthv1.ObjectKind_OBJECT_KIND_POD]
	r.open, r.resent = false, nil
	if podsListed && s.opts.PodsResynced != nil {
		s.opts.PodsResynced(ctx)
	}
	return deleted
}
