// Package nodevolumelimits is kube-scheduler's NodeVolumeLimits plugin
// (CSILimits): a node takes no more volumes of a CSI driver than its
// CSINode's allocatable count for the driver. A pod's volumes are those of
// its claims: the bound volume's CSI driver and handle, or, for a claim
// not bound yet, its class's provisioner with a handle made up for the
// claim. A volume a pod on the node already uses counts once. With 1.37's
// VolumeLimitScaling, a driver that opts in (CSIDriver
// preventPodSchedulingIfMissing) fits only nodes whose CSINode lists it.
//
// Where Berth differs from kube: VolumeAttachment objects are not
// modelled, so only the volumes of the pods on the node count as attached;
// in-tree volume types migrated to CSI are not counted (Berth's pods carry
// claims, inline CSI volumes and volumes scheduling ignores); and its
// queueing hints also requeue on what VolumeLimitScaling reads and kube's
// hints do not (a CSINode newly listing a driver, a CSIDriver no longer
// requiring to be listed; see EventsToRegister).
package nodevolumelimits

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/volume"
)

// Name is the plugin's name in configurations.
const Name = names.NodeVolumeLimits

// ErrReasonMaxVolumeCountExceeded is kube's reason for a node at its limit.
const ErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

// unboundHandlePrefix stands in for kube's random prefix of the handles of
// volumes not provisioned yet: a claim's made-up handle is never another
// volume's.
const unboundHandlePrefix = "berth-unbound-volume"

// CSILimits checks attach limits.
type CSILimits struct {
	t    *volume.Tracker
	skip *framework.Status
}

var (
	_ framework.PreFilterPlugin   = (*CSILimits)(nil)
	_ framework.FilterPlugin      = (*CSILimits)(nil)
	_ framework.EnqueueExtensions = (*CSILimits)(nil)
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
	return &CSILimits{t: t, skip: framework.NewStatus(framework.Skip)}, nil
}

// Name returns Name.
func (*CSILimits) Name() string { return Name }

const stateKey framework.StateKey = Name

// stateData is the pod's new volumes (unique name to driver), or kube's
// error finding them, and whether each of their drivers must be on the
// node's CSINode; read the same on every node, so found once.
type stateData struct {
	volumes      map[string]string
	err          error
	mustBeOnNode map[string]bool
}

func (d *stateData) Clone() framework.StateData { return d }

// PreFilter skips pods without claims and finds the others' volumes.
func (pl *CSILimits) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	has := false
	for _, v := range pod.Volumes {
		has = has || v.ClaimName != ""
	}
	if !has {
		return nil, pl.skip
	}
	s := &stateData{volumes: map[string]string{}, mustBeOnNode: map[string]bool{}}
	s.err = pl.attachable(pod, true, s.volumes)
	for _, driver := range s.volumes {
		d, ok := pl.t.Driver(driver)
		s.mustBeOnNode[driver] = ok && mustBeListed(d)
	}
	state.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil: Filter reads the node's pods itself.
func (*CSILimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts, per driver, the volumes the node's pods use and the new
// ones the pod would add, against the CSINode's limits.
func (pl *CSILimits) Filter(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return nil
	}
	if s.err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, s.err.Error())
	}
	if len(s.volumes) == 0 {
		return nil
	}
	csiNode, _ := pl.t.CSINode(nodeInfo.Name())
	for _, driver := range s.volumes {
		if s.mustBeOnNode[driver] && !driverListed(driver, csiNode) {
			return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s CSI driver is not installed on the node", driver))
		}
	}
	limits := volumeLimits(csiNode)
	if len(limits) == 0 {
		return nil
	}
	newVolumes := make(map[string]string, len(s.volumes))
	for k, v := range s.volumes {
		newVolumes[k] = v
	}
	attached := map[string]string{}
	for _, pi := range nodeInfo.Pods {
		_ = pl.attachable(pi.Pod, false, attached)
	}
	attachedCount := map[string]int{}
	for handle, driver := range attached {
		delete(newVolumes, handle)
		attachedCount[driver]++
	}
	newCount := map[string]int{}
	for _, driver := range newVolumes {
		newCount[driver]++
	}
	for driver, n := range newCount {
		if limit, ok := limits[driver]; ok && attachedCount[driver]+n > int(limit) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonMaxVolumeCountExceeded)
		}
	}
	return nil
}

// driverListed is kube's VolumeLimitScaling check for a driver that asks
// for it (preventPodSchedulingIfMissing; PreFilter reads which do, an
// unknown driver does not): it must be on the node's CSINode.
func driverListed(driver string, csiNode *storagev1.CSINode) bool {
	if csiNode == nil {
		return false
	}
	for _, nd := range csiNode.Spec.Drivers {
		if nd.Name == driver {
			return true
		}
	}
	return false
}

// attachable adds the CSI volumes of the pod's claims to result, by
// unique name (driver^handle) to driver. For the pod being scheduled a
// missing claim is an error (kube's words); for pods on the node it is
// skipped.
func (pl *CSILimits) attachable(pod *model.Pod, newPod bool, result map[string]string) error {
	for _, v := range pod.Volumes {
		if v.ClaimName == "" {
			continue
		}
		c, ok := pl.t.Claim(pod.Namespace, v.ClaimName)
		if !ok {
			if newPod {
				return fmt.Errorf("looking up PVC %s/%s: persistentvolumeclaim %q not found", pod.Namespace, v.ClaimName, v.ClaimName)
			}
			continue
		}
		if v.Ephemeral != nil && !volume.OwnedBy(c, pod.UID) {
			return fmt.Errorf("PVC %s/%s was not created for pod %s/%s (pod is not owner)", c.Namespace, c.Name, pod.Namespace, pod.Name)
		}
		driver, handle := pl.driverInfo(c)
		if driver == "" || handle == "" {
			continue
		}
		result[driver+"^"+handle] = driver
	}
	return nil
}

// driverInfo is the CSI driver and volume handle of a claim: its bound
// volume's, or, unbound (or bound to a volume not known), its class's
// provisioner and a handle of the claim's own.
func (pl *CSILimits) driverInfo(c *corev1.PersistentVolumeClaim) (driver, handle string) {
	if c.Spec.VolumeName != "" {
		if pv, ok := pl.t.Volume(c.Spec.VolumeName); ok {
			if pv.Spec.CSI == nil {
				return "", ""
			}
			return pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle
		}
	}
	class := volume.ClaimClass(c)
	if class == "" {
		return "", ""
	}
	sc, ok := pl.t.Class(class)
	if !ok {
		return "", ""
	}
	return sc.Provisioner, fmt.Sprintf("%s-%s/%s", unboundHandlePrefix, c.Namespace, c.Name)
}

func volumeLimits(csiNode *storagev1.CSINode) map[string]int64 {
	out := map[string]int64{}
	if csiNode == nil {
		return out
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			out[d.Name] = int64(*d.Allocatable.Count)
		}
	}
	return out
}

// EventsToRegister: kube 1.37's, without VolumeAttachments (not
// modelled), with its hints: a CSINode added, or updated to a larger limit
// for a driver; a pod with claims deleted from a node (or nominated on
// one); a claim the pod uses added.
//
// Where Berth queues more than kube: with VolumeLimitScaling a node whose
// CSINode does not list an opted-in driver is rejected, so a CSINode that
// newly lists a driver queues too (kube's hint compares only limits), and
// so does a CSIDriver that stops requiring to be listed (updated, or
// deleted; kube registers no CSIDriver event and leaves such pods to the
// periodic flush).
func (pl *CSILimits) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventCSINode, ActionType: framework.ActionAdd}},
		{Event: framework.ClusterEvent{Resource: framework.EventCSINode, ActionType: framework.ActionUpdate}, QueueingHintFn: afterCSINodeUpdated},
		{Event: framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionDelete}, QueueingHintFn: afterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolumeClaim, ActionType: framework.ActionAdd}, QueueingHintFn: afterClaimAdded},
		{Event: framework.ClusterEvent{Resource: framework.EventCSIDriver, ActionType: framework.ActionUpdate | framework.ActionDelete}, QueueingHintFn: afterDriverChange},
	}, nil
}

// afterCSINodeUpdated is kube's hint: a driver's limit raised (a missing
// count is 0) may make room; so may a driver newly listed (Berth's, see
// EventsToRegister).
func afterCSINodeUpdated(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || cur == nil {
		return framework.Queue, nil
	}
	was := volumeLimits(old)
	listed := map[string]bool{}
	for _, d := range old.Spec.Drivers {
		listed[d.Name] = true
	}
	now := volumeLimits(cur)
	for _, d := range cur.Spec.Drivers {
		if !listed[d.Name] || now[d.Name] > was[d.Name] {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// afterAssignedPodDeleted is kube's hint: only a pod that had claims and a
// node (bound, or nominated) may free an attachment.
func afterAssignedPodDeleted(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || (deleted.NodeName == "" && deleted.NominatedNodeName == "") {
		return framework.QueueSkip, nil
	}
	for _, v := range deleted.Volumes {
		if v.ClaimName != "" {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// afterDriverChange: a driver that required to be listed on the node's
// CSINode (preventPodSchedulingIfMissing) and no longer does, or is
// deleted, may admit nodes that do not list it.
func afterDriverChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.CSIDriver](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || !mustBeListed(old) || (cur != nil && mustBeListed(cur)) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

func mustBeListed(d *storagev1.CSIDriver) bool {
	return d.Spec.PreventPodSchedulingIfMissing != nil && *d.Spec.PreventPodSchedulingIfMissing
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
		if v.ClaimName == c.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
