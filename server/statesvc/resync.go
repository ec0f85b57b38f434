package statesvc

import (
	"context"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// allKinds are the kinds a RESYNC_BEGIN without resync_kinds re-lists, in
// the order RESYNC_END deletes them: pods before the nodes they run on and
// the classes and namespaces they name.
func allKinds() []berthv1.ObjectKind {
	return []berthv1.ObjectKind{
		// The queueing objects, what refers to others first.
		berthv1.ObjectKind_OBJECT_KIND_WORKLOAD,
		berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE,
		berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE,
		berthv1.ObjectKind_OBJECT_KIND_COHORT,
		berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR,
		berthv1.ObjectKind_OBJECT_KIND_POD,
		berthv1.ObjectKind_OBJECT_KIND_POD_GROUP,
		berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP,
		berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM,
		berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME,
		berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY,
		berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS,
		berthv1.ObjectKind_OBJECT_KIND_CSI_NODE,
		berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER,
		berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE,
		berthv1.ObjectKind_OBJECT_KIND_NODE,
		berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE,
		berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS,
		berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS,
		berthv1.ObjectKind_OBJECT_KIND_NAMESPACE,
	}
}

// resync is the re-list in progress on one Sync stream.
type resync struct {
	open bool
	// kinds are the kinds re-listed.
	kinds []berthv1.ObjectKind
	// since is the service's upsert count at RESYNC_BEGIN: objects
	// upserted since (by anyone) have a higher seq and are kept.
	since uint64
	// release ends the stream's hold on scheduling, taken at RESYNC_BEGIN;
	// nil when none is held.
	release func()
}

// check validates a request's marker before anything of it is applied;
// an error ends the stream.
func (r *resync) check(req *berthv1.SyncRequest) error {
	switch req.GetResync() {
	case berthv1.Resync_RESYNC_UNSPECIFIED, berthv1.Resync_RESYNC_BEGIN:
	case berthv1.Resync_RESYNC_END:
		if !r.open {
			return errmap.Status(errmap.Refuse(errmap.ErrOutOfOrder, "batch %d: RESYNC_END without an open resync (send RESYNC_BEGIN first)", req.GetBatchId()))
		}
	default:
		return errmap.Status(errmap.Refuse(errmap.ErrMalformed, "batch %d: resync: unknown value %d", req.GetBatchId(), req.GetResync()))
	}
	if len(req.GetResyncKinds()) > 0 && req.GetResync() != berthv1.Resync_RESYNC_BEGIN {
		return errmap.Status(errmap.Refuse(errmap.ErrOutOfOrder, "batch %d: resync_kinds is only allowed with RESYNC_BEGIN", req.GetBatchId()))
	}
	for i, k := range req.GetResyncKinds() {
		if !convert.KnownKind(k) {
			return errmap.Status(errmap.Refuse(errmap.ErrMalformed, "batch %d: resync_kinds[%d]: %s is not an object kind", req.GetBatchId(), i, k))
		}
	}
	return nil
}

// begin opens (or restarts) a resync of kinds, every kind when empty;
// seq is the service's upsert count now.
func (r *resync) begin(kinds []berthv1.ObjectKind, seq uint64) {
	if len(kinds) == 0 {
		kinds = allKinds()
	}
	r.open, r.kinds, r.since = true, slices.Clone(kinds), seq
}

// close ends the resync, if open, and its hold on scheduling.
func (r *resync) close() {
	if r.release != nil {
		r.release()
		r.release = nil
	}
	r.open, r.kinds = false, nil
}

// endResyncLocked ends the stream's resync: the objects of the re-listed
// kinds that nobody upserted since RESYNC_BEGIN are deleted (an object
// another stream or Apply upserted meanwhile is kept). It returns how many
// were, and finish, which the caller runs once the request's batch has
// ended: it releases the resync's hold on scheduling and reports a re-list
// of pods (Options.PodsResynced, which may start scheduling after a
// restart). Run earlier, a cycle could start before the request's pending
// pods are queued and their restored nominations claimed, and give their
// room to others.
func (s *Service) endResyncLocked(ctx context.Context, r *resync) (deleted int, finish func()) {
	for _, kind := range allKinds() {
		if !slices.Contains(r.kinds, kind) {
			continue
		}
		held, err := s.heldLocked(kind)
		if err != nil {
			s.logger.Error("resync: listing what is held failed; nothing of this kind deleted", "kind", kind, "err", err)
			continue
		}
		slices.SortFunc(held, func(a, b convert.Ref) int { return strings.Compare(a.Key(), b.Key()) })
		for _, ref := range held {
			if s.upserted[refKey(ref)] > r.since {
				continue
			}
			if ref.Kind == berthv1.ObjectKind_OBJECT_KIND_POD {
				ref.UID = "" // the pod held now, whatever its uid
			}
			err := s.deleteRefLocked(ctx, ref)
			switch {
			case err == nil:
				deleted++
			case !notFound(err):
				s.logger.Error("resync: deleting an object that was not re-sent failed", "kind", kind, "object", ref.Key(), "err", err)
			}
		}
	}
	podsListed := slices.Contains(r.kinds, berthv1.ObjectKind_OBJECT_KIND_POD)
	return deleted, func() {
		r.close()
		if podsListed && s.opts.PodsResynced != nil {
			s.opts.PodsResynced(ctx)
		}
	}
}
