package nodeaffinity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		want      *nodeaffinity.Args
		wantField string
	}{
		{name: "defaults", raw: "", want: &nodeaffinity.Args{}},
		{name: "typed document", raw: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NodeAffinityArgs"}`, want: &nodeaffinity.Args{}},
		{
			name: "added affinity",
			raw: `{"addedAffinity":{
				"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["a"]}]}]},
				"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}}]}}`,
			want: &nodeaffinity.Args{AddedAffinity: &model.NodeAffinity{
				Required: &model.NodeSelector{Terms: []model.NodeSelectorTerm{{MatchExpressions: []model.NodeSelectorRequirement{{Key: "pool", Operator: model.NodeSelectorOpIn, Values: []string{"a"}}}}}},
				Preferred: []model.PreferredSchedulingTerm{{Weight: 5, Preference: model.NodeSelectorTerm{
					MatchFields: []model.NodeSelectorRequirement{{Key: model.NodeFieldName, Operator: model.NodeSelectorOpIn, Values: []string{"n1"}}}}}},
			}},
		},
		{name: "unknown field", raw: `{"addedAfinity":{}}`, wantField: "addedAfinity"},
		{
			name:      "bad operator",
			raw:       `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"Near","values":["a"]}]}]}}}`,
			wantField: "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]",
		},
		{
			name:      "bad label key",
			raw:       `{"addedAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"bad key!","operator":"Exists"}]}}]}}`,
			wantField: "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0]",
		},
		{
			name:      "Gt needs an integer",
			raw:       `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gen","operator":"Gt","values":["x"]}]}]}}}`,
			wantField: "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nodeaffinity.DecodeArgs([]byte(tc.raw))
			if tc.wantField != "" {
				var ae *helper.ArgsError
				if !errors.As(err, &ae) || ae.Field != tc.wantField {
					t.Fatalf("error = %v, want an ArgsError on field %s", err, tc.wantField)
				}
				if !strings.HasPrefix(err.Error(), "NodeAffinity args: "+tc.wantField) {
					t.Errorf("error %q does not start with the plugin and field", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func names(ns ...string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, n := range ns {
		out[n] = struct{}{}
	}
	return out
}

func TestPreFilter(t *testing.T) {
	byName := func(op model.NodeSelectorOperator, n string) model.NodeSelectorRequirement {
		return model.NodeSelectorRequirement{Key: model.NodeFieldName, Operator: op, Values: []string{n}}
	}
	zoneA := model.NodeSelectorRequirement{Key: model.LabelZone, Operator: model.NodeSelectorOpIn, Values: []string{"a"}}
	tests := []struct {
		name       string
		pod        *model.Pod
		added      string
		wantResult *framework.PreFilterResult
		wantStatus *framework.Status
	}{
		{name: "nothing to enforce", pod: mt.MakePod("p").Obj(), wantStatus: framework.NewStatus(framework.Skip)},
		{name: "added affinity alone", pod: mt.MakePod("p").Obj(),
			added: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Exists"}]}]}}}`},
		{name: "node selector", pod: mt.MakePod("p").NodeSelector("a", "b").Obj()},
		{name: "labels only", pod: mt.MakePod("p").RequiredNodeAffinity(model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{zoneA}}).Obj()},
		{name: "names unioned over terms",
			pod: mt.MakePod("p").RequiredNodeAffinity(
				model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{byName(model.NodeSelectorOpIn, "n1")}},
				model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{byName(model.NodeSelectorOpIn, "n2")}, MatchExpressions: []model.NodeSelectorRequirement{zoneA}},
			).Obj(),
			wantResult: &framework.PreFilterResult{NodeNames: names("n1", "n2")}},
		{name: "a term without names allows all",
			pod: mt.MakePod("p").RequiredNodeAffinity(
				model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{byName(model.NodeSelectorOpIn, "n1")}},
				model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{zoneA}},
			).Obj()},
		{name: "NotIn names nothing",
			pod: mt.MakePod("p").RequiredNodeAffinity(model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{byName(model.NodeSelectorOpNotIn, "n1")}}).Obj()},
		{name: "names intersected within a term",
			pod: mt.MakePod("p").RequiredNodeAffinity(model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{
				byName(model.NodeSelectorOpIn, "n1"), byName(model.NodeSelectorOpIn, "n2")}}).Obj(),
			wantStatus: framework.NewStatus(framework.UnschedulableAndUnresolvable, nodeaffinity.ErrReasonConflict)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := plugintest.New[*nodeaffinity.NodeAffinity](t, nodeaffinity.New, tc.added, nil)
			res, st := pl.PreFilter(context.Background(), framework.NewCycleState(), tc.pod, nil)
			if !st.Equal(tc.wantStatus) {
				t.Errorf("status = %v, want %v", st, tc.wantStatus)
			}
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueingHints(t *testing.T) {
	pod := mt.MakePod("p").NodeSelector("pool", "gpu").Obj()
	gpu := mt.MakeNode("n").Label("pool", "gpu").Obj()
	cpu := mt.MakeNode("n").Label("pool", "cpu").Obj()
	gpuRelabelled := mt.MakeNode("n").Label("pool", "gpu").Label("other", "x").Obj()
	nodeAdd := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}
	relabel := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel}
	retaint := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeTaint}
	tests := []struct {
		name           string
		added          string
		event          framework.ClusterEvent
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "matching node added", event: nodeAdd, newObj: gpu, want: framework.Queue},
		{name: "other node added", event: nodeAdd, newObj: cpu, want: framework.QueueSkip},
		{name: "node starts matching", event: relabel, oldObj: cpu, newObj: gpu, want: framework.Queue},
		{name: "node stops matching", event: relabel, oldObj: gpu, newObj: cpu, want: framework.QueueSkip},
		{name: "node kept matching", event: relabel, oldObj: gpu, newObj: gpuRelabelled, want: framework.QueueSkip},
		{name: "taints are not registered", event: retaint, oldObj: cpu, newObj: gpu, want: framework.QueueSkip},
		{name: "matching node fails the added affinity", event: nodeAdd, newObj: gpu, want: framework.QueueSkip,
			added: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"other","operator":"Exists"}]}]}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := plugintest.New[*nodeaffinity.NodeAffinity](t, nodeaffinity.New, tc.added, nil)
			if got := plugintest.Hint(t, pl, tc.event, pod, tc.oldObj, tc.newObj); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
