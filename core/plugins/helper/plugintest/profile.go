package plugintest

import (
	"slices"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/nodename"
	"github.com/berthsched/berth/core/plugins/nodeports"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/nodeunschedulable"
	"github.com/berthsched/berth/core/plugins/tainttoleration"
)

// Args are raw pluginConfig args (JSON) for the plugins that take some;
// empty means the defaults.
type Args struct {
	NodeResourcesFit                string
	NodeResourcesBalancedAllocation string
	NodeAffinity                    string
}

// Profile builds the filter and score plugins of kube-scheduler's default
// profile that Berth has in this tree, in kube's order and with kube's
// weights: filters NodeUnschedulable, NodeName, TaintToleration,
// NodeAffinity, NodePorts, NodeResourcesFit; scores TaintToleration (3),
// NodeAffinity (2), NodeResourcesFit (1), NodeResourcesBalancedAllocation
// (1).
func Profile(t testing.TB, args Args) ([]framework.Plugin, []Weighted) {
	t.Helper()
	h := &Handle{}
	taints := New[*tainttoleration.TaintToleration](t, tainttoleration.New, "", h)
	affinity := New[*nodeaffinity.NodeAffinity](t, nodeaffinity.New, args.NodeAffinity, h)
	fit := New[*noderesources.Fit](t, noderesources.NewFit, args.NodeResourcesFit, h)
	balanced := New[*noderesources.BalancedAllocation](t, noderesources.NewBalancedAllocation, args.NodeResourcesBalancedAllocation, h)
	filters := []framework.Plugin{
		New[*nodeunschedulable.NodeUnschedulable](t, nodeunschedulable.New, "", h),
		New[*nodename.NodeName](t, nodename.New, "", h),
		taints,
		affinity,
		New[*nodeports.NodePorts](t, nodeports.New, "", h),
		fit,
	}
	scores := []Weighted{{taints, 3}, {affinity, 2}, {fit, 1}, {balanced, 1}}
	return filters, scores
}

// Only keeps the score plugins with the given names (for profiles that
// disable the others).
func Only(scores []Weighted, names ...string) []Weighted {
	var out []Weighted
	for _, w := range scores {
		if slices.Contains(names, w.Plugin.Name()) {
			out = append(out, w)
		}
	}
	return out
}
