package scheduler

import (
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/plugins/defaultbinder"
	"github.com/berthsched/berth/core/plugins/defaultpreemption"
	"github.com/berthsched/berth/core/plugins/dynamicresources"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/nodename"
	"github.com/berthsched/berth/core/plugins/nodeports"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/nodeunschedulable"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
	"github.com/berthsched/berth/core/plugins/prioritysort"
	"github.com/berthsched/berth/core/plugins/schedulinggates"
	"github.com/berthsched/berth/core/plugins/tainttoleration"
	"github.com/berthsched/berth/core/plugins/volumebinding"
)

// inTreeRegistry is every plugin Berth has (tests only: the registry of
// record belongs to the program embedding the scheduler).
func inTreeRegistry() runtime.Registry {
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
	}
}

// withoutMissing drops from cfg the plugins the registry lacks (while
// some are still being written), so the rest can be tested.
func withoutMissing(cfg *config.Config, reg runtime.Registry) *config.Config {
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i].Plugins
		for _, point := range append(config.ExtensionPoints(), config.MultiPoint) {
			set := p.Set(point)
			kept := set.Enabled[:0]
			for _, pl := range set.Enabled {
				if _, ok := reg[pl.Name]; ok {
					kept = append(kept, pl)
				}
			}
			set.Enabled = kept
		}
	}
	return cfg
}
