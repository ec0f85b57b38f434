package convert

import (
	"maps"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// Comparisons of a wire pod's parts with those of the version Berth holds:
// parts found equal are shared, not converted again (see pod).

// sameLabels reports whether a wire label map converts to held, a
// non-empty one (empty maps are not shared: nil and empty stay apart).
func sameLabels(in, held map[string]string) bool {
	return len(held) > 0 && maps.Equal(in, held)
}

// sameContainers reports whether wire containers convert to held's:
// containers without ports or a restart policy (the common ones), with the
// same names and requests.
func sameContainers(in []*berthv1.Container, held []model.Container) bool {
	if len(in) == 0 || len(in) != len(held) {
		return false
	}
	for i, c := range in {
		h := &held[i]
		if c == nil || c.GetName() != h.Name || len(c.GetPorts()) != 0 || len(h.Ports) != 0 ||
			c.GetRestartPolicy() != berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_UNSPECIFIED || h.RestartAlways ||
			!sameAmounts(c.GetRequests(), h.Requests) || !slices.Equal(c.GetClaims(), h.Claims) {
			return false
		}
	}
	return true
}

// sameAmounts reports whether a wire resource list converts to held (nil
// for an empty one).
func sameAmounts(in map[string]int64, held model.ResourceList) bool {
	if len(in) == 0 {
		return held == nil
	}
	return len(held) > 0 && maps.Equal(in, held)
}

// sameTolerations reports whether wire tolerations convert to held's.
func sameTolerations(in []*berthv1.Toleration, held []model.Toleration) bool {
	if len(in) == 0 || len(in) != len(held) {
		return false
	}
	ops, effects := tolerationOperators(), taintEffects()
	for i, t := range in {
		h := &held[i]
		op, effect := t.GetOperator(), t.GetEffect()
		if t == nil || t.GetKey() != h.Key || t.GetValue() != h.Value ||
			int(op) < 0 || int(op) >= len(ops) || ops[op] != h.Operator ||
			int(effect) < 0 || int(effect) >= len(effects) || effects[effect] != h.Effect ||
			(t.TolerationSeconds == nil) != (h.TolerationSeconds == nil) ||
			(t.TolerationSeconds != nil && *t.TolerationSeconds != *h.TolerationSeconds) {
			return false
		}
	}
	return true
}
