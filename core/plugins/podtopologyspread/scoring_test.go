package podtopologyspread_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestScore(t *testing.T) {
	// web pods: a1 2, a2 1, b1 1 (z1 3, z2 1, z3 0).
	webPods := append(append(running("web", "a1", 2), running("web", "a2", 1)...), running("web", "b1", 1)...)
	webSet := map[string]string{"app": "web"}
	tests := []struct {
		name     string
		args     string // PodTopologySpreadArgs; "" the defaults
		pod      *model.Pod
		feasible []string // nil: every node
		wantSkip bool
		wantRaw  map[string]int64
		want     map[string]int64
	}{
		{
			// System defaults: hostname maxSkew 3 over 5 hosts (weight
			// ln 7, +2) and zone maxSkew 5 over 4 domains, nozone's ""
			// among them (weight ln 6, +4); nozone is not ignored but gets
			// no zone term. a1 2*1.95+2 + 3*1.79+4 = 15.3, a2 13.3, b1
			// 9.7, c1 6, nozone 2.
			name:    "System defaults from the workload selectors",
			pod:     mt.MakePod("p").Label("app", "web").Workload(webSet).Obj(),
			wantRaw: map[string]int64{"a1": 15, "a2": 13, "b1": 10, "c1": 6, "nozone": 2},
			want:    map[string]int64{"a1": 13, "a2": 26, "b1": 46, "c1": 73, "nozone": 100},
		},
		{
			name:     "no workload selector, no defaults",
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			// tier=x selects none of the web pods: every count is 0.
			name:    "workload selectors are ANDed",
			pod:     mt.MakePod("p").Label("app", "web").Label("tier", "x").Workload(webSet).Workload(map[string]string{"tier": "x"}).Obj(),
			wantRaw: map[string]int64{"a1": 6, "a2": 6, "b1": 6, "c1": 6, "nozone": 2},
			want:    map[string]int64{"a1": 33, "a2": 33, "b1": 33, "c1": 33, "nozone": 100},
		},
		{
			// List defaults: nodes lacking a key are ignored, as for
			// constraints of the pod's own (the "zone" case below).
			name:    "List defaults",
			args:    `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}]}`,
			pod:     mt.MakePod("p").Label("app", "web").Workload(webSet).Obj(),
			wantRaw: map[string]int64{"a1": 5, "a2": 5, "b1": 2, "c1": 0, "nozone": 0},
			want:    map[string]int64{"a1": 0, "a2": 0, "b1": 60, "c1": 100, "nozone": 0},
		},
		{
			name:     "no ScheduleAnyway constraint",
			pod:      mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.DoNotSchedule)).Obj(),
			wantSkip: true,
		},
		{
			// 3 zones: weight ln(5); a1, a2 round(3 ln 5) = 5, b1
			// round(ln 5) = 2, c1 0; nozone lacks the key and gets 0.
			name:    "zone",
			pod:     mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.ScheduleAnyway)).Obj(),
			wantRaw: map[string]int64{"a1": 5, "a2": 5, "b1": 2, "c1": 0, "nozone": 0},
			want:    map[string]int64{"a1": 0, "a2": 0, "b1": 60, "c1": 100, "nozone": 0},
		},
		{
			// Only the domains of feasible nodes count: 2 zones, weight
			// ln(4); b1 round(1.39) = 1.
			name:     "zone over some feasible nodes",
			pod:      mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.ScheduleAnyway)).Obj(),
			feasible: []string{"b1", "c1"},
			wantRaw:  map[string]int64{"b1": 1, "c1": 0},
			want:     map[string]int64{"b1": 0, "c1": 100},
		},
		{
			// 5 hosts: weight ln(7), plus maxSkew-1 = 1 each.
			name:    "hostname",
			pod:     mt.MakePod("p").Label("app", "web").Spread(spread(host, 2, model.ScheduleAnyway)).Obj(),
			wantRaw: map[string]int64{"a1": 5, "a2": 3, "b1": 3, "c1": 1, "nozone": 1},
			want:    map[string]int64{"a1": 20, "a2": 60, "b1": 60, "c1": 100, "nozone": 100},
		},
		{
			name:    "no matching pods anywhere",
			pod:     mt.MakePod("p").Label("app", "db").Spread(model.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: model.ScheduleAnyway, LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}).Obj(),
			wantRaw: map[string]int64{"a1": 0, "a2": 0, "b1": 0, "c1": 0, "nozone": 0},
			want:    map[string]int64{"a1": 100, "a2": 100, "b1": 100, "c1": 100, "nozone": 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := cluster(zones(), webPods...)
			pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), tc.args)
			feasible := nodes
			if tc.feasible != nil {
				feasible = nil
				for _, ni := range nodes {
					for _, name := range tc.feasible {
						if ni.Name() == name {
							feasible = append(feasible, ni)
						}
					}
				}
			}
			state := newState()
			st := pl.PreScore(t.Context(), state, tc.pod, feasible)
			if tc.wantSkip {
				if !st.IsSkip() {
					t.Fatalf("PreScore = %v, want Skip", st)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("PreScore = %v", st)
			}
			list := make(framework.NodeScoreList, len(feasible))
			raw := map[string]int64{}
			for i, ni := range feasible {
				s, st := pl.Score(t.Context(), state, tc.pod, ni)
				if !st.IsSuccess() {
					t.Fatalf("Score(%s) = %v", ni.Name(), st)
				}
				list[i] = framework.NodeScore{Name: ni.Name(), Score: s}
				raw[ni.Name()] = s
			}
			if diff := cmp.Diff(tc.wantRaw, raw); diff != "" {
				t.Errorf("raw scores (-want +got):\n%s", diff)
			}
			if st := pl.ScoreExtensions().NormalizeScore(t.Context(), state, tc.pod, list); !st.IsSuccess() {
				t.Fatalf("NormalizeScore = %v", st)
			}
			got := map[string]int64{}
			for _, s := range list {
				got[s.Name] = s.Score
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreScoreSkipsEmptyCluster(t *testing.T) {
	pl := newPlugin(t, plugintest.NewListerHandle(nil, nil), "")
	pod := mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.ScheduleAnyway)).Obj()
	if st := pl.PreScore(t.Context(), newState(), pod, nil); !st.IsSkip() {
		t.Errorf("PreScore = %v, want Skip", st)
	}
}
