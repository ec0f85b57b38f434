package gang

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// GateName is the name the gate rejects pods under (kube's plugin name).
const GateName = "GangScheduling"

// Gate is the PreEnqueue check: a member waits until its group exists and
// MinCount of its pods are known. The scheduler runs it for every profile
// and re-checks a group's gated members when the group or a member arrives.
type Gate struct {
	Groups *Registry
}

var _ framework.PreEnqueuePlugin = (*Gate)(nil)

// Name is GateName.
func (*Gate) Name() string { return GateName }

// PreEnqueue holds a member whose group is missing or short of pods.
func (g *Gate) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	return GateStatus(g.Groups, pod)
}

// GateStatus is why the gate holds pod, nil when it does not.
func GateStatus(r *Registry, pod *model.Pod) *framework.Status {
	key := pod.GroupKey()
	if key == "" {
		return nil
	}
	grp, ok := r.Get(key)
	if !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("waiting for pod group %s: it does not exist", key)).WithPlugin(GateName)
	}
	if root, missing, ok := r.Root(key); ok {
		// In a tree (kube's hierarchy readiness): the tree's root must
		// exist, and enough of its children have their pods; the pod's
		// own group may be short of them.
		if root == nil {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("waiting for composite pod group %s, the parent of pod group %s: it does not exist", missing, key)).WithPlugin(GateName)
		}
		if ready, n := r.treeReady(root, 0); ready == 0 {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("waiting for composite pod group %s: %d of its min_group_count %d child groups have their pods", root.Key(), n, root.MinGroupCount)).WithPlugin(GateName)
		}
		return nil
	}
	if n := r.NumMembers(key); n < int(grp.MinCount) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("waiting for pod group %s: %d of its min_count %d pods exist", key, n, grp.MinCount)).WithPlugin(GateName)
	}
	return nil
}
