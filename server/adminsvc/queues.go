package adminsvc

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// ObjectLister lists the objects of a kind held; berthd's object store
// (*objstore.Store) satisfies it, holding the queueing kinds
// (core/quota/holder) beside the scheduler's.
type ObjectLister interface {
	List(kind objstore.Kind) ([]any, error)
}

// QueueStatus is what the admission controller knows of quota and
// workloads now; berthd adapts its controller to it. Workloads include
// those derived from pods and pod groups, which only the controller has.
type QueueStatus interface {
	ClusterQueues() []*berthv1.ClusterQueueStatus
	Workloads() []*berthv1.WorkloadStatus
	// PodWorkload is the workload the pod namespace/name belongs to; nil
	// for a pod of no workload.
	PodWorkload(namespace, name string) *berthv1.WorkloadStatus
}

// ListQueueObjects lists the queueing objects of one kind as held, by
// namespace and name, with the controller's status of ClusterQueues and
// workloads when there is one.
func (s *Service) ListQueueObjects(_ context.Context, req *berthv1.ListQueueObjectsRequest) (*berthv1.ListQueueObjectsResponse, error) {
	ns := req.GetNamespace()
	kind := req.GetKind()
	if !convert.QueueKind(kind) {
		return nil, errmap.Status(errmap.Field("kind", &convert.FieldError{Reason: fmt.Sprintf("%s is not a queueing kind", kind)}))
	}
	if ns != "" && !convert.Namespaced(kind) {
		return nil, errmap.Status(errmap.Field("namespace", &convert.FieldError{Reason: "must be empty for a " + kind.String()}))
	}
	if s.opts.QueueObjects == nil {
		return nil, errmap.Status(fmt.Errorf("ListQueueObjects: this server holds no queueing objects: %w", errmap.ErrNotConfigured))
	}
	objs, err := s.opts.QueueObjects.List(convert.StoreKind(kind))
	if err != nil {
		return nil, errmap.Status(fmt.Errorf("listing %s: %w", kind, err))
	}
	resp := &berthv1.ListQueueObjectsResponse{}
	for _, o := range objs {
		if ns != "" && convert.QueueRef(o).Namespace != ns {
			continue
		}
		if w := convert.QueueObjectToProto(o); w != nil {
			resp.Objects = append(resp.Objects, w)
		}
	}
	slices.SortStableFunc(resp.Objects, func(a, b *berthv1.Object) int {
		ra, rb := convert.ObjectRefOf(a), convert.ObjectRefOf(b)
		return cmp.Or(cmp.Compare(ra.GetNamespace(), rb.GetNamespace()), cmp.Compare(ra.GetName(), rb.GetName()))
	})
	if s.opts.QueueStatus == nil {
		return resp, nil
	}
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:
		resp.ClusterQueueStatuses = slices.Clone(s.opts.QueueStatus.ClusterQueues())
		slices.SortStableFunc(resp.ClusterQueueStatuses, func(a, b *berthv1.ClusterQueueStatus) int {
			return cmp.Compare(a.GetName(), b.GetName())
		})
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		for _, w := range s.opts.QueueStatus.Workloads() {
			if ns == "" || w.GetNamespace() == ns {
				resp.WorkloadStatuses = append(resp.WorkloadStatuses, w)
			}
		}
		slices.SortStableFunc(resp.WorkloadStatuses, func(a, b *berthv1.WorkloadStatus) int {
			return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
		})
	}
	return resp, nil
}
