package simulate

import (
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
)

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
