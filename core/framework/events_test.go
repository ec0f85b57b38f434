package framework_test

import (
	"testing"

	fw "github.com/berthsched/berth/core/framework"
)

func TestClusterEventMatches(t *testing.T) {
	ev := func(r fw.EventResource, a fw.ActionType) fw.ClusterEvent {
		return fw.ClusterEvent{Resource: r, ActionType: a}
	}
	tests := []struct {
		name       string
		registered fw.ClusterEvent
		incoming   fw.ClusterEvent
		want       bool
	}{
		{name: "same action", registered: ev(fw.EventNode, fw.ActionAdd), incoming: ev(fw.EventNode, fw.ActionAdd), want: true},
		{name: "one of the registered actions", registered: ev(fw.EventNode, fw.ActionAdd|fw.ActionUpdateNodeTaint), incoming: ev(fw.EventNode, fw.ActionUpdateNodeTaint), want: true},
		{name: "action not registered", registered: ev(fw.EventNode, fw.ActionAdd), incoming: ev(fw.EventNode, fw.ActionUpdateNodeLabel)},
		{name: "specific update under a general registration", registered: ev(fw.EventNode, fw.ActionUpdate), incoming: ev(fw.EventNode, fw.ActionUpdateNodeLabel), want: true},
		{name: "general update under a specific registration", registered: ev(fw.EventNode, fw.ActionUpdateNodeLabel), incoming: ev(fw.EventNode, fw.ActionUpdate)},
		{name: "other pod update under a general registration", registered: ev(fw.EventPod, fw.ActionUpdate), incoming: ev(fw.EventAssignedPod, fw.ActionUpdatePodOther), want: true},
		{name: "other pod update under a label registration", registered: ev(fw.EventPod, fw.ActionAdd|fw.ActionUpdatePodLabel), incoming: ev(fw.EventUnscheduledPod, fw.ActionUpdatePodOther)},
		{name: "incoming broader than the registration", registered: ev(fw.EventPod, fw.ActionAdd), incoming: ev(fw.EventPod, fw.ActionAdd|fw.ActionDelete)},
		{name: "no action", registered: ev(fw.EventPod, fw.ActionAll), incoming: ev(fw.EventPod, 0)},
		{name: "Pod covers assigned pods", registered: ev(fw.EventPod, fw.ActionDelete), incoming: ev(fw.EventAssignedPod, fw.ActionDelete), want: true},
		{name: "Pod covers unscheduled pods", registered: ev(fw.EventPod, fw.ActionUpdatePodLabel), incoming: ev(fw.EventUnscheduledPod, fw.ActionUpdatePodLabel), want: true},
		{name: "assigned pod does not cover Pod", registered: ev(fw.EventAssignedPod, fw.ActionDelete), incoming: ev(fw.EventPod, fw.ActionDelete)},
		{name: "other resource", registered: ev(fw.EventNode, fw.ActionAdd), incoming: ev(fw.EventPod, fw.ActionAdd)},
		{name: "wildcard registration", registered: ev(fw.EventWildCard, fw.ActionAll), incoming: ev(fw.EventPDB, fw.ActionUpdateOther), want: true},
		{name: "wildcard resource, specific action", registered: ev(fw.EventWildCard, fw.ActionDelete), incoming: ev(fw.EventNode, fw.ActionAdd)},
		{name: "incoming wildcard needs a wildcard registration", registered: ev(fw.EventNode, fw.ActionAll), incoming: ev(fw.EventWildCard, fw.ActionAll)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.registered.Matches(tc.incoming); got != tc.want {
				t.Errorf("%+v.Matches(%+v) = %v, want %v", tc.registered, tc.incoming, got, tc.want)
			}
		})
	}
}
