package decisionlog

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/workloadpods"
	"github.com/berthsched/berth/store"
)

// Type names, as the berth_decisions_total{type} label.
const (
	TypeBind            = "bind"
	TypeEvict           = "evict"
	TypeNominate        = "nominate"
	TypeClearNomination = "clear_nomination"
	TypeUnschedulable   = "unschedulable"
	TypeDeallocateClaim = "deallocate_claim"
	TypeAdmit           = "admit"
	TypeEvictWorkload   = "evict_workload"
)

// profileOf is the scheduling profile of a pod.
func profileOf(pod *model.Pod) string {
	if pod.SchedulerName == "" {
		return model.DefaultSchedulerName
	}
	return pod.SchedulerName
}

func podRef(p *model.Pod) *berthv1.PodRef {
	return &berthv1.PodRef{Namespace: p.Namespace, Name: p.Name, Uid: p.UID}
}

// newDecision is a decision about pod by pod's profile, without revision
// and time (the store gives them).
func newDecision(pod *model.Pod) *berthv1.Decision {
	return &berthv1.Decision{SchedulerName: profileOf(pod), Pod: podRef(pod)}
}

func bindDecision(pod *model.Pod, node string) *berthv1.Decision {
	d := newDecision(pod)
	b := &berthv1.Bind{Node: node, Group: pod.SchedulingGroup}
	if r, ok := workloadpods.Of(pod); ok {
		// A pod Berth holds: the orchestrator makes it from the template.
		b.HeldPod = &berthv1.HeldPod{WorkloadName: r.Workload, WorkloadUid: r.WorkloadUID, PodSet: r.PodSet, Index: r.Index}
	}
	d.Action = &berthv1.Decision_Bind{Bind: b}
	return d
}

// evictDecision is made by the preemptor's profile about the victim, or by
// the victim's own profile when no pod needs the room.
func evictDecision(e *framework.Eviction) *berthv1.Decision {
	d := newDecision(e.Victim)
	evict := &berthv1.Evict{
		Victim: podRef(e.Victim), Node: e.Node, Reason: e.Message,
		Cause: CauseOf(e.Cause), GracePeriodSeconds: e.GracePeriodSeconds,
	}
	if e.Preemptor != nil {
		d.SchedulerName = profileOf(e.Preemptor)
		evict.Preemptor = podRef(e.Preemptor)
	}
	d.Action = &berthv1.Decision_Evict{Evict: evict}
	return d
}

func nominateDecision(pod *model.Pod, node string) *berthv1.Decision {
	d := newDecision(pod)
	d.Action = &berthv1.Decision_Nominate{Nominate: &berthv1.Nominate{Node: node}}
	return d
}

func clearNominationDecision(pod *model.Pod, reason string) *berthv1.Decision {
	d := newDecision(pod)
	d.Action = &berthv1.Decision_ClearNomination{ClearNomination: &berthv1.ClearNomination{
		PreviousNode: pod.NominatedNodeName, Reason: reason,
	}}
	return d
}

func unschedulableDecision(pod *model.Pod, message string, fitErr *framework.FitError, maxNodes int) *berthv1.Decision {
	d := newDecision(pod)
	reasons, omitted := nodeReasons(fitErr, maxNodes)
	d.Action = &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{
		Message: message, NodeReasons: reasons, OmittedNodes: uint32(omitted),
	}}
	return d
}

// workloadProfile is the profile a workload's decision is filed under.
func workloadProfile(name string) string {
	if name == "" {
		return model.DefaultSchedulerName
	}
	return name
}

func admitDecision(a *framework.Admission) *berthv1.Decision {
	admit := &berthv1.Admit{
		WorkloadNamespace: a.Workload.Namespace, WorkloadName: a.Workload.Name, WorkloadUid: a.Workload.UID,
		ClusterQueue: a.ClusterQueue,
	}
	for _, ps := range a.PodSets {
		admit.PodSets = append(admit.PodSets, &berthv1.PodSetAdmission{Name: ps.Name, Count: ps.Count, Flavors: ps.Flavors})
	}
	return &berthv1.Decision{SchedulerName: workloadProfile(a.SchedulerName), Action: &berthv1.Decision_Admit{Admit: admit}}
}

func workloadEvictionDecision(e *framework.WorkloadEviction) *berthv1.Decision {
	return &berthv1.Decision{SchedulerName: workloadProfile(e.SchedulerName), Action: &berthv1.Decision_EvictWorkload{EvictWorkload: &berthv1.WorkloadEviction{
		WorkloadNamespace: e.Workload.Namespace, WorkloadName: e.Workload.Name, WorkloadUid: e.Workload.UID,
		ClusterQueue: e.ClusterQueue, Reason: e.Reason, PreemptedBy: e.PreemptedBy, Message: e.Message,
	}}}
}

// TypeOf returns the kind of d.
func TypeOf(d *berthv1.Decision) berthv1.DecisionType {
	switch d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		return berthv1.DecisionType_DECISION_TYPE_BIND
	case *berthv1.Decision_Evict:
		return berthv1.DecisionType_DECISION_TYPE_EVICT
	case *berthv1.Decision_Nominate:
		return berthv1.DecisionType_DECISION_TYPE_NOMINATE
	case *berthv1.Decision_ClearNomination:
		return berthv1.DecisionType_DECISION_TYPE_CLEAR_NOMINATION
	case *berthv1.Decision_Unschedulable:
		return berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE
	case *berthv1.Decision_DeallocateClaim:
		return berthv1.DecisionType_DECISION_TYPE_DEALLOCATE_CLAIM
	case *berthv1.Decision_Admit:
		return berthv1.DecisionType_DECISION_TYPE_ADMIT
	case *berthv1.Decision_EvictWorkload:
		return berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD
	}
	return berthv1.DecisionType_DECISION_TYPE_UNSPECIFIED
}

var marshal = proto.MarshalOptions{Deterministic: true}

// encode is a record's payload: d without revision and time.
func encode(d *berthv1.Decision) ([]byte, error) {
	b, err := marshal.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("decisionlog: encode decision: %w", err)
	}
	return b, nil
}

// decodePayload parses a payload written by encode.
func decodePayload(payload []byte) (*berthv1.Decision, error) {
	d := new(berthv1.Decision)
	if err := proto.Unmarshal(payload, d); err != nil {
		return nil, fmt.Errorf("decisionlog: decode decision: %w: %w", store.ErrCorrupt, err)
	}
	return d, nil
}

// Decode is the decision of a record, with the record's revision and
// time: the one decoder of the log's records, for Watch (server/watch) and
// the tests.
func Decode(r store.Record) (*berthv1.Decision, error) {
	d, err := decodePayload(r.Payload)
	if err != nil {
		return nil, fmt.Errorf("revision %d: %w", r.Revision, err)
	}
	d.Revision = r.Revision
	d.Time = timestamppb.New(r.Time)
	return d, nil
}
