package runtime

import (
	"context"

	"github.com/berthsched/berth/core/framework"
)

// EnqueueExtensions returns, for every plugin that can reject a pod
// (PreEnqueue, PreFilter, Filter, Reserve, Permit), the cluster events it
// registers. A rejecting plugin that does not implement
// framework.EnqueueExtensions is registered for every event, as kube does.
func (f *Framework) EnqueueExtensions() []framework.EnqueueExtensions { return f.enqueueExtensions }

// addEnqueueExtensions records p's events if p can reject pods.
func (f *Framework) addEnqueueExtensions(p framework.Plugin) {
	switch p.(type) {
	case framework.PreEnqueuePlugin, framework.PreFilterPlugin, framework.FilterPlugin,
		framework.ReservePlugin, framework.PermitPlugin:
	default:
		return
	}
	if ext, ok := p.(framework.EnqueueExtensions); ok {
		f.enqueueExtensions = append(f.enqueueExtensions, ext)
		return
	}
	f.enqueueExtensions = append(f.enqueueExtensions, allEvents{name: p.Name()})
}

// allEvents registers a plugin for every event, with no hint.
type allEvents struct{ name string }

func (a allEvents) Name() string { return a.name }

func (allEvents) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{
		Event: framework.ClusterEvent{Resource: framework.EventWildCard, ActionType: framework.ActionAll, Label: "WildCard"},
	}}, nil
}
