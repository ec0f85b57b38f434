package interpodaffinity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
)

const (
	zone = model.LabelZone
	host = model.LabelHostname
)

// term selects pods with label app=app in the domains of key.
func term(key, app string) model.PodAffinityTerm {
	return model.PodAffinityTerm{TopologyKey: key, LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

// inNamespaces restricts t to the named namespaces.
func inNamespaces(t model.PodAffinityTerm, ns ...string) model.PodAffinityTerm {
	t.Namespaces = ns
	return t
}

// withNamespaceSelector restricts t to the namespaces matching sel.
func withNamespaceSelector(t model.PodAffinityTerm, sel *model.LabelSelector) model.PodAffinityTerm {
	t.NamespaceSelector = sel
	return t
}

// result is a status in comparable form.
type result struct {
	Code    framework.Code
	Reasons []string
}

func resultOf(s *framework.Status) result { return result{s.Code(), s.Reasons()} }

var (
	pass           = result{}
	affinityFail   = result{framework.UnschedulableAndUnresolvable, []string{affinityReason}}
	antiFail       = result{framework.Unschedulable, []string{antiReason}}
	existingFail   = result{framework.Unschedulable, []string{existingReason}}
	standardLayout = func() []*model.Node {
		return []*model.Node{
			mt.MakeNode("a1").Zone("z1").Obj(), mt.MakeNode("a2").Zone("z1").Obj(),
			mt.MakeNode("b1").Zone("z2").Obj(), mt.MakeNode("nozone").Obj(),
		}
	}
)

// cluster places pods (each with its node set) on nodes.
func cluster(nodes []*model.Node, pods ...*model.Pod) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(nodes))
	for i, n := range nodes {
		out[i] = framework.NewNodeInfo(n)
		for _, p := range pods {
			if p.NodeName == n.Name {
				out[i].AddPodInfo(framework.MustPodInfo(p))
			}
		}
	}
	return out
}

func newPlugin(t testing.TB, h framework.Handle, args string) *interpodaffinity.InterPodAffinity {
	t.Helper()
	return plugintest.New[*interpodaffinity.InterPodAffinity](t, interpodaffinity.New, args, h)
}

func TestFilter(t *testing.T) {
	teamA := plugintest.Namespaces{"default": nil, "team-a": {"team": "a"}, "team-b": {"team": "b"}}
	tests := []struct {
		name     string
		running  []*model.Pod
		ns       plugintest.Namespaces
		pod      *model.Pod
		wantSkip bool
		want     map[string]result
	}{
		{
			name:     "nothing to check",
			running:  []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name:    "required affinity to the zone of a matching pod",
			running: []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:     mt.MakePod("p").PodAffinity(0, term(zone, "db")).Obj(),
			want:    map[string]result{"a1": pass, "a2": pass, "b1": affinityFail, "nozone": affinityFail},
		},
		{
			name: "one pod must match every affinity term",
			running: []*model.Pod{
				mt.MakePod("db").Label("app", "db").Node("a1").Obj(),
				mt.MakePod("cache").Label("app", "cache").Node("a1").Obj(),
			},
			pod:  mt.MakePod("p").PodAffinity(0, term(zone, "db")).PodAffinity(0, term(zone, "cache")).Obj(),
			want: map[string]result{"a1": affinityFail, "a2": affinityFail, "b1": affinityFail, "nozone": affinityFail},
		},
		{
			name:    "first pod of a group goes anywhere with the key",
			running: []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:     mt.MakePod("p").Label("app", "grp").PodAffinity(0, term(zone, "grp")).Obj(),
			want:    map[string]result{"a1": pass, "a2": pass, "b1": pass, "nozone": affinityFail},
		},
		{
			name:    "no exception for a pod that does not match its own terms",
			running: []*model.Pod{mt.MakePod("db").Label("app", "db").Node("a1").Obj()},
			pod:     mt.MakePod("p").Label("app", "other").PodAffinity(0, term(zone, "grp")).Obj(),
			want:    map[string]result{"a1": affinityFail, "a2": affinityFail, "b1": affinityFail, "nozone": affinityFail},
		},
		{
			name: "a matching pod on a node without the key does not end the exception",
			running: []*model.Pod{
				mt.MakePod("grp-0").Label("app", "grp").Node("nozone").Obj(),
			},
			pod:  mt.MakePod("p").Label("app", "grp").PodAffinity(0, term(zone, "grp")).Obj(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": pass, "nozone": affinityFail},
		},
		{
			name: "a matching pod elsewhere ends the exception",
			running: []*model.Pod{
				mt.MakePod("grp-0").Label("app", "grp").Node("b1").Obj(),
			},
			pod:  mt.MakePod("p").Label("app", "grp").PodAffinity(0, term(zone, "grp")).Obj(),
			want: map[string]result{"a1": affinityFail, "a2": affinityFail, "b1": pass, "nozone": affinityFail},
		},
		{
			name:    "required anti-affinity by zone",
			running: []*model.Pod{mt.MakePod("web").Label("app", "web").Node("a1").Obj()},
			pod:     mt.MakePod("p").PodAntiAffinity(0, term(zone, "web")).Obj(),
			want:    map[string]result{"a1": antiFail, "a2": antiFail, "b1": pass, "nozone": pass},
		},
		{
			name: "existing pods' anti-affinity repels the pod",
			running: []*model.Pod{
				mt.MakePod("lonely").Label("app", "lonely").PodAntiAffinity(0, term(zone, "web")).Node("b1").Obj(),
			},
			pod:  mt.MakePod("p").Label("app", "web").Obj(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": existingFail, "nozone": pass},
		},
		{
			name: "affinity is checked first, then anti-affinity, then existing pods",
			running: []*model.Pod{
				mt.MakePod("db").Label("app", "db").Node("a1").Obj(),
				mt.MakePod("web").Label("app", "web").Node("a2").Obj(),
				mt.MakePod("lonely").Label("app", "lonely").PodAntiAffinity(0, term(host, "web")).Node("a1").Obj(),
			},
			pod:  mt.MakePod("p").Label("app", "web").PodAffinity(0, term(zone, "db")).PodAntiAffinity(0, term(host, "web")).Obj(),
			want: map[string]result{"a1": existingFail, "a2": antiFail, "b1": affinityFail, "nozone": affinityFail},
		},
		{
			name: "terms look in the pod's namespace by default",
			running: []*model.Pod{
				mt.MakePod("db").Namespace("team-a").Label("app", "db").Node("a1").Obj(),
			},
			pod:  mt.MakePod("p").PodAntiAffinity(0, term(zone, "db")).Obj(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": pass, "nozone": pass},
		},
		{
			name: "terms with a namespace list",
			running: []*model.Pod{
				mt.MakePod("db").Namespace("team-a").Label("app", "db").Node("a1").Obj(),
			},
			pod:  mt.MakePod("p").PodAntiAffinity(0, inNamespaces(term(zone, "db"), "team-a")).Obj(),
			want: map[string]result{"a1": antiFail, "a2": antiFail, "b1": pass, "nozone": pass},
		},
		{
			name: "terms with a namespaceSelector",
			ns:   teamA,
			running: []*model.Pod{
				mt.MakePod("db-a").Namespace("team-a").Label("app", "db").Node("a1").Obj(),
				mt.MakePod("db-b").Namespace("team-b").Label("app", "db").Node("b1").Obj(),
			},
			pod: mt.MakePod("p").PodAntiAffinity(0, withNamespaceSelector(term(host, "db"),
				&model.LabelSelector{MatchLabels: map[string]string{"team": "b"}})).Obj(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": antiFail, "nozone": pass},
		},
		{
			name: "an empty namespaceSelector selects every namespace",
			ns:   teamA,
			running: []*model.Pod{
				mt.MakePod("db-a").Namespace("team-a").Label("app", "db").Node("a1").Obj(),
				mt.MakePod("db-x").Namespace("unknown").Label("app", "db").Node("b1").Obj(),
			},
			pod:  mt.MakePod("p").PodAntiAffinity(0, withNamespaceSelector(term(host, "db"), &model.LabelSelector{})).Obj(),
			want: map[string]result{"a1": antiFail, "a2": pass, "b1": antiFail, "nozone": pass},
		},
		{
			// kube-scheduler matches the selector against no labels after
			// resolving it, so DoesNotExist selects every namespace.
			name: "a namespaceSelector matching no labels selects every namespace",
			ns:   teamA,
			running: []*model.Pod{
				mt.MakePod("db-a").Namespace("team-a").Label("app", "db").Node("a1").Obj(),
			},
			pod: mt.MakePod("p").PodAntiAffinity(0, withNamespaceSelector(term(host, "db"), &model.LabelSelector{
				MatchExpressions: []model.LabelSelectorRequirement{{Key: "team", Operator: model.LabelSelectorOpDoesNotExist}}})).Obj(),
			want: map[string]result{"a1": antiFail, "a2": pass, "b1": pass, "nozone": pass},
		},
		{
			name: "existing pods' namespaceSelector sees the pod's namespace labels",
			ns:   teamA,
			running: []*model.Pod{
				mt.MakePod("guard").Namespace("team-b").Label("app", "guard").PodAntiAffinity(0, withNamespaceSelector(term(zone, "web"),
					&model.LabelSelector{MatchLabels: map[string]string{"team": "a"}})).Node("b1").Obj(),
			},
			pod:  mt.MakePod("p").Namespace("team-a").Label("app", "web").Obj(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": existingFail, "nozone": pass},
		},
		{
			name: "existing pods' namespaceSelector ignores other namespaces",
			ns:   teamA,
			running: []*model.Pod{
				mt.MakePod("guard").Namespace("team-b").Label("app", "guard").PodAntiAffinity(0, withNamespaceSelector(term(zone, "web"),
					&model.LabelSelector{MatchLabels: map[string]string{"team": "a"}})).Node("b1").Obj(),
			},
			pod:      mt.MakePod("p").Namespace("team-b").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name: "matchLabelKeys narrow the selector to the pod's value",
			running: []*model.Pod{
				mt.MakePod("web-v1").Label("app", "web").Label("ver", "v1").Node("a1").Obj(),
				mt.MakePod("web-v2").Label("app", "web").Label("ver", "v2").Node("b1").Obj(),
			},
			pod: func() *model.Pod {
				tm := term(host, "web")
				tm.MatchLabelKeys = []string{"ver"}
				return mt.MakePod("p").Label("app", "web").Label("ver", "v2").PodAntiAffinity(0, tm).Obj()
			}(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": antiFail, "nozone": pass},
		},
		{
			name: "terminating pods still count",
			running: []*model.Pod{
				mt.MakePod("web").Label("app", "web").Terminating().Node("a1").Obj(),
			},
			pod:  mt.MakePod("p").PodAntiAffinity(0, term(host, "web")).Obj(),
			want: map[string]result{"a1": antiFail, "a2": pass, "b1": pass, "nozone": pass},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := cluster(standardLayout(), tc.running...)
			pl := newPlugin(t, plugintest.NewListerHandle(nodes, tc.ns), "")
			state := framework.NewCycleState()
			_, st := pl.PreFilter(t.Context(), state, tc.pod, nodes)
			if tc.wantSkip {
				if !st.IsSkip() {
					t.Fatalf("PreFilter = %v, want Skip", st)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("PreFilter = %v", st)
			}
			got := map[string]result{}
			for _, ni := range nodes {
				got[ni.Name()] = resultOf(pl.Filter(t.Context(), state, tc.pod, ni))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPreFilterExtensions adds and removes pods on a cloned state, as the
// runtime does for nominated pods and preemption victims.
func TestPreFilterExtensions(t *testing.T) {
	db := mt.MakePod("db").Label("app", "db").Node("a1").Obj()
	nodes := cluster(standardLayout(), db)
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	pod := mt.MakePod("p").Label("app", "web").PodAffinity(0, term(zone, "db")).PodAntiAffinity(0, term(host, "web")).Obj()
	base := framework.NewCycleState()
	if _, st := pl.PreFilter(t.Context(), base, pod, nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter = %v", st)
	}
	a1, a2, b1 := nodes[0], nodes[1], nodes[2]
	web := framework.MustPodInfo(mt.MakePod("web").Label("app", "web").Node("a2").Obj())
	hater := framework.MustPodInfo(mt.MakePod("hater").PodAntiAffinity(0, term(zone, "web")).Node("a1").Obj())
	dbInfo := framework.MustPodInfo(db)
	steps := []struct {
		name   string
		change func(*framework.CycleState) *framework.Status
		want   map[string]result
	}{
		{name: "as PreFilter saw it", want: map[string]result{"a1": pass, "a2": pass, "b1": affinityFail}},
		{
			name:   "a matching pod added repels the pod from its node",
			change: func(s *framework.CycleState) *framework.Status { return pl.AddPod(t.Context(), s, pod, web, a2) },
			want:   map[string]result{"a1": pass, "a2": antiFail, "b1": affinityFail},
		},
		{
			name:   "a pod with anti-affinity added repels it from the zone",
			change: func(s *framework.CycleState) *framework.Status { return pl.AddPod(t.Context(), s, pod, hater, a1) },
			want:   map[string]result{"a1": existingFail, "a2": antiFail, "b1": affinityFail},
		},
		{
			name:   "a pod added in another zone attracts it there",
			change: func(s *framework.CycleState) *framework.Status { return pl.AddPod(t.Context(), s, pod, dbInfo, b1) },
			want:   map[string]result{"a1": existingFail, "a2": antiFail, "b1": pass},
		},
		{
			name: "removals undo",
			change: func(s *framework.CycleState) *framework.Status {
				for _, r := range []struct {
					pi *framework.PodInfo
					ni *framework.NodeInfo
				}{{web, a2}, {hater, a1}, {dbInfo, a1}} {
					if st := pl.RemovePod(t.Context(), s, pod, r.pi, r.ni); !st.IsSuccess() {
						return st
					}
				}
				return nil
			},
			want: map[string]result{"a1": affinityFail, "a2": affinityFail, "b1": pass},
		},
	}
	state := base.Clone()
	for _, step := range steps {
		if step.change != nil {
			if st := step.change(state); !st.IsSuccess() {
				t.Fatalf("%s: %v", step.name, st)
			}
		}
		got := map[string]result{}
		for _, ni := range []*framework.NodeInfo{a1, a2, b1} {
			got[ni.Name()] = resultOf(pl.Filter(t.Context(), state, pod, ni))
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: Filter (-want +got):\n%s", step.name, diff)
		}
	}
	got := resultOf(pl.Filter(t.Context(), base, pod, a2))
	if diff := cmp.Diff(pass, got); diff != "" {
		t.Errorf("the original state changed with its clone (-want +got):\n%s", diff)
	}
}

func TestMissingState(t *testing.T) {
	nodes := cluster(standardLayout())
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	state, pod := framework.NewCycleState(), mt.MakePod("p").Obj()
	pi := framework.MustPodInfo(pod)
	for name, st := range map[string]*framework.Status{
		"Filter":         pl.Filter(t.Context(), state, pod, nodes[0]),
		"AddPod":         pl.AddPod(t.Context(), state, pod, pi, nodes[0]),
		"RemovePod":      pl.RemovePod(t.Context(), state, pod, pi, nodes[0]),
		"NormalizeScore": pl.NormalizeScore(t.Context(), state, pod, framework.NodeScoreList{{Name: "a1"}}),
		"Score": func() *framework.Status {
			_, st := pl.Score(t.Context(), state, pod, nodes[0])
			return st
		}(),
	} {
		if st.Code() != framework.Error {
			t.Errorf("%s without state = %v, want Error", name, st)
		}
	}
}
