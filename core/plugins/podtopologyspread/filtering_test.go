package podtopologyspread_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
)

const (
	zone = model.LabelZone
	host = model.LabelHostname
)

// zones is a1, a2 in z1, b1 in z2, c1 in z3 and nozone.
func zones() []*model.Node {
	return []*model.Node{
		mt.MakeNode("a1").Zone("z1").Obj(), mt.MakeNode("a2").Zone("z1").Obj(),
		mt.MakeNode("b1").Zone("z2").Obj(), mt.MakeNode("c1").Zone("z3").Obj(),
		mt.MakeNode("nozone").Obj(),
	}
}

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

// running returns n pods app=app on node.
func running(app, node string, n int) []*model.Pod {
	var out []*model.Pod
	for i := range n {
		out = append(out, mt.MakePod(app+"-"+node+"-"+string(rune('a'+i))).Label("app", app).Node(node).Obj())
	}
	return out
}

func mtPod(name, app string) *model.Pod { return mt.MakePod(name).Label("app", app).Obj() }

func newState() *framework.CycleState { return framework.NewCycleState() }

func newPlugin(t testing.TB, h framework.Handle, args string) *podtopologyspread.PodTopologySpread {
	t.Helper()
	return plugintest.New[*podtopologyspread.PodTopologySpread](t, podtopologyspread.New, args, h)
}

// spread is a constraint on key selecting app=web.
func spread(key string, maxSkew int32, when model.UnsatisfiableConstraintAction) model.TopologySpreadConstraint {
	return model.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
}

type result struct {
	Code    framework.Code
	Reasons []string
}

func resultOf(s *framework.Status) result { return result{s.Code(), s.Reasons()} }

var (
	pass      = result{}
	skewFail  = result{framework.Unschedulable, []string{skewReason}}
	labelFail = result{framework.UnschedulableAndUnresolvable, []string{labelReason}}
)

func policy(p model.NodeInclusionPolicy) *model.NodeInclusionPolicy { return &p }

func TestFilter(t *testing.T) {
	web := func(pods ...[]*model.Pod) []*model.Pod {
		var out []*model.Pod
		for _, p := range pods {
			out = append(out, p...)
		}
		return out
	}
	zone1 := spread(zone, 1, model.DoNotSchedule)
	noPool := model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{{Key: "pool", Operator: model.NodeSelectorOpDoesNotExist}}}
	listZone1 := `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"}]}`
	tests := []struct {
		name     string
		args     string // PodTopologySpreadArgs; "" the defaults
		nodes    []*model.Node
		running  []*model.Pod
		pod      *model.Pod
		wantSkip bool
		want     map[string]result
	}{
		{
			name:    "List defaults filter with the workload selector",
			args:    listZone1,
			running: web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:     mt.MakePod("p").Label("app", "web").Workload(map[string]string{"app": "web"}).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": skewFail, "c1": pass, "nozone": labelFail},
		},
		{
			name:     "no workload selector, no defaults",
			args:     listZone1,
			running:  web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:      mt.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			name:     "empty workload selectors, no defaults",
			args:     listZone1,
			running:  web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:      mt.MakePod("p").Label("app", "web").Workload(nil).Obj(),
			wantSkip: true,
		},
		{
			name:    "the pod's own constraints replace the defaults",
			args:    listZone1,
			running: web(running("web", "a1", 2), running("web", "a2", 1)),
			pod:     mt.MakePod("p").Label("app", "web").Workload(map[string]string{"app": "web"}).Spread(spread(host, 1, model.DoNotSchedule)).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": pass},
		},
		{
			name:     "System defaults only score",
			running:  web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:      mt.MakePod("p").Label("app", "web").Workload(map[string]string{"app": "web"}).Obj(),
			wantSkip: true,
		},
		{
			name:     "no DoNotSchedule constraint",
			running:  running("web", "a1", 1),
			pod:      mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.ScheduleAnyway)).Obj(),
			wantSkip: true,
		},
		{
			// z1 2, z2 1, z3 0: only z3 stays within maxSkew 1.
			name:    "maxSkew over the least populated zone",
			running: web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:     mt.MakePod("p").Label("app", "web").Spread(zone1).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": skewFail, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "a pod the selector does not select adds nothing",
			running: web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:     mt.MakePod("p").Label("app", "batch").Spread(zone1).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "maxSkew 2",
			running: web(running("web", "a1", 1), running("web", "a2", 1), running("web", "b1", 1)),
			pod:     mt.MakePod("p").Label("app", "web").Spread(spread(zone, 2, model.DoNotSchedule)).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			// Three zones, minDomains 4: the least count is taken as 0
			// even though every zone has a pod.
			name:    "fewer domains than minDomains",
			running: web(running("web", "a1", 1), running("web", "b1", 1), running("web", "c1", 1)),
			pod: func() *model.Pod {
				c := zone1
				c.MinDomains = new(int32(4))
				return mt.MakePod("p").Label("app", "web").Spread(c).Obj()
			}(),
			want: map[string]result{"a1": skewFail, "a2": skewFail, "b1": skewFail, "c1": skewFail, "nozone": labelFail},
		},
		{
			name:    "enough domains for minDomains",
			running: web(running("web", "a1", 1), running("web", "b1", 1), running("web", "c1", 1)),
			pod: func() *model.Pod {
				c := zone1
				c.MinDomains = new(int32(3))
				return mt.MakePod("p").Label("app", "web").Spread(c).Obj()
			}(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			// Honor (the default): nodes failing the pod's required node
			// affinity do not count, so z3 is no domain and z2 is the
			// least.
			name:    "nodeAffinityPolicy Honor",
			nodes:   append(zones()[:3], mt.MakeNode("c1").Zone("z3").Label("pool", "other").Obj(), mt.MakeNode("nozone").Obj()),
			running: web(running("web", "a1", 2), running("web", "b1", 1)),
			pod:     mt.MakePod("p").Label("app", "web").RequiredNodeAffinity(noPool).Spread(zone1).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "nodeAffinityPolicy Ignore",
			nodes:   append(zones()[:3], mt.MakeNode("c1").Zone("z3").Label("pool", "other").Obj(), mt.MakeNode("nozone").Obj()),
			running: web(running("web", "a1", 2), running("web", "b1", 1)),
			pod: func() *model.Pod {
				c := zone1
				c.NodeAffinityPolicy = policy(model.NodeInclusionPolicyIgnore)
				return mt.MakePod("p").Label("app", "web").RequiredNodeAffinity(noPool).Spread(c).Obj()
			}(),
			want: map[string]result{"a1": skewFail, "a2": skewFail, "b1": skewFail, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "nodeTaintsPolicy Honor leaves out tainted nodes",
			nodes:   append(zones()[:3], mt.MakeNode("c1").Zone("z3").Taint("k", "v", model.TaintEffectNoSchedule).Obj(), mt.MakeNode("nozone").Obj()),
			running: web(running("web", "a1", 2), running("web", "b1", 1)),
			pod: func() *model.Pod {
				c := zone1
				c.NodeTaintsPolicy = policy(model.NodeInclusionPolicyHonor)
				return mt.MakePod("p").Label("app", "web").Spread(c).Obj()
			}(),
			want: map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "nodeTaintsPolicy Honor counts tolerated taints and PreferNoSchedule",
			nodes:   append(zones()[:3], mt.MakeNode("c1").Zone("z3").Taint("k", "v", model.TaintEffectNoSchedule).Taint("soft", "", model.TaintEffectPreferNoSchedule).Obj(), mt.MakeNode("nozone").Obj()),
			running: web(running("web", "a1", 2), running("web", "b1", 1)),
			pod: func() *model.Pod {
				c := zone1
				c.NodeTaintsPolicy = policy(model.NodeInclusionPolicyHonor)
				return mt.MakePod("p").Label("app", "web").Toleration(model.Toleration{Key: "k", Operator: model.TolerationOpExists}).Spread(c).Obj()
			}(),
			want: map[string]result{"a1": skewFail, "a2": skewFail, "b1": skewFail, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "hostname domains",
			running: web(running("web", "a1", 2), running("web", "a2", 1)),
			pod:     mt.MakePod("p").Label("app", "web").Spread(spread(host, 1, model.DoNotSchedule)).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": pass},
		},
		{
			name: "pods of other namespaces and terminating pods do not count",
			running: web(running("web", "a1", 1), []*model.Pod{
				mt.MakePod("other").Namespace("team").Label("app", "web").Node("b1").Obj(),
				mt.MakePod("gone").Label("app", "web").Terminating().Node("c1").Obj(),
			}),
			pod:  mt.MakePod("p").Label("app", "web").Spread(zone1).Obj(),
			want: map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			name:    "matchLabelKeys select the pod's own version",
			running: web(running("web", "a1", 1), []*model.Pod{mt.MakePod("v2").Label("app", "web").Label("ver", "v2").Node("b1").Obj()}),
			pod: func() *model.Pod {
				c := zone1
				c.MatchLabelKeys = []string{"ver"}
				return mt.MakePod("p").Label("app", "web").Label("ver", "v2").Spread(c).Obj()
			}(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": skewFail, "c1": pass, "nozone": labelFail},
		},
		{
			// kube-scheduler counts no pod for a selector matching
			// everything, but the pod itself matches it.
			name:    "an empty selector counts nothing",
			running: web(running("web", "a1", 3)),
			pod: func() *model.Pod {
				c := zone1
				c.LabelSelector = &model.LabelSelector{}
				return mt.MakePod("p").Label("app", "web").Spread(c).Obj()
			}(),
			want: map[string]result{"a1": pass, "a2": pass, "b1": pass, "c1": pass, "nozone": labelFail},
		},
		{
			// a1 fails the hostname constraint, a2 the zone one.
			name:    "every constraint must hold",
			running: running("web", "a1", 1),
			pod:     mt.MakePod("p").Label("app", "web").Spread(spread(host, 1, model.DoNotSchedule)).Spread(zone1).Obj(),
			want:    map[string]result{"a1": skewFail, "a2": skewFail, "b1": pass, "c1": pass, "nozone": labelFail},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			layout := tc.nodes
			if layout == nil {
				layout = zones()
			}
			nodes := cluster(layout, tc.running...)
			pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), tc.args)
			state := newState()
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
	nodes := cluster(zones(), append(running("web", "a1", 1), running("web", "b1", 1)...)...)
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	pod := mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.DoNotSchedule)).Obj()
	base := newState()
	if _, st := pl.PreFilter(t.Context(), base, pod, nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter = %v", st)
	}
	a1, b1, c1 := nodes[0], nodes[2], nodes[3]
	webOn := func(name string) *framework.PodInfo {
		return framework.MustPodInfo(mt.MakePod(name).Label("app", "web").Obj())
	}
	add := func(pi *framework.PodInfo, ni *framework.NodeInfo) func(*framework.CycleState) *framework.Status {
		return func(s *framework.CycleState) *framework.Status { return pl.AddPod(t.Context(), s, pod, pi, ni) }
	}
	remove := func(pi *framework.PodInfo, ni *framework.NodeInfo) func(*framework.CycleState) *framework.Status {
		return func(s *framework.CycleState) *framework.Status { return pl.RemovePod(t.Context(), s, pod, pi, ni) }
	}
	x, y, z := webOn("x"), webOn("y"), webOn("z")
	steps := []struct {
		name   string
		change func(*framework.CycleState) *framework.Status
		want   map[string]result
	}{
		{name: "as PreFilter saw it (1, 1, 0)", want: map[string]result{"a1": skewFail, "b1": skewFail, "c1": pass}},
		{name: "a pod added to z3 (1, 1, 1)", change: add(x, c1), want: map[string]result{"a1": pass, "b1": pass, "c1": pass}},
		{name: "another to z3 (1, 1, 2)", change: add(y, c1), want: map[string]result{"a1": pass, "b1": pass, "c1": skewFail}},
		{name: "a victim removed from z1 (0, 1, 2)", change: remove(webOn("web-a1-a"), a1),
			want: map[string]result{"a1": pass, "b1": skewFail, "c1": skewFail}},
		{name: "a pod of another namespace is ignored", change: add(framework.MustPodInfo(mt.MakePod("o").Namespace("team").Label("app", "web").Obj()), a1),
			want: map[string]result{"a1": pass, "b1": skewFail, "c1": skewFail}},
		{name: "a pod the selector does not select is ignored", change: add(framework.MustPodInfo(mt.MakePod("o").Label("app", "batch").Obj()), a1),
			want: map[string]result{"a1": pass, "b1": skewFail, "c1": skewFail}},
		{name: "a pod on a node without the key is ignored", change: add(z, nodes[4]),
			want: map[string]result{"a1": pass, "b1": skewFail, "c1": skewFail}},
	}
	state := base.Clone()
	for _, step := range steps {
		if step.change != nil {
			if st := step.change(state); !st.IsSuccess() {
				t.Fatalf("%s: %v", step.name, st)
			}
		}
		got := map[string]result{}
		for _, ni := range []*framework.NodeInfo{a1, b1, c1} {
			got[ni.Name()] = resultOf(pl.Filter(t.Context(), state, pod, ni))
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: Filter (-want +got):\n%s", step.name, diff)
		}
	}
	if got := resultOf(pl.Filter(t.Context(), base, pod, c1)); got.Code != framework.Success {
		t.Errorf("the original state changed with its clone: c1 = %v", got)
	}
}

func TestMissingState(t *testing.T) {
	nodes := cluster(zones())
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	state, pod := newState(), mt.MakePod("p").Obj()
	pi := framework.MustPodInfo(pod)
	_, scoreStatus := pl.Score(t.Context(), state, pod, nodes[0])
	for name, st := range map[string]*framework.Status{
		"Filter":         pl.Filter(t.Context(), state, pod, nodes[0]),
		"AddPod":         pl.AddPod(t.Context(), state, pod, pi, nodes[0]),
		"RemovePod":      pl.RemovePod(t.Context(), state, pod, pi, nodes[0]),
		"Score":          scoreStatus,
		"NormalizeScore": pl.NormalizeScore(t.Context(), state, pod, framework.NodeScoreList{{Name: "a1"}}),
	} {
		if st.Code() != framework.Error {
			t.Errorf("%s without state = %v, want Error", name, st)
		}
	}
}

// TestRejectedDomains: the domains RejectedDomains reports are exactly
// those whose nodes Filter rejects for the skew, per constraint on a key
// other than the hostname, and it is decisive (a node of another domain
// passes) only for a pod with one constraint.
func TestRejectedDomains(t *testing.T) {
	web := append(append(running("web", "a1", 2), running("web", "a2", 1)...), running("web", "b1", 1)...)
	nodes := cluster(zones(), web...) // z1: 3, z2: 1, z3: 0
	tests := []struct {
		name string
		pod  *model.Pod
		want []framework.RejectedDomains
	}{
		{name: "maxSkew 1", pod: mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.DoNotSchedule)).Obj(),
			want: []framework.RejectedDomains{{Key: zone, Domains: map[string]struct{}{"z1": {}, "z2": {}}, Decisive: true}}},
		{name: "maxSkew 2, the pod not selected", pod: mt.MakePod("p").Label("app", "db").Spread(model.TopologySpreadConstraint{
			MaxSkew: 2, TopologyKey: zone, WhenUnsatisfiable: model.DoNotSchedule,
			LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj(),
			want: []framework.RejectedDomains{{Key: zone, Domains: map[string]struct{}{"z1": {}}, Decisive: true}}},
		{name: "with a hostname constraint: not decisive", pod: mt.MakePod("p").Label("app", "web").
			Spread(spread(zone, 2, model.DoNotSchedule)).Spread(spread(host, 1, model.DoNotSchedule)).Obj(),
			want: []framework.RejectedDomains{{Key: zone, Domains: map[string]struct{}{"z1": {}}}}},
		{name: "hostname only: nothing", pod: mt.MakePod("p").Label("app", "web").Spread(spread(host, 1, model.DoNotSchedule)).Obj()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
			state := newState()
			if _, st := pl.PreFilter(t.Context(), state, tc.pod, nodes); !st.IsSuccess() {
				t.Fatalf("PreFilter = %v", st)
			}
			got := pl.RejectedDomains(state)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("RejectedDomains (-want +got):\n%s", diff)
			}
			// Every node of a reported domain, and every node lacking
			// the key, fails Filter.
			for _, r := range got {
				for _, ni := range nodes {
					d, ok := ni.Node().Labels[r.Key]
					_, rejected := r.Domains[d]
					if (!ok || rejected) && pl.Filter(t.Context(), state, tc.pod, ni).IsSuccess() {
						t.Errorf("%s (%s=%q) passes Filter", ni.Name(), r.Key, d)
					}
					if ok && !rejected && r.Decisive && !pl.Filter(t.Context(), state, tc.pod, ni).IsSuccess() {
						t.Errorf("%s (%s=%q) fails Filter, though decisive", ni.Name(), r.Key, d)
					}
				}
			}
		})
	}
}
