// Package registry assembles the registry of every plugin Berth ships, the
// one berthd, berthctl and the simulator build their profiles from.
package registry

import (
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/plugins/defaultbinder"
	"github.com/berthsched/berth/core/plugins/defaultpreemption"
	"github.com/berthsched/berth/core/plugins/dynamicresources"
	"github.com/berthsched/berth/core/plugins/imagelocality"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/nodename"
	"github.com/berthsched/berth/core/plugins/nodeports"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/nodeunschedulable"
	"github.com/berthsched/berth/core/plugins/nodevolumelimits"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
	"github.com/berthsched/berth/core/plugins/prioritysort"
	"github.com/berthsched/berth/core/plugins/schedulinggates"
	"github.com/berthsched/berth/core/plugins/tainttoleration"
	"github.com/berthsched/berth/core/plugins/volumebinding"
	"github.com/berthsched/berth/core/plugins/volumerestrictions"
	"github.com/berthsched/berth/core/plugins/volumezone"
)

// InTree returns a new registry holding every in-tree plugin. Each call
// returns a fresh map, so a caller may add its own plugins to it.
func InTree() runtime.Registry {
	return runtime.Registry{
		prioritysort.Name:                    prioritysort.New,
		schedulinggates.Name:                 schedulinggates.New,
		nodeunschedulable.Name:               nodeunschedulable.New,
		nodename.Name:                        nodename.New,
		tainttoleration.Name:                 tainttoleration.New,
		nodeaffinity.Name:                    nodeaffinity.New,
		nodeports.Name:                       nodeports.New,
		noderesources.Name:                   noderesources.NewFit,
		noderesources.BalancedAllocationName: noderesources.NewBalancedAllocation,
		podtopologyspread.Name:               podtopologyspread.New,
		interpodaffinity.Name:                interpodaffinity.New,
		defaultbinder.Name:                   defaultbinder.New,
		defaultpreemption.Name:               defaultpreemption.New,
		dynamicresources.Name:                dynamicresources.New,
		volumebinding.Name:                   volumebinding.New,
		imagelocality.Name:                   imagelocality.New,
		volumezone.Name:                      volumezone.New,
		nodevolumelimits.Name:                nodevolumelimits.New,
		volumerestrictions.Name:              volumerestrictions.New,
	}
}
