package runtime

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
)

// implements reports whether p implements the interface of point.
func implements(p framework.Plugin, point config.ExtensionPoint) bool {
	var ok bool
	switch point {
	case config.PreEnqueue:
		_, ok = p.(framework.PreEnqueuePlugin)
	case config.QueueSort:
		_, ok = p.(framework.QueueSortPlugin)
	case config.PreFilter:
		_, ok = p.(framework.PreFilterPlugin)
	case config.Filter:
		_, ok = p.(framework.FilterPlugin)
	case config.PostFilter:
		_, ok = p.(framework.PostFilterPlugin)
	case config.PreScore:
		_, ok = p.(framework.PreScorePlugin)
	case config.Score:
		_, ok = p.(framework.ScorePlugin)
	case config.Reserve:
		_, ok = p.(framework.ReservePlugin)
	case config.Permit:
		_, ok = p.(framework.PermitPlugin)
	case config.PreBind:
		_, ok = p.(framework.PreBindPlugin)
	case config.Bind:
		_, ok = p.(framework.BindPlugin)
	case config.PostBind:
		_, ok = p.(framework.PostBindPlugin)
	}
	return ok
}

// interfaceName names the plugin interface of point in messages, as kube
// does ("FilterPlugin").
func interfaceName(point config.ExtensionPoint) string {
	s := point.String()
	return string(s[0]-'a'+'A') + s[1:] + "Plugin"
}

// resolvePoints returns, for every extension point, the names of the
// plugins to run there in order. A plugin named at a point must implement
// it and appear once. MultiPoint plugins join every point they implement
// unless disabled there ("*" disables multiPoint expansion at the point);
// kube's order follows: first the multiPoint plugins that the point's own
// list names too (in the point's order, with the point's settings), then
// the other multiPoint plugins, then the rest of the point's list.
func resolvePoints(p *config.Plugins, plugins map[string]framework.Plugin) (map[config.ExtensionPoint][]string, error) {
	out := make(map[config.ExtensionPoint][]string)
	for _, point := range config.ExtensionPoints() {
		set := p.Set(point)
		var explicit []string
		seen := make(map[string]bool)
		for _, pl := range set.Enabled {
			if !implements(plugins[pl.Name], point) {
				return nil, fmt.Errorf("plugin %q does not extend %s plugin", pl.Name, interfaceName(point))
			}
			if seen[pl.Name] {
				return nil, fmt.Errorf("plugin %q already registered as %q", pl.Name, interfaceName(point))
			}
			seen[pl.Name] = true
			explicit = append(explicit, pl.Name)
		}
		disabled := make(map[string]bool)
		for _, pl := range set.Disabled {
			disabled[pl.Name] = true
		}
		if len(p.MultiPoint.Enabled) == 0 || disabled["*"] {
			out[point] = explicit
			continue
		}
		override := make(map[string]bool)
		var multi []string
		multiSeen := make(map[string]bool)
		for _, pl := range p.MultiPoint.Enabled {
			if !implements(plugins[pl.Name], point) || disabled[pl.Name] {
				continue
			}
			if seen[pl.Name] {
				override[pl.Name] = true
				continue
			}
			if multiSeen[pl.Name] {
				return nil, fmt.Errorf("plugin %q already registered as %q", pl.Name, interfaceName(point))
			}
			multiSeen[pl.Name] = true
			multi = append(multi, pl.Name)
		}
		var names []string
		for _, n := range explicit {
			if override[n] {
				names = append(names, n)
			}
		}
		names = append(names, multi...)
		for _, n := range explicit {
			if !override[n] {
				names = append(names, n)
			}
		}
		out[point] = names
	}
	return out, nil
}

// scoreWeights returns the weight of each Score plugin, by name: its weight
// at the score point, else under multiPoint; 0 (unset) counts as 1. The
// weighted maximum scores must add up without overflowing int64.
func scoreWeights(p *config.Plugins, plugins map[string]framework.Plugin) (map[string]int64, error) {
	weights := make(map[string]int64)
	var order []int64
	for _, pl := range append(append([]config.Plugin(nil), p.Score.Enabled...), p.MultiPoint.Enabled...) {
		if !implements(plugins[pl.Name], config.Score) {
			continue
		}
		if _, ok := weights[pl.Name]; ok {
			continue
		}
		w := int64(pl.Weight)
		switch {
		case w < 0:
			return nil, fmt.Errorf("plugin %q: weight %d is negative", pl.Name, w)
		case w == 0:
			w = 1
		}
		weights[pl.Name] = w
		order = append(order, w)
	}
	if err := checkTotalScore(order); err != nil {
		return nil, err
	}
	return weights, nil
}

// errScoreOverflow is kube's message for weights too large to add up.
var errScoreOverflow = errors.New("total score of Score plugins could overflow")

// checkTotalScore fails when the weighted maximum node scores could
// overflow MaxTotalScore.
func checkTotalScore(weights []int64) error {
	var total int64
	for _, w := range weights {
		if w > (framework.MaxTotalScore-total)/framework.MaxNodeScore {
			return errScoreOverflow
		}
		total += w * framework.MaxNodeScore
	}
	return nil
}
