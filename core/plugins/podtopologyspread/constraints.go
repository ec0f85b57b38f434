package podtopologyspread

import (
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
)

// constraint is a compiled TopologySpreadConstraint of the pod being
// scheduled.
type constraint struct {
	maxSkew     int32
	topologyKey string
	hostname    bool // topologyKey is kubernetes.io/hostname: one domain per node
	selector    model.Selector
	minDomains  int32
	// honorAffinity and honorTaints are the node inclusion policies: count
	// only nodes matching the pod's required node affinity, or only nodes
	// whose NoSchedule and NoExecute taints the pod tolerates.
	honorAffinity bool
	honorTaints   bool
}

// systemDefaultConstraints are kube-scheduler's built-in cluster defaults
// (defaultingType System): spread over hostnames with maxSkew 3 and over
// zones with maxSkew 5, both ScheduleAnyway.
func systemDefaultConstraints() []model.TopologySpreadConstraint {
	return []model.TopologySpreadConstraint{
		{TopologyKey: model.LabelHostname, WhenUnsatisfiable: model.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: model.LabelZone, WhenUnsatisfiable: model.ScheduleAnyway, MaxSkew: 5},
	}
}

// constraints compiles the constraints the pod is spread by for the given
// action: its own, or, when it has none, the cluster defaults with the
// selector of its workloads (see workloadSelector); a pod no workload
// selects gets no defaults.
func (pl *PodTopologySpread) constraints(pod *model.Pod, action model.UnsatisfiableConstraintAction) ([]constraint, error) {
	if len(pod.TopologySpreadConstraints) > 0 {
		return compileConstraints(pod.TopologySpreadConstraints, pod.Labels, action, nil)
	}
	if len(pl.defaults) == 0 {
		return nil, nil
	}
	sel, err := workloadSelector(pod)
	if err != nil || sel.IsEverything() || sel.IsNothing() {
		return nil, err
	}
	return compileConstraints(pl.defaults, pod.Labels, action, &sel)
}

// requireAllKeys reports whether, when scoring, nodes lacking one of the
// constraints' topology keys are left out. They are, except under the
// System defaults, so that nodes without a zone label still get hostname
// spreading.
func (pl *PodTopologySpread) requireAllKeys(pod *model.Pod) bool {
	return len(pod.TopologySpreadConstraints) > 0 || !pl.systemDefaulted
}

// workloadSelector ANDs the selectors of the workloads selecting the pod,
// as kube-scheduler merges the selectors of the Services, controllers and
// stateful sets that select it. Everything when there are none.
func workloadSelector(pod *model.Pod) (model.Selector, error) {
	sel := model.Everything()
	for i := range pod.WorkloadSelectors {
		s, err := pod.WorkloadSelectors[i].Compile()
		if err != nil {
			return model.Nothing(), fmt.Errorf("workloadSelectors[%d]: %w", i, err)
		}
		sel = sel.And(s)
	}
	return sel, nil
}

// compileConstraints compiles the constraints with the given action.
// matchLabelKeys are merged into the selector with the pod's own values,
// ANDed with its labelSelector (a nil labelSelector still selects
// nothing). A non-nil override replaces every selector (cluster defaults).
func compileConstraints(in []model.TopologySpreadConstraint, podLabels map[string]string, action model.UnsatisfiableConstraintAction, override *model.Selector) ([]constraint, error) {
	var out []constraint
	for i := range in {
		c := &in[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		var sel model.Selector
		if override != nil {
			sel = *override
		} else {
			var err error
			if sel, err = c.LabelSelector.Compile(); err != nil {
				return nil, fmt.Errorf("topologySpreadConstraints[%d].labelSelector: %w", i, err)
			}
			for _, k := range c.MatchLabelKeys {
				if v, ok := podLabels[k]; ok {
					sel = sel.AddIn(k, v)
				}
			}
		}
		cc := constraint{
			maxSkew:       c.MaxSkew,
			topologyKey:   c.TopologyKey,
			hostname:      c.TopologyKey == model.LabelHostname,
			selector:      sel,
			minDomains:    1,
			honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == model.NodeInclusionPolicyHonor,
			honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == model.NodeInclusionPolicyHonor,
		}
		if c.MinDomains != nil {
			cc.minDomains = *c.MinDomains
		}
		out = append(out, cc)
	}
	return out, nil
}

// hasAllKeys reports whether the node has the topology key of every
// constraint.
func hasAllKeys(node *model.Node, cs []constraint) bool {
	for i := range cs {
		if _, ok := node.Labels[cs[i].topologyKey]; !ok {
			return false
		}
	}
	return true
}

// inclusion evaluates the node inclusion policies of a pod's constraints
// on one node, each test at most once.
type inclusion struct {
	pod                     *model.Pod
	affinityDone, taintDone bool
	affinityOK, taintOK     bool
}

// includes reports whether the node counts for constraint c.
func (in *inclusion) includes(c *constraint, node *model.Node) bool {
	if c.honorAffinity {
		if !in.affinityDone {
			in.affinityDone, in.affinityOK = true, nodeaffinity.RequiredMatches(in.pod, node)
		}
		if !in.affinityOK {
			return false
		}
	}
	if c.honorTaints {
		if !in.taintDone {
			_, untolerated := model.FirstUntolerated(node.Taints, in.pod.Tolerations, doNotScheduleTaint)
			in.taintDone, in.taintOK = true, !untolerated
		}
		if !in.taintOK {
			return false
		}
	}
	return true
}

func doNotScheduleTaint(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// countMatching counts the pods in namespace ns, not terminating, that the
// selector matches. As in kube-scheduler, a selector matching everything
// (an empty labelSelector) counts no pod.
func countMatching(pods []*framework.PodInfo, sel model.Selector, ns string) int {
	if sel.IsEverything() {
		return 0
	}
	n := 0
	for _, p := range pods {
		if p.Pod.Terminating || p.Pod.Namespace != ns {
			continue
		}
		if sel.Matches(p.Pod.Labels) {
			n++
		}
	}
	return n
}
