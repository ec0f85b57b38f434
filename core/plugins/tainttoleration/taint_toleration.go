package tainttoleration

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.TaintToleration

// ErrReasonNotMatch is the filter reason for an untolerated taint.
// kube-scheduler 1.36 does not name the taint in it.
const ErrReasonNotMatch = "node(s) had untolerated taint(s)"

const preScoreStateKey framework.StateKey = "PreScore" + Name

// TaintToleration filters and scores nodes by their taints.
type TaintToleration struct{}

var (
	_ framework.FilterPlugin      = (*TaintToleration)(nil)
	_ framework.SignPlugin        = (*TaintToleration)(nil)
	_ framework.PreScorePlugin    = (*TaintToleration)(nil)
	_ framework.ScorePlugin       = (*TaintToleration)(nil)
	_ framework.ScoreExtensions   = (*TaintToleration)(nil)
	_ framework.EnqueueExtensions = (*TaintToleration)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &TaintToleration{}, nil
}

// Name returns Name.
func (*TaintToleration) Name() string { return Name }

// doNotSchedule selects the taints the filter enforces.
func doNotSchedule(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// Filter rejects a node with a NoSchedule or NoExecute taint the pod does
// not tolerate. Evicting pods removes no taint, so the code is
// UnschedulableAndUnresolvable.
func (*TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if _, untolerated := model.FirstUntolerated(nodeInfo.Node().Taints, pod.Tolerations, doNotSchedule); untolerated {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNotMatch)
	}
	return nil
}

// preferTolerations is the PreScore state: the pod's tolerations that can
// match a PreferNoSchedule taint. It is never changed, so clones share it.
type preferTolerations []model.Toleration

func (p preferTolerations) Clone() framework.StateData { return p }

// PreScore keeps the tolerations with effect PreferNoSchedule or with no
// effect (which matches every effect).
func (*TaintToleration) PreScore(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	var tols preferTolerations
	for _, t := range pod.Tolerations {
		if t.Effect == "" || t.Effect == model.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	state.Write(preScoreStateKey, tols)
	return nil
}

// Score counts the node's PreferNoSchedule taints the pod does not
// tolerate.
func (*TaintToleration) Score(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	tols, ok := framework.ReadAs[preferTolerations](state, preScoreStateKey)
	if !ok {
		tols = pod.Tolerations // PreScore did not run: every toleration is a candidate
	}
	return CountIntolerablePreferNoSchedule(nodeInfo.Node().Taints, tols), nil
}

// CountIntolerablePreferNoSchedule counts the PreferNoSchedule taints that
// no toleration matches.
func CountIntolerablePreferNoSchedule(taints []model.Taint, tolerations []model.Toleration) int64 {
	var n int64
	for i := range taints {
		if taints[i].Effect == model.TaintEffectPreferNoSchedule && !model.TolerationsTolerate(tolerations, &taints[i]) {
			n++
		}
	}
	return n
}

// ScoreExtensions returns the plugin: it normalizes its scores.
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps counts to 0..100, fewest untolerated taints highest.
func (*TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	helper.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
	return nil
}

// EventsToRegister: a node added or its taints changed, or the pod's own
// tolerations changed.
func (*TaintToleration) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeTaint},
			QueueingHintFn: isSchedulableAfterNodeChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodToleration},
			QueueingHintFn: isSchedulableAfterPodTolerationChange,
		},
	}, nil
}

// isSchedulableAfterNodeChange queues the pod when the node now passes the
// filter and did not before (or is new).
func isSchedulableAfterNodeChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil {
		return framework.QueueSkip, nil
	}
	wasUntolerated := true
	if old != nil {
		_, wasUntolerated = model.FirstUntolerated(old.Taints, pod.Tolerations, doNotSchedule)
	}
	_, isUntolerated := model.FirstUntolerated(updated.Taints, pod.Tolerations, doNotSchedule)
	if wasUntolerated && !isUntolerated {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterPodTolerationChange queues the pod on its own
// toleration update (tolerations can only be added).
func isSchedulableAfterPodTolerationChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated != nil && updated.UID == pod.UID {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// SignPod signs what Filter, PreScore and Score read: the tolerations.
func (*TaintToleration) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tolerations(pod.Tolerations)
}
