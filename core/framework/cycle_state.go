package framework

import "maps"

// StateKey names a piece of per-cycle plugin state.
type StateKey string

// StateData is per-cycle plugin state. Clone must return a copy that can be
// changed without affecting the original (preemption evaluates candidates on
// clones).
type StateData interface {
	Clone() StateData
}

// CycleState carries plugin state between the extension points of one
// scheduling attempt. Write happens only in the sequential points (PreFilter,
// PreScore, Reserve); the parallel points (Filter, Score) only Read, so no
// lock is needed.
type CycleState struct {
	data map[StateKey]StateData
	// SkipFilterPlugins and SkipScorePlugins name plugins whose PreFilter or
	// PreScore returned Skip; the runtime does not call their Filter/Score.
	SkipFilterPlugins map[string]struct{}
	SkipScorePlugins  map[string]struct{}
	// FilterPlan and ScorePlan are the runtime's: the plugins to run for
	// this pod, resolved from the Skip sets once per attempt. Immutable
	// once set, so clones share them; plugins must not touch them.
	FilterPlan, ScorePlan any
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{data: make(map[StateKey]StateData)}
}

// Read returns the data stored under key.
func (c *CycleState) Read(key StateKey) (StateData, bool) {
	d, ok := c.data[key]
	return d, ok
}

// Write stores data under key.
func (c *CycleState) Write(key StateKey, data StateData) { c.data[key] = data }

// Delete removes key.
func (c *CycleState) Delete(key StateKey) { delete(c.data, key) }

// Clone returns a deep copy (each StateData cloned).
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	out := &CycleState{
		data:              make(map[StateKey]StateData, len(c.data)),
		SkipFilterPlugins: maps.Clone(c.SkipFilterPlugins),
		SkipScorePlugins:  maps.Clone(c.SkipScorePlugins),
		FilterPlan:        c.FilterPlan,
		ScorePlan:         c.ScorePlan,
	}
	for k, v := range c.data {
		out.data[k] = v.Clone()
	}
	return out
}

// ReadAs fetches key and asserts its type, for plugins reading their own
// PreFilter/PreScore state.
func ReadAs[T StateData](c *CycleState, key StateKey) (T, bool) {
	var zero T
	d, ok := c.Read(key)
	if !ok {
		return zero, false
	}
	t, ok := d.(T)
	return t, ok
}
