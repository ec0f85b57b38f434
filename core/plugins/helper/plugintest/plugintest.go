package plugintest

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/priority"
)

// Handle is a framework.Handle for plugin tests. Only the methods given
// here work; any other panics (the embedded interface is nil).
type Handle struct {
	framework.Handle
	Sink framework.Planner
}

// Decisions returns Sink.
func (h *Handle) Decisions() framework.Planner { return h.Sink }

// Cluster is the state of a cluster read from Kubernetes YAML.
type Cluster struct {
	// Nodes in file order, with their running pods.
	Nodes []*framework.NodeInfo
	// Pending pods in queue order: priority descending, then creation time,
	// then file order, as the oracle schedules them.
	Pending []*model.Pod
	// Args are the pluginConfig args of the file's KubeSchedulerConfiguration
	// (first profile), if it has one.
	Args Args

	bound map[string]bool // pending pods Bind placed, by UID
}

// Load reads a cluster from a YAML file.
func Load(t testing.TB, path string) *Cluster {
	t.Helper()
	mc, err := manifest.LoadFiles(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	classes := priority.NewClasses()
	for _, pc := range mc.PriorityClasses {
		if err := classes.Set(pc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	c := &Cluster{}
	for _, n := range mc.Nodes {
		c.Nodes = append(c.Nodes, framework.NewNodeInfo(n))
	}
	for _, p := range mc.Pods {
		if err := classes.Admit(p); err != nil {
			t.Fatalf("%s: pod %s: %v", path, p.Key(), err)
		}
		if p.NodeName == "" {
			c.Pending = append(c.Pending, p)
			continue
		}
		ni := c.Node(p.NodeName)
		if ni == nil {
			t.Fatalf("%s: pod %s runs on unknown node %s", path, p.Key(), p.NodeName)
		}
		ni.AddPodInfo(framework.MustPodInfo(p))
	}
	if len(mc.SchedulerConfig) > 0 {
		c.Args = pluginArgs(t, mc.SchedulerConfig)
	}
	slices.SortStableFunc(c.Pending, func(a, b *model.Pod) int {
		if a.Priority != b.Priority {
			return cmp.Compare(b.Priority, a.Priority)
		}
		return a.CreationTime.Compare(b.CreationTime)
	})
	return c
}

// pluginArgs reads the args of the plugins that take some from a
// KubeSchedulerConfiguration document.
func pluginArgs(t testing.TB, doc []byte) Args {
	t.Helper()
	var cfg struct {
		Profiles []struct {
			PluginConfig []struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"pluginConfig"`
		} `json:"profiles"`
	}
	if err := yaml.Unmarshal(doc, &cfg); err != nil {
		t.Fatalf("scheduler config: %v", err)
	}
	var out Args
	if len(cfg.Profiles) == 0 {
		return out
	}
	for _, pc := range cfg.Profiles[0].PluginConfig {
		switch pc.Name {
		case noderesources.Name:
			out.NodeResourcesFit = string(pc.Args)
		case noderesources.BalancedAllocationName:
			out.NodeResourcesBalancedAllocation = string(pc.Args)
		case nodeaffinity.Name:
			out.NodeAffinity = string(pc.Args)
		default:
			t.Fatalf("scheduler config: args for %s are not supported here", pc.Name)
		}
	}
	return out
}

// Node returns the named node, nil if unknown.
func (c *Cluster) Node(name string) *framework.NodeInfo {
	for _, ni := range c.Nodes {
		if ni.Name() == name {
			return ni
		}
	}
	return nil
}

// Bind places a pending pod on a node, as the oracle did.
func (c *Cluster) Bind(t testing.TB, pod *model.Pod, nodeName string) {
	t.Helper()
	ni := c.Node(nodeName)
	if ni == nil {
		t.Fatalf("bind %s: unknown node %s", pod.Key(), nodeName)
	}
	bound := *pod
	bound.NodeName = nodeName
	ni.AddPodInfo(framework.MustPodInfo(&bound))
	if c.bound == nil {
		c.bound = map[string]bool{}
	}
	c.bound[pod.UID] = true
}

// NominationsMatter reports whether the oracle's outcome for pod depends on
// nominations, which plugin replays leave out: pod is nominated itself (the
// oracle tried its nominated node alone), or a pending pod of at least its
// priority, not bound yet, is nominated to a node (the oracle filtered with
// it there).
func (c *Cluster) NominationsMatter(pod *model.Pod) bool {
	if pod.NominatedNodeName != "" {
		return true
	}
	for _, p := range c.Pending {
		if p.UID != pod.UID && p.NominatedNodeName != "" && !c.bound[p.UID] && p.Priority >= pod.Priority {
			return true
		}
	}
	return false
}

// Weighted is a score plugin with its profile weight.
type Weighted struct {
	Plugin framework.ScorePlugin
	Weight int64
}

// Outcome is what the plugins made of one pod, in the terms of the
// oracle's trace.
type Outcome struct {
	// Feasible nodes, sorted.
	Feasible []string
	// Reasons of the nodes Filter rejected, or of every node when a
	// PreFilter rejected the pod. Nodes a PreFilterResult left out are not
	// listed (the oracle does not list them either).
	Reasons map[string][]string
	// Unresolvable lists the nodes among Reasons whose code is
	// UnschedulableAndUnresolvable, sorted; like the oracle, only when no
	// node is feasible.
	Unresolvable []string
	// Scores maps plugin -> node -> normalized score times weight, over the
	// feasible nodes; a plugin whose PreScore skipped is absent.
	Scores map[string]map[string]int64
}

// Run runs the plugins for pod over the cluster. filters run in the order
// given (kube's order), PreFilter first for those that have one; the
// score plugins then score the feasible nodes.
func Run(t testing.TB, c *Cluster, pod *model.Pod, filters []framework.Plugin, scores []Weighted) Outcome {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	out := Outcome{}
	reject := func(node string, st *framework.Status) {
		if out.Reasons == nil {
			out.Reasons = map[string][]string{}
		}
		out.Reasons[node] = st.Reasons()
		if st.Code() == framework.UnschedulableAndUnresolvable {
			out.Unresolvable = append(out.Unresolvable, node)
		}
	}
	skipped := map[string]bool{}
	var narrowed *framework.PreFilterResult
	for _, pl := range filters {
		pf, ok := pl.(framework.PreFilterPlugin)
		if !ok {
			continue
		}
		r, st := pf.PreFilter(ctx, state, pod, c.Nodes)
		switch {
		case st.IsSkip():
			skipped[pl.Name()] = true
		case st.IsRejected():
			for _, ni := range c.Nodes {
				reject(ni.Name(), st)
			}
			slices.Sort(out.Unresolvable)
			return out
		case !st.IsSuccess():
			t.Fatalf("%s PreFilter: %v", pl.Name(), st)
		}
		narrowed = narrowed.Merge(r)
	}
	var feasible []*framework.NodeInfo
	for _, ni := range c.Nodes {
		if !narrowed.AllNodes() {
			if _, ok := narrowed.NodeNames[ni.Name()]; !ok {
				continue
			}
		}
		if st := filter(ctx, t, state, pod, ni, filters, skipped); !st.IsSuccess() {
			reject(ni.Name(), st)
			continue
		}
		feasible = append(feasible, ni)
		out.Feasible = append(out.Feasible, ni.Name())
	}
	slices.Sort(out.Feasible)
	slices.Sort(out.Unresolvable)
	if len(feasible) == 0 {
		return out
	}
	out.Unresolvable = nil
	for _, w := range scores {
		s := score(ctx, t, state, pod, feasible, w)
		if s == nil {
			continue
		}
		if out.Scores == nil {
			out.Scores = map[string]map[string]int64{}
		}
		out.Scores[w.Plugin.Name()] = s
	}
	return out
}

// score runs one score plugin over the feasible nodes; nil when its
// PreScore skipped.
func score(ctx context.Context, t testing.TB, state *framework.CycleState, pod *model.Pod, feasible []*framework.NodeInfo, w Weighted) map[string]int64 {
	t.Helper()
	pl := w.Plugin
	if ps, ok := pl.(framework.PreScorePlugin); ok {
		st := ps.PreScore(ctx, state, pod, feasible)
		if st.IsSkip() {
			return nil
		}
		if !st.IsSuccess() {
			t.Fatalf("%s PreScore: %v", pl.Name(), st)
		}
	}
	list := make(framework.NodeScoreList, len(feasible))
	for i, ni := range feasible {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			t.Fatalf("%s Score on %s: %v", pl.Name(), ni.Name(), st)
		}
		list[i] = framework.NodeScore{Name: ni.Name(), Score: s}
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
			t.Fatalf("%s NormalizeScore: %v", pl.Name(), st)
		}
	}
	out := make(map[string]int64, len(list))
	for _, s := range list {
		out[s.Name] = s.Score * w.Weight
	}
	return out
}

// Step is a pending pod and what the oracle made of it.
type Step struct {
	Pod string // namespace/name
	// Node is where the oracle bound the pod, "" when it stayed pending.
	Node string
	Want Outcome
}

// Replay runs the steps in order, one subtest each: the pod of each step
// must be the next pending pod; its outcome is compared with Want, then it
// is bound where the oracle bound it.
func Replay(t *testing.T, c *Cluster, steps []Step, filters []framework.Plugin, scores []Weighted) {
	t.Helper()
	next := 0
	for _, step := range steps {
		i := slices.IndexFunc(c.Pending, func(p *model.Pod) bool { return p.Key() == step.Pod })
		if i < next {
			t.Fatalf("step %s: not a pending pod after the previous step's", step.Pod)
		}
		next = i + 1
		pod := c.Pending[i]
		t.Run(step.Pod, func(t *testing.T) {
			got := Run(t, c, pod, filters, scores)
			if diff := gocmp.Diff(step.Want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("outcome (-oracle +got):\n%s", diff)
			}
		})
		if step.Node != "" {
			c.Bind(t, pod, step.Node)
		}
	}
}

func filter(ctx context.Context, t testing.TB, state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo, filters []framework.Plugin, skipped map[string]bool) *framework.Status {
	t.Helper()
	for _, pl := range filters {
		f, ok := pl.(framework.FilterPlugin)
		if !ok || skipped[pl.Name()] {
			continue
		}
		st := f.Filter(ctx, state, pod, ni)
		if st.Code() == framework.Error {
			t.Fatalf("%s Filter on %s: %v", pl.Name(), ni.Name(), st)
		}
		if !st.IsSuccess() {
			return st
		}
	}
	return nil
}

// New builds a plugin with a factory and raw args, failing the test on
// error.
func New[T framework.Plugin](t testing.TB, factory framework.PluginFactory, args string, h framework.Handle) T {
	t.Helper()
	var raw []byte
	if args != "" {
		raw = []byte(args)
	}
	pl, err := factory(context.Background(), raw, h)
	if err != nil {
		t.Fatalf("factory: %v", err)
	}
	typed, ok := pl.(T)
	if !ok {
		t.Fatalf("factory returned %T", pl)
	}
	return typed
}
