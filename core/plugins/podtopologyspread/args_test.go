package podtopologyspread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
)

func TestDecodeArgs(t *testing.T) {
	honor := model.NodeInclusionPolicyHonor
	tests := []struct {
		name      string
		raw       string
		want      podtopologyspread.Args
		wantField string
		wantErr   string
	}{
		{name: "nil gives System defaulting", want: podtopologyspread.Args{DefaultingType: podtopologyspread.SystemDefaulting}},
		{name: "typed document", raw: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"PodTopologySpreadArgs","defaultingType":"List"}`,
			want: podtopologyspread.Args{DefaultingType: podtopologyspread.ListDefaulting}},
		{
			name: "list of defaults",
			raw: `{"defaultingType":"List","defaultConstraints":[
				{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway","nodeTaintsPolicy":"Honor"},
				{"maxSkew":2,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}]}`,
			want: podtopologyspread.Args{DefaultingType: podtopologyspread.ListDefaulting, DefaultConstraints: []model.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: model.LabelZone, WhenUnsatisfiable: model.ScheduleAnyway, NodeTaintsPolicy: &honor},
				{MaxSkew: 2, TopologyKey: model.LabelHostname, WhenUnsatisfiable: model.DoNotSchedule},
			}},
		},
		{name: "defaults need List", raw: `{"defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}`,
			wantField: "defaultingType", wantErr: "invalid when .defaultConstraints are not empty"},
		{name: "unknown defaulting type", raw: `{"defaultingType":"Cluster"}`, wantField: "defaultingType", wantErr: `unsupported value "Cluster"`},
		{name: "maxSkew", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}`,
			wantField: "defaultConstraints[0].maxSkew", wantErr: "not in valid range (0, inf)"},
		{name: "empty topologyKey", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"whenUnsatisfiable":"ScheduleAnyway"}]}`,
			wantField: "defaultConstraints[0].topologyKey", wantErr: "can not be empty"},
		{name: "invalid topologyKey", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"a b","whenUnsatisfiable":"ScheduleAnyway"}]}`,
			wantField: "defaultConstraints[0].topologyKey", wantErr: `"a b"`},
		{name: "whenUnsatisfiable", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Maybe"}]}`,
			wantField: "defaultConstraints[0].whenUnsatisfiable", wantErr: `unsupported value "Maybe"`},
		{name: "missing whenUnsatisfiable", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone"}]}`,
			wantField: "defaultConstraints[0].whenUnsatisfiable", wantErr: "can not be empty"},
		{name: "selector forbidden", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{}}]}`,
			wantField: "defaultConstraints[0].labelSelector", wantErr: "must not define a selector"},
		{name: "duplicate", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"},{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}`,
			wantField: "defaultConstraints[1]", wantErr: "duplicate value {zone, ScheduleAnyway}"},
		{name: "unknown field", raw: `{"defaultConstraint":[]}`, wantField: "defaultConstraint", wantErr: "unknown field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := podtopologyspread.DecodeArgs([]byte(tc.raw))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("DecodeArgs: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
				return
			}
			var ae *helper.ArgsError
			if !errors.As(err, &ae) || ae.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want an ArgsError on %q containing %q", err, tc.wantField, tc.wantErr)
			}
		})
	}
}

// TestDefaultConstraintsNeverApply: kube-scheduler derives the selector of
// default constraints from the Services and workload controllers selecting
// the pod; Berth has none, so a pod without constraints is skipped even
// with List defaults.
func TestDefaultConstraintsNeverApply(t *testing.T) {
	nodes := cluster(zones())
	for _, args := range []string{"", `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"},{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway"}]}`} {
		pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), args)
		pod := mtPod("p", "web")
		state := newState()
		if _, st := pl.PreFilter(t.Context(), state, pod, nodes); !st.IsSkip() {
			t.Errorf("args %q: PreFilter = %v, want Skip", args, st)
		}
		if st := pl.PreScore(t.Context(), state, pod, nodes); !st.IsSkip() {
			t.Errorf("args %q: PreScore = %v, want Skip", args, st)
		}
	}
}

func TestNewNeedsHandle(t *testing.T) {
	if _, err := podtopologyspread.New(t.Context(), nil, nil); err == nil {
		t.Error("New with a nil handle succeeded")
	}
}
