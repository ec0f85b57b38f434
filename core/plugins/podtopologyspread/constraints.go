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

// podConstraints compiles the pod's constraints with the given action.
// matchLabelKeys are merged into the selector with the pod's own values,
// ANDed with its labelSelector (a nil labelSelector still selects nothing).
// A pod without constraints gets none: see the package comment on cluster
// defaults.
func podConstraints(pod *model.Pod, action model.UnsatisfiableConstraintAction) ([]constraint, error) {
	var out []constraint
	for i := range pod.TopologySpreadConstraints {
		c := &pod.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := c.LabelSelector.Compile()
		if err != nil {
			return nil, fmt.Errorf("topologySpreadConstraints[%d].labelSelector: %w", i, err)
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				sel = sel.AddIn(k, v)
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
