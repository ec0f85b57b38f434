package daemon

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/queuesvc"
)

// queueStatus serves the admission controller's status on the admin API
// (adminsvc.QueueStatus) and the dashboard's queues page, as berth.v1
// messages.
type queueStatus struct{ c *queuesvc.Controller }

func (q queueStatus) ClusterQueues() []*berthv1.ClusterQueueStatus {
	st := q.c.Status()
	out := make([]*berthv1.ClusterQueueStatus, 0, len(st.ClusterQueues))
	for _, cq := range st.ClusterQueues {
		m := &berthv1.ClusterQueueStatus{
			Name: cq.Name, Cohort: cq.Cohort,
			AdmittedWorkloads:     int32(cq.Admitted),
			PendingWorkloads:      int32(cq.Pending + cq.Inadmissible),
			InadmissibleWorkloads: int32(cq.Inadmissible),
		}
		for _, r := range cq.Resources {
			m.Resources = append(m.Resources, &berthv1.FlavorResourceUsage{
				Flavor: r.Flavor, Resource: r.Resource, Nominal: r.Nominal, BorrowingLimit: r.BorrowingLimit,
				Usage: r.Usage, Borrowed: max(0, r.Usage-r.Nominal),
			})
		}
		out = append(out, m)
	}
	return out
}

func workloadState(s queuesvc.WorkloadState) berthv1.WorkloadState {
	switch s {
	case queuesvc.StatePending:
		return berthv1.WorkloadState_WORKLOAD_STATE_PENDING
	case queuesvc.StateInadmissible:
		return berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE
	case queuesvc.StateAdmitted:
		return berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED
	case queuesvc.StateEvicting:
		return berthv1.WorkloadState_WORKLOAD_STATE_EVICTING
	}
	return berthv1.WorkloadState_WORKLOAD_STATE_UNSPECIFIED
}

func workloadOrigin(o queuesvc.Origin) berthv1.WorkloadOrigin {
	switch o {
	case queuesvc.OriginPod:
		return berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD
	case queuesvc.OriginPodGroup:
		return berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD_GROUP
	case queuesvc.OriginOwner:
		return berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_OWNER
	case queuesvc.OriginExplicit:
		return berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_EXPLICIT
	}
	return berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_UNSPECIFIED
}

func (q queueStatus) Workloads() []*berthv1.WorkloadStatus {
	st := q.c.Status()
	out := make([]*berthv1.WorkloadStatus, 0, len(st.Workloads))
	for _, w := range st.Workloads {
		out = append(out, workloadProto(w))
	}
	return out
}

// PodWorkload is the status of the workload whose pods include
// namespace/name, from the controller's last round.
func (q queueStatus) PodWorkload(namespace, name string) *berthv1.WorkloadStatus {
	key := namespace + "/" + name
	for _, w := range q.c.Status().Workloads {
		if slices.Contains(w.PodKeys, key) {
			return workloadProto(w)
		}
	}
	return nil
}

func workloadProto(w queuesvc.WorkloadStatus) *berthv1.WorkloadStatus {
	ns, name, _ := strings.Cut(w.Key, "/")
	m := &berthv1.WorkloadStatus{
		Namespace: ns, Name: name, QueueName: w.QueueName, ClusterQueue: w.ClusterQueue,
		State: workloadState(w.State), Origin: workloadOrigin(w.Origin), Priority: w.Priority,
		Message: w.Message, Victims: w.Victims, Pods: int32(w.Pods),
	}
	if !w.Created.IsZero() {
		m.CreationTime = timestamppb.New(w.Created)
	}
	for _, ps := range w.PodSets {
		m.PodSets = append(m.PodSets, &berthv1.PodSetAdmission{Name: ps.Name, Count: ps.Count, Flavors: ps.Flavors})
	}
	return m
}

// admissionProgress tells QueueStats whether an admission round is pending
// (adminsvc.AdmissionProgress): once the object store's subscribers (the
// controller's Handle among them) took every change applied before.
type admissionProgress struct {
	objects interface{ Wait(context.Context) error }
	c       *queuesvc.Controller
}

func (a admissionProgress) RoundPending(ctx context.Context) (bool, error) {
	if err := a.objects.Wait(ctx); err != nil {
		return false, err
	}
	return a.c.RoundPending(), nil
}
