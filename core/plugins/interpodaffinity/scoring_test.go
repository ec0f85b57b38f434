package interpodaffinity_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		running  []*model.Pod
		pod      *model.Pod
		wantSkip bool
		// raw and normalized scores of a1, a2, b1, nozone
		wantRaw, want []int64
	}{
		{
			name:     "no terms anywhere",
			running:  []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name:     "preferred terms matching no pod",
			running:  []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:      mt.MakePod("p").PodAffinity(10, term(zone, "cache")).Obj(),
			wantSkip: true,
		},
		{
			name: "preferred affinity and anti-affinity sum per domain",
			running: []*model.Pod{
				mt.MakePod("db").Label("app", "db").Node("a1").Obj(),
				mt.MakePod("web").Label("app", "web").Node("a2").Obj(),
			},
			pod: mt.MakePod("p").PodAffinity(30, term(zone, "db")).PodAntiAffinity(50, term(host, "web")).Obj(),
			// a1: +30 (zone z1), a2: +30 -50, b1 and nozone: 0; spread over
			// [-20, 30].
			wantRaw: []int64{30, -20, 0, 0},
			want:    []int64{100, 0, 40, 40},
		},
		{
			name: "weights that cancel still score",
			running: []*model.Pod{
				mt.MakePod("db").Label("app", "db").Node("a1").Obj(),
			},
			pod:     mt.MakePod("p").PodAffinity(30, term(zone, "db")).PodAntiAffinity(30, term(zone, "db")).Obj(),
			wantRaw: []int64{0, 0, 0, 0},
			want:    []int64{0, 0, 0, 0},
		},
		{
			name: "running pods' terms and hardPodAffinityWeight",
			args: `{"hardPodAffinityWeight":4}`,
			running: []*model.Pod{
				mt.MakePod("fan").PodAffinity(0, term(zone, "web")).Node("a1").Obj(),
				mt.MakePod("admirer").PodAffinity(7, term(host, "web")).Node("b1").Obj(),
				mt.MakePod("hater").PodAntiAffinity(3, term(host, "web")).Node("nozone").Obj(),
			},
			pod:     mt.MakePod("p").Label("app", "web").Obj(),
			wantRaw: []int64{4, 4, 7, -3},
			want:    []int64{70, 70, 100, 0},
		},
		{
			name: "hardPodAffinityWeight 0 ignores required terms",
			args: `{"hardPodAffinityWeight":0}`,
			running: []*model.Pod{
				mt.MakePod("fan").PodAffinity(0, term(zone, "web")).Node("a1").Obj(),
			},
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name: "ignorePreferredTermsOfExistingPods skips pods without preferred terms",
			args: `{"ignorePreferredTermsOfExistingPods":true}`,
			running: []*model.Pod{
				mt.MakePod("admirer").PodAffinity(7, term(host, "web")).Node("b1").Obj(),
			},
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name: "ignorePreferredTermsOfExistingPods still counts running pods' terms for pods with their own",
			args: `{"ignorePreferredTermsOfExistingPods":true}`,
			running: []*model.Pod{
				mt.MakePod("admirer").PodAffinity(7, term(host, "web")).Node("b1").Obj(),
				mt.MakePod("db").Label("app", "db").Node("a1").Obj(),
			},
			pod:     mt.MakePod("p").Label("app", "web").PodAffinity(2, term(host, "db")).Obj(),
			wantRaw: []int64{2, 0, 7, 0},
			want:    []int64{28, 0, 100, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := cluster(standardLayout(), tc.running...)
			pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), tc.args)
			state := framework.NewCycleState()
			st := pl.PreScore(t.Context(), state, tc.pod, nodes)
			if tc.wantSkip {
				if !st.IsSkip() {
					t.Fatalf("PreScore = %v, want Skip", st)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("PreScore = %v", st)
			}
			list := make(framework.NodeScoreList, len(nodes))
			var raw []int64
			for i, ni := range nodes {
				s, st := pl.Score(t.Context(), state, tc.pod, ni)
				if !st.IsSuccess() {
					t.Fatalf("Score(%s) = %v", ni.Name(), st)
				}
				list[i] = framework.NodeScore{Name: ni.Name(), Score: s}
				raw = append(raw, s)
			}
			if diff := cmp.Diff(tc.wantRaw, raw); diff != "" {
				t.Errorf("raw scores (-want +got):\n%s", diff)
			}
			if st := pl.ScoreExtensions().NormalizeScore(t.Context(), state, tc.pod, list); !st.IsSuccess() {
				t.Fatalf("NormalizeScore = %v", st)
			}
			var got []int64
			for _, s := range list {
				got = append(got, s.Score)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
