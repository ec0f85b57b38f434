package volumebinding

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/volume"
)

// Name is the plugin's name in configurations.
const Name = names.VolumeBinding

const stateKey framework.StateKey = Name

// VolumeBinding checks that the pod's persistent volume claims can be
// used on a node and scores nodes by the storage the claims would use.
type VolumeBinding struct {
	t *volume.Tracker
	// attempts numbers the signatures of pods with claims (SignPod).
	attempts atomic.Uint64
	skip     *framework.Status
	// shape is the capacity score's shape (args), scores scaled to 0..100.
	shape []shapePoint
}

var (
	_ framework.PreFilterPlugin   = (*VolumeBinding)(nil)
	_ framework.FilterPlugin      = (*VolumeBinding)(nil)
	_ framework.ScorePlugin       = (*VolumeBinding)(nil)
	_ framework.ReservePlugin     = (*VolumeBinding)(nil)
	_ framework.EnqueueExtensions = (*VolumeBinding)(nil)
	_ framework.SignPlugin        = (*VolumeBinding)(nil)
)

// New checks the args (VolumeBindingArgs, as kube validates them) and
// returns the plugin. A framework without storage state (Handle.Volumes
// nil) gets an empty one: pods with claims wait for claims that never
// come.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := checkArgs(raw)
	if err != nil {
		return nil, err
	}
	var t *volume.Tracker
	if h != nil {
		t = h.Volumes()
	}
	if t == nil {
		t = volume.NewTracker()
	}
	shape := args.Shape
	if len(shape) == 0 { // kube 1.37's default, StorageCapacityScoring on
		shape = []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}
	}
	pl := &VolumeBinding{t: t, skip: framework.NewStatus(framework.Skip)}
	for _, p := range shape {
		pl.shape = append(pl.shape, shapePoint{utilization: int64(p.Utilization), score: int64(p.Score) * 10})
	}
	return pl, nil
}

// checkArgs applies kube's validation of VolumeBindingArgs: a
// non-negative bind timeout and a shape of increasing utilizations within
// 0..100 with scores within 0..10.
func checkArgs(raw json.RawMessage) (configv1.VolumeBindingArgs, error) {
	var a configv1.VolumeBindingArgs
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%s args: %w", Name, err)
	}
	if a.BindTimeoutSeconds != nil && *a.BindTimeoutSeconds < 0 {
		return a, fmt.Errorf("%s args: bindTimeoutSeconds: %d: invalid value, must not be negative", Name, *a.BindTimeoutSeconds)
	}
	for i, p := range a.Shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			return a, fmt.Errorf("%s args: shape[%d].utilization: %d: not in valid range [0-100]", Name, i, p.Utilization)
		}
		if p.Score < 0 || p.Score > 10 {
			return a, fmt.Errorf("%s args: shape[%d].score: %d: not in valid range [0-10]", Name, i, p.Score)
		}
		if i > 0 && p.Utilization <= a.Shape[i-1].Utilization {
			return a, fmt.Errorf("%s args: shape[%d].utilization: %d: utilization values must be sorted in increasing order", Name, i, p.Utilization)
		}
	}
	return a, nil
}

// Name returns Name.
func (*VolumeBinding) Name() string { return Name }

// SignPod makes the plugin node-local for pods without claims (it skips
// their Filter and scores them 0 everywhere). A pod with claims depends
// on the cluster's volumes, not only on the node: each of its attempts
// signs uniquely, so nothing is reused for it.
func (pl *VolumeBinding) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tag(Name)
	if !hasClaims(pod) {
		sig.Int(0)
		return
	}
	sig.Int(int64(pl.attempts.Add(1)))
}

// PreFilter gathers the pod's claims (kube's reasons for a claim missing,
// lost, being deleted or not the pod's) and sorts them into bound ones and
// unbound ones; a pod with an unbound claim of an Immediate class waits
// for the volume controller to bind it. Pods without claims Skip.
func (pl *VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !hasClaims(pod) {
		return nil, pl.skip
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if len(claims.unboundImmediate) > 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnboundImmediate)
	}
	s := &stateData{bound: claims.bound, unboundDelayed: claims.unboundDelayed, byNode: map[string]*podVolumes{}}
	if len(claims.unboundDelayed) > 0 {
		s.classVolumes = map[string][]*corev1.PersistentVolume{}
		s.provisioning = map[string]*classProvisioning{}
		for _, c := range claims.unboundDelayed {
			class := volume.ClaimClass(c)
			if _, ok := s.classVolumes[class]; !ok {
				s.classVolumes[class] = pl.t.VolumesOfClass(class)
				s.provisioning[class] = pl.provisioningOf(class)
			}
		}
	}
	state.Write(stateKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil: the claims' fit does not change with
// the pods added or removed on a node.
func (*VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks that the volumes of the pod's bound claims exist and
// admit the node, and that its unbound claims of delayed binding find
// volumes on the node or can be provisioned for it; the bindings found
// are kept for Score and Reserve.
func (pl *VolumeBinding) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return nil
	}
	node := nodeInfo.Node()
	var reasons []string
	affinityOK, volumesFound := pl.checkBound(s.bound, node)
	if !affinityOK {
		reasons = append(reasons, ErrReasonNodeConflict)
	}
	var pv *podVolumes
	if len(s.unboundDelayed) > 0 {
		found, more, err := pl.findPodVolumes(s, node)
		if err != nil {
			return framework.AsStatus(err)
		}
		reasons = append(reasons, more...)
		pv = found
	}
	if !volumesFound {
		reasons = append(reasons, ErrReasonPVNotExist)
	}
	if len(reasons) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	if pv != nil {
		s.mu.Lock()
		s.byNode[node.Name] = pv
		s.mu.Unlock()
	}
	return nil
}

// Score is kube's StorageCapacityScoring of the volumes the pod's unbound
// claims would take on the node; 0 when all its claims are bound.
func (pl *VolumeBinding) Score(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return 0, nil
	}
	s.mu.Lock()
	pv := s.byNode[nodeInfo.Name()]
	s.mu.Unlock()
	if pv == nil {
		return 0, nil
	}
	return pl.score(pv), nil
}

// Reserve assumes the bindings Filter found on the node: the volumes are
// reserved for their claims and the claims to provision get the node, so
// that the next pods see them (kube's AssumePodVolumes); the pod's Bind
// carries them (Tracker.PodBindings).
func (pl *VolumeBinding) Reserve(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) *framework.Status {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return nil
	}
	s.mu.Lock()
	pv := s.byNode[nodeName]
	s.mu.Unlock()
	if pv == nil || len(pv.static)+len(pv.provisions) == 0 {
		return nil
	}
	var bindings []volume.Binding
	for _, b := range pv.static {
		bindings = append(bindings, volume.Binding{Claim: b.pvc, Volume: b.pv.Name})
	}
	for _, p := range pv.provisions {
		bindings = append(bindings, volume.Binding{Claim: p.pvc})
	}
	if err := pl.t.AssumePod(pod.UID, nodeName, bindings); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// Unreserve reverts what Reserve assumed.
func (pl *VolumeBinding) Unreserve(_ context.Context, state *framework.CycleState, pod *model.Pod, _ string) {
	if _, ok := framework.ReadAs[*stateData](state, stateKey); ok {
		pl.t.ForgetPod(pod.UID)
	}
}

// ScoreExtensions returns nil: the scores need no normalizing.
func (*VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }
