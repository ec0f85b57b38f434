// Package volumezone is kube-scheduler's VolumeZone plugin: a pod whose
// bound PersistentVolumes carry zone or region labels fits only nodes in
// those zones and regions. PreFilter gathers the volumes' topology labels
// (kube's reasons for a missing claim, volume or class); Filter compares
// them with the node's labels, the beta failure-domain labels standing in
// for the GA ones. Claims of WaitForFirstConsumer classes not bound yet
// are left to VolumeBinding.
package volumezone

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/volume"
)

// Name is the plugin's name in configurations.
const Name = names.VolumeZone

// ErrReasonConflict is kube's reason for a node outside the volumes' zones.
const ErrReasonConflict = "node(s) had no available volume zone"

const stateKey framework.StateKey = Name

// topologyLabels are the labels kube reads, in kube's order.
var topologyLabels = [...]string{
	corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
	corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
}

// VolumeZone filters nodes by the zones of the pod's volumes.
type VolumeZone struct {
	t    *volume.Tracker
	skip *framework.Status
}

var (
	_ framework.PreFilterPlugin   = (*VolumeZone)(nil)
	_ framework.FilterPlugin      = (*VolumeZone)(nil)
	_ framework.EnqueueExtensions = (*VolumeZone)(nil)
	_ framework.SignPlugin        = (*VolumeZone)(nil)
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
	return &VolumeZone{t: t, skip: framework.NewStatus(framework.Skip)}, nil
}

// Name returns Name.
func (*VolumeZone) Name() string { return Name }

// pvTopology is one topology label of a volume: its key and the zones
// (or regions) it allows.
type pvTopology struct {
	key    string
	values []string
}

type stateData struct{ topologies []pvTopology }

func (d *stateData) Clone() framework.StateData { return d }

// SignPod: the verdict on a node depends on the node's labels and on the
// pod's volumes, which live outside the node; pods with claims sign
// uniquely (by the claims' volumes' topologies, read now).
func (pl *VolumeZone) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tag(Name)
	tops, st := pl.topologies(pod)
	if !st.IsSuccess() {
		sig.String("error")
		sig.String(st.Message())
		return
	}
	sig.Int(int64(len(tops)))
	for _, t := range tops {
		sig.String(t.key)
		sig.Strings(t.values)
	}
}

// PreFilter gathers the topology labels of the pod's bound volumes; a pod
// without any Skips.
func (pl *VolumeZone) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	tops, st := pl.topologies(pod)
	if !st.IsSuccess() {
		return nil, st
	}
	if len(tops) == 0 {
		return nil, pl.skip
	}
	state.Write(stateKey, &stateData{topologies: tops})
	return nil, nil
}

// PreFilterExtensions returns nil: other pods do not matter.
func (*VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// topologies are the topology labels of the volumes of the pod's claims
// (persistentVolumeClaim volumes only, as kube), with kube's reasons.
func (pl *VolumeZone) topologies(pod *model.Pod) ([]pvTopology, *framework.Status) {
	var out []pvTopology
	for _, v := range pod.Volumes {
		if v.ClaimName == "" || v.Ephemeral != nil {
			continue
		}
		c, ok := pl.t.Claim(pod.Namespace, v.ClaimName)
		if !ok {
			return nil, unresolvable(fmt.Sprintf("persistentvolumeclaim %q not found", v.ClaimName))
		}
		pvName := c.Spec.VolumeName
		if pvName == "" {
			class := volume.ClaimClass(c)
			if class == "" {
				return nil, unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
			}
			sc, ok := pl.t.Class(class)
			if !ok {
				return nil, unresolvable(fmt.Sprintf("storageclass.storage.k8s.io %q not found", class))
			}
			if sc.VolumeBindingMode == nil {
				return nil, unresolvable(fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", class))
			}
			if *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return nil, unresolvable("PersistentVolume had no name")
		}
		pv, ok := pl.t.Volume(pvName)
		if !ok {
			return nil, unresolvable(fmt.Sprintf("persistentvolume %q not found", pvName))
		}
		out = append(out, volumeTopologies(pv)...)
	}
	return out, nil
}

// volumeTopologies reads a volume's topology labels; a label whose value
// is not a list of zones ("a__b") is ignored, as kube ignores it.
func volumeTopologies(pv *corev1.PersistentVolume) []pvTopology {
	var out []pvTopology
	for _, key := range topologyLabels {
		value, ok := pv.Labels[key]
		if !ok {
			continue
		}
		zones, ok := zoneSet(value)
		if !ok {
			continue
		}
		out = append(out, pvTopology{key: key, values: zones})
	}
	return out
}

// zoneSet splits a multi-zone label value ("zone-a__zone-b") as kube's
// LabelZonesToSet does; false when an element is empty.
func zoneSet(value string) ([]string, bool) {
	if value == "" {
		return nil, true
	}
	var out []string
	for _, z := range strings.Split(value, "__") {
		z = strings.TrimSpace(z)
		if z == "" {
			return nil, false
		}
		out = append(out, z)
	}
	return out, true
}

// Filter admits a node without any topology label, or whose labels are
// among each volume label's values.
func (pl *VolumeZone) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return nil
	}
	labels := nodeInfo.Node().Labels
	constrained := false
	for _, key := range topologyLabels {
		if _, ok := labels[key]; ok {
			constrained = true
			break
		}
	}
	if !constrained {
		return nil
	}
	for _, t := range s.topologies {
		v, ok := labels[t.key]
		if !ok {
			v, ok = labels[gaLabel(t.key)]
		}
		if !ok || !contains(t.values, v) {
			return unresolvable(ErrReasonConflict)
		}
	}
	return nil
}

func contains(values []string, v string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}

// gaLabel is the GA label of a beta failure-domain label.
func gaLabel(key string) string {
	switch key {
	case corev1.LabelFailureDomainBetaRegion:
		return corev1.LabelTopologyRegion
	case corev1.LabelFailureDomainBetaZone:
		return corev1.LabelTopologyZone
	}
	return key
}

func unresolvable(reason string) *framework.Status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
}

// EventsToRegister: kube 1.37's. A StorageClass added (hinted: only a
// WaitForFirstConsumer one helps), a node added or relabelled, a claim the
// pod uses added or changed, a volume added or its topology changed.
func (pl *VolumeZone) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventStorageClass, ActionType: framework.ActionAdd}, QueueingHintFn: afterClassAdded},
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolumeClaim, ActionType: framework.ActionAdd | framework.ActionUpdate}, QueueingHintFn: afterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolume, ActionType: framework.ActionAdd | framework.ActionUpdate}, QueueingHintFn: afterVolumeChange},
	}, nil
}

func afterClassAdded(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, sc, err := helper.As[*storagev1.StorageClass](oldObj, newObj)
	if err != nil || sc == nil {
		return framework.Queue, err
	}
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

func afterClaimChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
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

func afterVolumeChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*corev1.PersistentVolume](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || cur == nil {
		return framework.Queue, nil
	}
	a, b := volumeTopologies(old), volumeTopologies(cur)
	if len(a) != len(b) {
		return framework.Queue, nil
	}
	for i := range a {
		if a[i].key != b[i].key || strings.Join(a[i].values, "__") != strings.Join(b[i].values, "__") {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
