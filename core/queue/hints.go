package queue

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// profileIndex is the queueing hints of one profile, prepared at New.
type profileIndex struct {
	name string
	// events are the profile's registered events with their hints, sorted
	// so that hints always run in the same order.
	events []hintEntry
}

type hintEntry struct {
	event framework.ClusterEvent
	fns   []QueueingHintFunction
}

// hintIndex is the queueing hints of every profile, prepared at New.
type hintIndex struct {
	profiles  []profileIndex
	profileID map[string]int32
	// pluginEvents lists the events each plugin registered in any profile
	// (to skip gated pods fast).
	pluginEvents map[string][]framework.ClusterEvent
	// pluginBit gives each plugin with hints a bit, so an event can skip
	// a pod whose rejectors registered nothing for it without reading the
	// pod. Plugins past the 63rd share the last bit.
	pluginBit map[string]uint64
}

func newHintIndex(in map[string]QueueingHintMap) hintIndex {
	x := hintIndex{
		profileID:    make(map[string]int32, len(in)),
		pluginEvents: make(map[string][]framework.ClusterEvent),
		pluginBit:    make(map[string]uint64),
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range in {
			if !yield(k) {
				return
			}
		}
	}) {
		p := profileIndex{name: name}
		for ev, fns := range in[name] {
			p.events = append(p.events, hintEntry{event: ev, fns: fns})
			for _, fn := range fns {
				x.pluginEvents[fn.PluginName] = append(x.pluginEvents[fn.PluginName], ev)
			}
		}
		slices.SortFunc(p.events, func(a, b hintEntry) int { return compareEvents(a.event, b.event) })
		x.profileID[name] = int32(len(x.profiles))
		x.profiles = append(x.profiles, p)
	}
	plugins := make([]string, 0, len(x.pluginEvents))
	for name, evs := range x.pluginEvents {
		slices.SortFunc(evs, compareEvents)
		plugins = append(plugins, name)
	}
	slices.Sort(plugins)
	for i, name := range plugins {
		x.pluginBit[name] = 1 << min(i, 63)
	}
	return x
}

func compareEvents(a, b framework.ClusterEvent) int {
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.ActionType, b.ActionType), cmp.Compare(a.Label, b.Label))
}

// id returns the profile's index, -1 when it registered no hints.
func (x *hintIndex) id(profile string) int32 {
	if id, ok := x.profileID[profile]; ok {
		return id
	}
	return -1
}

// rejectorMask is the set of bits of the plugins that rejected the pod.
func (x *hintIndex) rejectorMask(info *framework.QueuedPodInfo) uint64 {
	var m uint64
	for name := range info.UnschedulablePlugins {
		m |= x.pluginBit[name]
	}
	for name := range info.PendingPlugins {
		m |= x.pluginBit[name]
	}
	return m
}

// interested reports whether some plugin of some profile registered ev.
func (x *hintIndex) interested(ev framework.ClusterEvent) bool {
	if isWildCard(ev) {
		return true
	}
	for i := range x.profiles {
		for _, he := range x.profiles[i].events {
			if he.event.Matches(ev) {
				return true
			}
		}
	}
	return false
}

// eventHints is one profile's hints for one event and the bits of their
// plugins.
type eventHints struct {
	fns  []QueueingHintFunction
	mask uint64
}

// forEvent collects profile id's hints for ev; nil when the profile has no
// hints at all.
func (x *hintIndex) forEvent(id int32, ev framework.ClusterEvent) *eventHints {
	if id < 0 {
		return nil
	}
	h := &eventHints{}
	for _, he := range x.profiles[id].events {
		if he.event.Matches(ev) {
			h.fns = append(h.fns, he.fns...)
			for _, fn := range he.fns {
				h.mask |= x.pluginBit[fn.PluginName]
			}
		}
	}
	return h
}

// hintCache computes each profile's hints for one event once.
type hintCache struct {
	x         *hintIndex
	event     framework.ClusterEvent
	byProfile []*eventHints
}

func (x *hintIndex) cache(ev framework.ClusterEvent) *hintCache {
	return &hintCache{x: x, event: ev, byProfile: make([]*eventHints, len(x.profiles))}
}

func (c *hintCache) get(id int32) *eventHints {
	if id < 0 {
		return nil
	}
	if c.byProfile[id] == nil {
		c.byProfile[id] = c.x.forEvent(id, c.event)
	}
	return c.byProfile[id]
}

// canSkip reports, from the entry alone, that ev cannot move the
// unschedulable pod: none of its rejecting plugins registered ev. A false
// answer means "ask the hints".
func (c *hintCache) canSkip(e *entry) bool {
	if !e.rejected || isWildCard(c.event) {
		return false
	}
	h := c.get(e.profile)
	return h != nil && e.rejectors&h.mask == 0
}

// worthRequeuing asks the hints of the plugins that rejected the pod
// whether ev may make it schedulable. A Pending plugin saying Queue sends
// the pod straight to activeQ; an Unschedulable one, through backoff.
// hints is the pod's profile's hints for ev, nil if it has none.
func (q *PriorityQueue) worthRequeuing(info *framework.QueuedPodInfo, ev framework.ClusterEvent, oldObj, newObj any, hints *eventHints) strategy {
	if !hasRejectors(info) {
		return queueAfterBackoff
	}
	if isWildCard(ev) {
		// A wildcard event carrying a pod is meant for that pod only.
		if newObj != nil {
			if p, ok := newObj.(*model.Pod); !ok || p.UID != info.Pod.UID {
				return queueSkip
			}
		}
		return queueAfterBackoff
	}
	if hints == nil {
		return queueAfterBackoff
	}
	result := queueSkip
	for _, h := range hints.fns {
		if !rejectedBy(info, h.PluginName) {
			continue
		}
		if q.callHint(h, info.Pod, ev, oldObj, newObj) == framework.QueueSkip {
			continue
		}
		if _, pending := info.PendingPlugins[h.PluginName]; pending {
			return queueImmediately
		}
		if len(info.PendingPlugins) == 0 {
			return queueAfterBackoff
		}
		result = queueAfterBackoff
	}
	return result
}

func (q *PriorityQueue) callHint(h QueueingHintFunction, pod *model.Pod, ev framework.ClusterEvent, oldObj, newObj any) framework.QueueingHint {
	if h.Fn == nil || q.opts.DisableQueueingHints {
		return framework.Queue
	}
	hint, err := h.Fn(pod, oldObj, newObj)
	if err != nil {
		// Queue, so an erring hint cannot strand the pod.
		q.opts.Logger.Error("queueing hint failed", "plugin", h.PluginName, "event", ev.Label, "pod", pod.Key(), "err", err)
		return framework.Queue
	}
	return hint
}
