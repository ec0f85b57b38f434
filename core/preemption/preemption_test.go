package preemption_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/preemption"
)

func node(name string, milliCPU int64) *model.Node {
	return mt.MakeNode(name).Capacity(mt.Res(milliCPU, 64*mt.Gi)).Obj()
}

// running is a bound pod requesting milliCPU, started at t0 - age.
func running(name, nodeName string, prio int32, milliCPU int64, age time.Duration) *mt.PodBuilder {
	return mt.MakePod(name).Node(nodeName).Priority(prio).Req(mt.Res(milliCPU, 0)).Started(t0.Add(-age))
}

func preemptor(prio int32, milliCPU int64) *mt.PodBuilder {
	return mt.MakePod("preemptor").Priority(prio).Req(mt.Res(milliCPU, 0))
}

func defaultOptions() preemption.Options {
	return preemption.Options{PluginName: "DefaultPreemption", MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, Deterministic: true}
}

// outcome is what a Preempt call did.
type outcome struct {
	Node      string // nominated node; "-" when no result
	Code      framework.Code
	Message   string
	Decisions []string
}

func preempt(t *testing.T, c *cluster, pod *model.Pod, opts preemption.Options) outcome {
	t.Helper()
	state, m := c.filter(t, pod)
	res, st := preemption.New(c.fwk, opts).Preempt(context.Background(), state, pod, m)
	out := outcome{Node: "-", Code: st.Code(), Message: st.Message(), Decisions: c.sink.log}
	if res != nil {
		out.Node = res.NominatedNodeName
	}
	return out
}

// placementMessage is kube 1.37's message of a successful preemption on
// node, counting the victims among the decisions.
func placementMessage(node string, decisions []string) string {
	n := 0
	for _, d := range decisions {
		if strings.HasPrefix(d, "evict ") {
			n++
		}
	}
	return fmt.Sprintf("found a potential placement for pod on node %s, preempting %d victims", node, n)
}

func evicted(victim, node string) string {
	return "evict default/" + victim + " from " + node + " for default/preemptor: Preempted by pod default/preemptor on node " + node
}

func TestPreempt(t *testing.T) {
	hour := time.Hour
	tests := []struct {
		name string
		spec clusterSpec
		pod  *model.Pod
		opts *preemption.Options
		want outcome
	}{
		{
			name: "basic: the low-priority pod is evicted and the pod nominated",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{running("low", "n1", 1, 2000, hour).Obj()}},
			pod:  preemptor(10, 1000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("low", "n1")}},
		},
		{
			name: "pods of equal or higher priority are never victims",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000), node("n2", 2000)}, pods: []*model.Pod{
				running("same", "n1", 10, 2000, hour).Obj(),
				running("higher", "n2", 11, 2000, hour).Obj(),
			}},
			pod: preemptor(10, 1000).Obj(),
			want: outcome{Node: "", Code: framework.Unschedulable,
				Message: "0/2 nodes are available: 2 No preemption victims found for incoming pod."},
		},
		{
			name: "preemptionPolicy Never: not eligible, the nomination stays",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{running("low", "n1", 1, 2000, hour).Obj()}},
			pod:  preemptor(10, 1000).PreemptionPolicy(model.PreemptNever).Obj(),
			want: outcome{Node: "-", Code: framework.Unschedulable, Message: preemption.MsgPolicyNever},
		},
		{
			name: "a pod nominated where a lower-priority pod is terminating by preemption waits",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("dying", "n1", 1, 1000, hour).Terminating().Preempted().Obj(),
				running("low", "n1", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Nominated("n1").Obj(),
			want: outcome{Node: "-", Code: framework.Unschedulable, Message: preemption.MsgTerminatingVictim},
		},
		{
			name: "a pod terminating for another reason does not make it wait",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("dying", "n1", 1, 1000, hour).Terminating().Obj(),
				running("low", "n1", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Nominated("n1").Obj(),
			want: outcome{Node: "n1", Message: "found a potential placement for pod on node n1, preempting 2 victims", Decisions: []string{evicted("low", "n1")}},
		},
		{
			name: "a preempted pod that is not terminating does not make it wait",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("marked", "n1", 1, 1000, hour).Preempted().Obj(),
				running("low", "n1", 1, 1000, 2*hour).Obj(),
			}},
			pod:  preemptor(10, 1000).Nominated("n1").Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("marked", "n1")}},
		},
		{
			name: "a nominated node now unresolvable: preempts again elsewhere",
			spec: clusterSpec{nodes: []*model.Node{
				mt.MakeNode("n1").Capacity(mt.Res(2000, 64*mt.Gi)).Taint("k", "v", model.TaintEffectNoSchedule).Obj(), node("n2", 2000),
			}, pods: []*model.Pod{
				running("dying", "n1", 1, 1000, hour).Terminating().Preempted().Obj(),
				running("low", "n2", 1, 2000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Nominated("n1").Obj(),
			want: outcome{Node: "n2", Decisions: []string{evicted("low", "n2")}},
		},
		{
			name: "a terminating pod of higher priority does not make the pod wait",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("dying", "n1", 20, 1000, hour).Terminating().Preempted().Obj(),
				running("low", "n1", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 1000).Nominated("n1").Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("low", "n1")}},
		},
		{
			name: "a terminating victim counts but is not evicted twice",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("dying", "n1", 1, 1000, hour).Terminating().Obj(),
				running("low", "n1", 2, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Obj(),
			want: outcome{Node: "n1", Message: "found a potential placement for pod on node n1, preempting 2 victims", Decisions: []string{evicted("low", "n1")}},
		},
		{
			name: "no unnecessary preemption: only as many pods as needed, least important first",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 4000)}, pods: []*model.Pod{
				running("p4", "n1", 4, 1000, hour).Obj(),
				running("p1", "n1", 1, 1000, hour).Obj(),
				running("p3", "n1", 3, 1000, hour).Obj(),
				running("p2", "n1", 2, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("p2", "n1"), evicted("p1", "n1")}},
		},
		{
			name: "equal priority: the pod that started last goes first",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("old", "n1", 1, 1000, 2*hour).Obj(),
				running("new", "n1", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 1000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("new", "n1")}},
		},
		{
			name: "PDB best effort: a pod its budget protects is reprieved when another can go",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("guarded", "n1", 1, 1000, hour).Label("app", "db").Obj(),
				running("free", "n1", 5, 1000, hour).Obj(),
			}, pdbs: []framework.PDBStatus{budget("db", 0)}},
			pod:  preemptor(10, 1000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("free", "n1")}},
		},
		{
			name: "PDB best effort: violated when there is no other choice",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("guarded", "n1", 1, 1000, hour).Label("app", "db").Obj(),
				running("free", "n1", 5, 1000, hour).Obj(),
			}, pdbs: []framework.PDBStatus{budget("db", 0)}},
			pod:  preemptor(10, 2000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{evicted("free", "n1"), evicted("guarded", "n1")}},
		},
		{
			name: "nodes where preemption cannot help are not dry-run",
			spec: clusterSpec{nodes: []*model.Node{
				node("n1", 2000), node("small", 500),
				mt.MakeNode("tainted").Capacity(mt.Res(2000, 64*mt.Gi)).Taint("k", "v", model.TaintEffectNoSchedule).Obj(),
			}, pods: []*model.Pod{running("same", "n1", 10, 2000, hour).Obj()}},
			pod: preemptor(10, 1000).Obj(),
			want: outcome{Node: "", Code: framework.Unschedulable,
				Message: "0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."},
		},
		{
			name: "required affinity to a lower-priority pod: no candidate, it would be removed",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000)}, pods: []*model.Pod{
				running("db", "n1", 1, 2000, hour).Label("app", "db").Obj(),
			}},
			pod: preemptor(10, 1000).PodAffinity(0, model.PodAffinityTerm{
				LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: model.LabelHostname,
			}).Obj(),
			want: outcome{Node: "", Code: framework.Unschedulable,
				Message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules."},
		},
		{
			name: "lower-priority pods nominated to the node lose their nomination",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 3000)}, pods: []*model.Pod{
				running("low", "n1", 1, 2000, hour).Obj(),
			}, nominated: []*model.Pod{
				mt.MakePod("nom-low").Priority(5).Req(mt.Res(100, 0)).Nominated("n1").Obj(),
				mt.MakePod("nom-high").Priority(50).Req(mt.Res(1000, 0)).Nominated("n1").Obj(),
			}},
			pod: preemptor(10, 1000).Obj(),
			want: outcome{Node: "n1", Decisions: []string{
				evicted("low", "n1"),
				"clear default/nom-low: node n1 was taken by preemptor default/preemptor of higher priority",
			}},
		},
		{
			name: "a higher-priority nominated pod's reservation is respected in the dry run",
			spec: clusterSpec{nodes: []*model.Node{node("n1", 2000), node("n2", 2000)}, pods: []*model.Pod{
				running("low1", "n1", 1, 2000, hour).Obj(),
				running("low2", "n2", 2, 2000, hour).Obj(),
			}, nominated: []*model.Pod{
				mt.MakePod("reserved").Priority(50).Req(mt.Res(1500, 0)).Nominated("n1").Obj(),
			}},
			pod:  preemptor(10, 1000).Obj(),
			want: outcome{Node: "n2", Decisions: []string{evicted("low2", "n2")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, tc.spec)
			opts := defaultOptions()
			if tc.opts != nil {
				opts = *tc.opts
			}
			want := tc.want
			if want.Code == framework.Success && want.Message == "" {
				want.Message = placementMessage(want.Node, want.Decisions)
			}
			if diff := cmp.Diff(want, preempt(t, c, tc.pod, opts)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestNodeChoice checks each of kube's criteria, in order, on candidates
// tied on the previous ones.
func TestNodeChoice(t *testing.T) {
	hour := time.Hour
	const minPrio = math.MinInt32
	tests := []struct {
		name string
		spec clusterSpec
		pod  *model.Pod
		want string
	}{
		{
			name: "fewest PDB violations beats lower victim priority",
			spec: clusterSpec{nodes: []*model.Node{node("a", 1000), node("b", 1000)}, pods: []*model.Pod{
				running("a1", "a", 1, 1000, hour).Label("app", "db").Obj(),
				running("b1", "b", 5, 1000, hour).Obj(),
			}, pdbs: []framework.PDBStatus{budget("db", 0)}},
			pod:  preemptor(10, 1000).Obj(),
			want: "b",
		},
		{
			name: "lowest highest-victim priority",
			spec: clusterSpec{nodes: []*model.Node{node("a", 2000), node("b", 2000)}, pods: []*model.Pod{
				running("a1", "a", 5, 1000, hour).Obj(), running("a2", "a", 1, 1000, hour).Obj(),
				running("b1", "b", 3, 1000, hour).Obj(), running("b2", "b", 3, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Obj(),
			want: "b",
		},
		{
			name: "smallest priority sum, shifted so that negative priorities add up",
			spec: clusterSpec{nodes: []*model.Node{node("a", 2000), node("b", 2000)}, pods: []*model.Pod{
				running("a1", "a", -5, 1000, hour).Obj(), running("a2", "a", -5, 1000, hour).Obj(),
				running("b1", "b", -5, 2000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Obj(),
			want: "b",
		},
		{
			name: "fewest victims when the shifted sums tie",
			spec: clusterSpec{nodes: []*model.Node{node("a", 2000), node("b", 2000)}, pods: []*model.Pod{
				running("a1", "a", minPrio, 1000, hour).Obj(), running("a2", "a", minPrio, 1000, hour).Obj(),
				running("b1", "b", minPrio, 2000, hour).Obj(),
			}},
			pod:  preemptor(10, 2000).Obj(),
			want: "b",
		},
		{
			name: "latest start time among the highest-priority victims",
			spec: clusterSpec{nodes: []*model.Node{node("a", 1000), node("b", 1000)}, pods: []*model.Pod{
				running("a1", "a", 1, 1000, 2*hour).Obj(),
				running("b1", "b", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 1000).Obj(),
			want: "b",
		},
		{
			// On a, p1 exceeds "db" and is charged to "tier" too, which
			// leaves no room for p2: a's victim p2 violates "tier", so b
			// wins although its victim started earlier.
			name: "a pod is charged to every budget covering it",
			spec: clusterSpec{nodes: []*model.Node{node("a", 2000), node("b", 1000)}, pods: []*model.Pod{
				running("p1", "a", 2, 1000, hour).Label("app", "db").Label("tier", "t").Obj(),
				running("p2", "a", 1, 1000, hour).Label("tier", "t").Obj(),
				running("b1", "b", 1, 1000, 2*hour).Obj(),
			}, pdbs: []framework.PDBStatus{
				pdbOver("db", &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, 0),
				pdbOver("tier", &model.LabelSelector{MatchLabels: map[string]string{"tier": "t"}}, 1),
			}},
			pod:  preemptor(10, 1000).Obj(),
			want: "b",
		},
		{
			name: "then the smallest node name",
			spec: clusterSpec{nodes: []*model.Node{node("b", 1000), node("a", 1000)}, pods: []*model.Pod{
				running("b1", "b", 1, 1000, hour).Obj(),
				running("a1", "a", 1, 1000, hour).Obj(),
			}},
			pod:  preemptor(10, 1000).Obj(),
			want: "a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := preempt(t, newCluster(t, tc.spec), tc.pod, defaultOptions())
			if got.Node != tc.want {
				t.Errorf("nominated %q (%v %s), want %q", got.Node, got.Code, got.Message, tc.want)
			}
		})
	}
}

// TestCandidateSampling checks that the dry run stops once it has enough
// candidates, counting from the offset.
func TestCandidateSampling(t *testing.T) {
	hour := time.Hour
	// Every node is a candidate; the best victim (lowest priority) is on e.
	spec := clusterSpec{nodes: []*model.Node{node("a", 1000), node("b", 1000), node("c", 1000), node("d", 1000), node("e", 1000)}, pods: []*model.Pod{
		running("a1", "a", 5, 1000, hour).Obj(), running("b1", "b", 4, 1000, hour).Obj(),
		running("c1", "c", 3, 1000, hour).Obj(), running("d1", "d", 2, 1000, hour).Obj(),
		running("e1", "e", 1, 1000, hour).Obj(),
	}}
	tests := []struct {
		name string
		opts preemption.Options
		want string
	}{
		{name: "enough candidates: every node", opts: defaultOptions(), want: "e"},
		{name: "two candidates from the first node when deterministic",
			opts: preemption.Options{MinCandidateNodesAbsolute: 2, Deterministic: true}, want: "b"},
		{name: "two candidates from the offset",
			opts: preemption.Options{MinCandidateNodesAbsolute: 2, Offset: func(n int) int { return 2 }}, want: "d"},
		{name: "the offset wraps around",
			opts: preemption.Options{MinCandidateNodesAbsolute: 2, Offset: func(n int) int { return 4 }}, want: "e"},
		{name: "percentage: 40% of 5 nodes",
			opts: preemption.Options{MinCandidateNodesPercentage: 40, Offset: func(n int) int { return 1 }}, want: "c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := preempt(t, newCluster(t, spec), preemptor(10, 1000).Obj(), tc.opts)
			if got.Node != tc.want {
				t.Errorf("nominated %q (%s), want %q", got.Node, got.Message, tc.want)
			}
		})
	}
}

// TestCandidateSamplingWantsABudgetRespectingOne: candidates violating a
// budget do not end the dry run early.
func TestCandidateSamplingWantsABudgetRespectingOne(t *testing.T) {
	hour := time.Hour
	spec := clusterSpec{nodes: []*model.Node{node("a", 1000), node("b", 1000), node("c", 1000)}, pods: []*model.Pod{
		running("a1", "a", 1, 1000, hour).Label("app", "db").Obj(),
		running("b1", "b", 1, 1000, hour).Label("app", "db").Obj(),
		running("c1", "c", 5, 1000, hour).Obj(),
	}, pdbs: []framework.PDBStatus{budget("db", 0)}}
	got := preempt(t, newCluster(t, spec), preemptor(10, 1000).Obj(), preemption.Options{MinCandidateNodesAbsolute: 1, Deterministic: true})
	if got.Node != "c" {
		t.Errorf("nominated %q (%s), want c", got.Node, got.Message)
	}
}

// TestParallelDryRun: with 16 workers and more nodes than candidates
// wanted, the choice is still one of the best possible.
func TestParallelDryRun(t *testing.T) {
	spec := clusterSpec{parallelism: 16}
	for i := range 300 {
		name := "n" + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + string(rune('0'+i/676))
		spec.nodes = append(spec.nodes, node(name, 1000))
		spec.pods = append(spec.pods, running("p-"+name, name, 1, 1000, time.Hour).Obj())
	}
	got := preempt(t, newCluster(t, spec), preemptor(10, 1000).Obj(), preemption.Options{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, Deterministic: true})
	if got.Code != framework.Success || len(got.Decisions) != 1 {
		t.Fatalf("got %+v, want one eviction", got)
	}
}

// pdbOver returns a budget named name over the pods sel matches, allowing
// n disruptions, with the given pods already disrupted.
func pdbOver(name string, sel *model.LabelSelector, n int32, disrupted ...string) framework.PDBStatus {
	pdb := &model.PodDisruptionBudget{Namespace: "default", Name: name, Selector: sel}
	for _, p := range disrupted {
		if pdb.DisruptedPods == nil {
			pdb.DisruptedPods = map[string]time.Time{}
		}
		pdb.DisruptedPods[p] = t0.Add(-time.Minute)
	}
	return framework.PDBStatus{PDB: pdb, Selector: sel.MustCompile(), DisruptionsAllowed: n}
}

// TestBudgets checks how victims are charged to disruption budgets: a pod
// whose eviction exceeds a budget is reprieved before the others, so the
// victims tell which pods were taken as violating.
func TestBudgets(t *testing.T) {
	hour := time.Hour
	labels := func(kv ...string) *model.LabelSelector {
		ls := &model.LabelSelector{MatchLabels: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			ls.MatchLabels[kv[i]] = kv[i+1]
		}
		return ls
	}
	// guarded (priority 1) is covered by the budgets under test; free
	// (priority 5) by none. The preemptor needs one of them gone: free
	// goes when guarded's eviction is taken as violating, guarded (the
	// less important) otherwise.
	guardedAndFree := []*model.Pod{
		running("guarded", "n1", 1, 1000, hour).Label("app", "db").Label("tier", "t").Obj(),
		running("free", "n1", 5, 1000, hour).Obj(),
	}
	tests := []struct {
		name string
		pods []*model.Pod
		pdbs []framework.PDBStatus
		want []string
	}{
		{
			name: "an exhausted budget protects its pod",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{pdbOver("db", labels("app", "db"), 0)},
			want: []string{evicted("free", "n1")},
		},
		{
			name: "a budget with room does not",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{pdbOver("db", labels("app", "db"), 1)},
			want: []string{evicted("guarded", "n1")},
		},
		{
			name: "a pod the budget lists as disrupted is not charged again",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{pdbOver("db", labels("app", "db"), 0, "guarded")},
			want: []string{evicted("guarded", "n1")},
		},
		{
			name: "disrupted pods are matched by name only in the budget that lists them",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{
				pdbOver("db", labels("app", "db"), 0, "guarded"),
				pdbOver("tier", labels("tier", "t"), 0),
			},
			want: []string{evicted("free", "n1")},
		},
		{
			name: "an empty selector covers no pod",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{pdbOver("all", labels(), 0)},
			want: []string{evicted("guarded", "n1")},
		},
		{
			name: "a budget of another namespace does not apply",
			pods: guardedAndFree,
			pdbs: []framework.PDBStatus{func() framework.PDBStatus {
				b := pdbOver("db", labels("app", "db"), 0)
				b.PDB.Namespace = "other"
				return b
			}()},
			want: []string{evicted("guarded", "n1")},
		},
		{
			name: "each pod charged counts the allowance down",
			pods: []*model.Pod{
				running("p1", "n1", 1, 1000, hour).Label("app", "db").Obj(),
				running("p2", "n1", 2, 1000, hour).Label("app", "db").Obj(),
				running("free", "n1", 3, 1000, hour).Obj(),
			},
			// p2 (more important) is charged first and fits the allowance;
			// p1 exceeds it and is reprieved first.
			pdbs: []framework.PDBStatus{pdbOver("db", labels("app", "db"), 1)},
			want: []string{evicted("free", "n1"), evicted("p2", "n1")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, clusterSpec{nodes: []*model.Node{node("n1", 1000*int64(len(tc.pods)))}, pods: tc.pods, pdbs: tc.pdbs})
			need := int64(1000 * (len(tc.want)))
			got := preempt(t, c, preemptor(10, need).Obj(), defaultOptions())
			if diff := cmp.Diff(tc.want, got.Decisions); diff != "" {
				t.Errorf("evictions (-want +got):\n%s", diff)
			}
		})
	}
}
