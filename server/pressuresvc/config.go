package pressuresvc

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/berthsched/berth/core/pressure"
)

// DefaultStatsMaxAge is how old a report's measurements may be and still
// be acted on.
const DefaultStatsMaxAge = time.Minute

// Pool is the eviction configuration of the nodes a label selector picks.
type Pool struct {
	// NodeSelector is a Kubernetes label selector ("pool=batch,zone in (a,b)").
	NodeSelector string `json:"nodeSelector"`
	pressure.Settings
}

// Settings is the node-pressure part of berthd's configuration: the
// kubelet's eviction settings, per-pool overrides (the first pool whose
// selector matches a node's labels wins; a pool's settings replace the
// defaults as a whole) and the age past which stats are not acted on.
type Settings struct {
	pressure.Settings
	EvictionPools []Pool `json:"evictionPools,omitempty"`
	// EvictionStatsMaxAge ("1m"): a report whose newest measurement is older
	// is answered as stale and changes nothing.
	EvictionStatsMaxAge string `json:"evictionStatsMaxAge,omitempty"`
}

// Config is Settings parsed.
type Config struct {
	Default     pressure.Config
	Pools       []ParsedPool
	StatsMaxAge time.Duration
}

// ParsedPool is a Pool parsed.
type ParsedPool struct {
	Selector labels.Selector
	Config   pressure.Config
}

// Parse validates every setting; errors name the key
// (evictionPools[1].evictionHard[memory.available]: ...).
func (s Settings) Parse() (Config, error) {
	def, err := s.Settings.Parse()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Default: def, StatsMaxAge: DefaultStatsMaxAge}
	for i, p := range s.EvictionPools {
		sel, err := labels.Parse(p.NodeSelector)
		if err != nil {
			return Config{}, fmt.Errorf("evictionPools[%d].nodeSelector: %w", i, err)
		}
		if p.NodeSelector == "" {
			return Config{}, fmt.Errorf("evictionPools[%d].nodeSelector: required", i)
		}
		pc, err := p.Settings.Parse()
		if err != nil {
			return Config{}, fmt.Errorf("evictionPools[%d].%w", i, err)
		}
		cfg.Pools = append(cfg.Pools, ParsedPool{Selector: sel, Config: pc})
	}
	if a := s.EvictionStatsMaxAge; a != "" {
		d, err := time.ParseDuration(a)
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("evictionStatsMaxAge: %q is not a positive duration", a)
		}
		cfg.StatsMaxAge = d
	}
	return cfg, nil
}

// For is the configuration of a node with these labels.
func (c *Config) For(nodeLabels map[string]string) pressure.Config {
	for _, p := range c.Pools {
		if p.Selector.Matches(labels.Set(nodeLabels)) {
			return p.Config
		}
	}
	return c.Default
}
