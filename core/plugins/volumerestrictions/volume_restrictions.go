// Package volumerestrictions is kube-scheduler's VolumeRestrictions
// plugin as far as Berth's volumes go: a claim with the ReadWriteOncePod
// access mode is used by at most one pod in the cluster. PreFilter counts
// the pod's ReadWriteOncePod claims (persistentVolumeClaim volumes, as
// kube) that a pod on some node already uses; any makes every node
// Unschedulable, so preemption may evict the user, which AddPod/RemovePod
// account for in its dry runs, as kube's do.
//
// Where Berth differs from kube: the in-tree disk conflicts (GCE PD, AWS
// EBS, iSCSI, RBD volumes shared by two pods of a node) are not modelled;
// Berth's pods have no such volumes.
package volumerestrictions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/volume"
)

// Name is the plugin's name in configurations.
const Name = names.VolumeRestrictions

// ErrReasonReadWriteOncePodConflict is kube's reason.
const ErrReasonReadWriteOncePodConflict = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"

const stateKey framework.StateKey = Name

// VolumeRestrictions keeps ReadWriteOncePod claims to one pod.
type VolumeRestrictions struct {
	t    *volume.Tracker
	skip *framework.Status
}

var (
	_ framework.PreFilterPlugin     = (*VolumeRestrictions)(nil)
	_ framework.PreFilterExtensions = (*VolumeRestrictions)(nil)
	_ framework.FilterPlugin        = (*VolumeRestrictions)(nil)
	_ framework.EnqueueExtensions   = (*VolumeRestrictions)(nil)
)

// New returns the plugin; it takes no args.
func New(_ context.Context, _ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	var t *volume.Tracker
	if h != nil {
		t = h.Volumes()
	}
	if t == nil {
		t = volume.NewTracker()
	}
	return &VolumeRestrictions{t: t, skip: framework.NewStatus(framework.Skip)}, nil
}

// Name returns Name.
func (*VolumeRestrictions) Name() string { return Name }

// preFilterState is the pod's ReadWriteOncePod claims (names, in its
// namespace) and how many uses of them by scheduled pods there are.
type preFilterState struct {
	namespace string
	rwop      []string
	conflicts int
}

func (s *preFilterState) Clone() framework.StateData {
	c := *s
	return &c
}

// uses counts the pod's persistentVolumeClaim volumes naming one of the
// claims.
func (s *preFilterState) uses(pod *model.Pod) int {
	if pod.Namespace != s.namespace {
		return 0
	}
	n := 0
	for _, v := range pod.Volumes {
		if v.Ephemeral == nil && v.ClaimName != "" && slices.Contains(s.rwop, v.ClaimName) {
			n++
		}
	}
	return n
}

// PreFilter finds the pod's ReadWriteOncePod claims and counts the
// scheduled pods using them; a missing claim is kube's error. Without such
// claims in use the plugin Skips.
func (pl *VolumeRestrictions) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	var rwop []string
	for _, v := range pod.Volumes {
		if v.ClaimName == "" || v.Ephemeral != nil {
			continue
		}
		c, ok := pl.t.Claim(pod.Namespace, v.ClaimName)
		if !ok {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", v.ClaimName))
		}
		if slices.Contains(c.Spec.AccessModes, corev1.ReadWriteOncePod) && !slices.Contains(rwop, c.Name) {
			rwop = append(rwop, c.Name)
		}
	}
	if len(rwop) == 0 {
		return nil, pl.skip
	}
	s := &preFilterState{namespace: pod.Namespace, rwop: rwop}
	// kube counts claims in use (each once), not uses.
	for _, name := range rwop {
		if claimInUse(nodes, pod.Namespace, name) {
			s.conflicts++
		}
	}
	if s.conflicts == 0 {
		return nil, pl.skip
	}
	state.Write(stateKey, s)
	return nil, nil
}

func claimInUse(nodes []*framework.NodeInfo, namespace, name string) bool {
	for _, n := range nodes {
		for _, pi := range n.Pods {
			if pi.Pod.Namespace != namespace {
				continue
			}
			for _, v := range pi.Pod.Volumes {
				if v.Ephemeral == nil && v.ClaimName == name {
					return true
				}
			}
		}
	}
	return false
}

// PreFilterExtensions returns the plugin: a preemption victim using one
// of the claims frees it.
func (pl *VolumeRestrictions) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts the added pod's uses of the claims.
func (pl *VolumeRestrictions) AddPod(_ context.Context, state *framework.CycleState, _ *model.Pod, pi *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	if s, ok := framework.ReadAs[*preFilterState](state, stateKey); ok {
		s.conflicts += s.uses(pi.Pod)
	}
	return nil
}

// RemovePod discounts the removed pod's uses of the claims.
func (pl *VolumeRestrictions) RemovePod(_ context.Context, state *framework.CycleState, _ *model.Pod, pi *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	if s, ok := framework.ReadAs[*preFilterState](state, stateKey); ok {
		s.conflicts -= s.uses(pi.Pod)
	}
	return nil
}

// Filter rejects every node while a claim is in use.
func (pl *VolumeRestrictions) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, _ *framework.NodeInfo) *framework.Status {
	if s, ok := framework.ReadAs[*preFilterState](state, stateKey); ok && s.conflicts > 0 {
		return framework.NewStatus(framework.Unschedulable, ErrReasonReadWriteOncePodConflict)
	}
	return nil
}

// EventsToRegister: kube 1.37's. A pod on a node deleted, a node added, a
// claim the pod uses added.
func (pl *VolumeRestrictions) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionDelete}, QueueingHintFn: afterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolumeClaim, ActionType: framework.ActionAdd}, QueueingHintFn: afterClaimAdded},
	}, nil
}

func afterClaimAdded(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, c, err := helper.As[*corev1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if c == nil || c.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, v := range pod.Volumes {
		if v.Ephemeral == nil && v.ClaimName == c.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// afterAssignedPodDeleted is kube's hint: only a deleted pod of the
// namespace that used one of the pod's claims may free it.
func afterAssignedPodDeleted(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || deleted.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, v := range pod.Volumes {
		if v.ClaimName == "" || v.Ephemeral != nil {
			continue
		}
		for _, dv := range deleted.Volumes {
			if dv.Ephemeral == nil && dv.ClaimName == v.ClaimName {
				return framework.Queue, nil
			}
		}
	}
	return framework.QueueSkip, nil
}
