package podtopologyspread_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
)

// lister serves a fixed list of NodeInfos (changed in place by the tests).
type lister struct{ nodes []*framework.NodeInfo }

func (l *lister) List() []*framework.NodeInfo { return l.nodes }
func (l *lister) NumNodes() int               { return len(l.nodes) }

func (l *lister) HavePodsWithAffinityList() []*framework.NodeInfo {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithAffinity) > 0 })
}

func (l *lister) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithRequiredAntiAffinity) > 0 })
}

func (l *lister) filter(keep func(*framework.NodeInfo) bool) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, ni := range l.nodes {
		if keep(ni) {
			out = append(out, ni)
		}
	}
	return out
}

func (l *lister) Get(name string) (*framework.NodeInfo, error) {
	for _, ni := range l.nodes {
		if ni.Name() == name {
			return ni, nil
		}
	}
	return nil, fmt.Errorf("no node %q", name)
}

// namespaces maps namespace names to their labels.
type namespaces map[string]map[string]string

func (n namespaces) NamespaceLabels(name string) (map[string]string, bool) {
	l, ok := n[name]
	return l, ok
}

func (n namespaces) NamespacesMatching(sel model.Selector) []string {
	var out []string
	for name, l := range n {
		if sel.Matches(l) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// handle is the part of framework.Handle the plugins use.
type handle struct {
	framework.Handle
	lister *lister
	ns     namespaces
	par    framework.Parallelizer
}

func (h *handle) SnapshotSharedLister() framework.NodeInfoLister { return h.lister }
func (h *handle) Namespaces() framework.NamespaceLister          { return h.ns }
func (h *handle) Parallelizer() framework.Parallelizer           { return h.par }

func newHandle(nodes []*framework.NodeInfo, ns namespaces) *handle {
	return &handle{lister: &lister{nodes: nodes}, ns: ns, par: framework.NewParallelizer(framework.DefaultParallelism)}
}

// load reads a cluster and its namespaces from a YAML file.
func load(t testing.TB, path string) (*plugintest.Cluster, *handle) {
	t.Helper()
	c := plugintest.Load(t, path)
	mc, err := manifest.LoadFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	ns := namespaces{}
	for _, n := range mc.Namespaces {
		ns[n.Name] = n.Labels
	}
	return c, newHandle(c.Nodes, ns)
}

// profile is kube-scheduler's default profile as far as Berth has it:
// plugintest.Profile's plugins with PodTopologySpread and InterPodAffinity
// added in kube's order and with their weights.
func profile(t testing.TB, c *plugintest.Cluster, h *handle, ipaArgs, ptsArgs string) ([]framework.Plugin, []plugintest.Weighted) {
	t.Helper()
	filters, scorers := plugintest.Profile(t, c.Args)
	spread := plugintest.New[*podtopologyspread.PodTopologySpread](t, podtopologyspread.New, ptsArgs, h)
	affinity := plugintest.New[*interpodaffinity.InterPodAffinity](t, interpodaffinity.New, ipaArgs, h)
	filters = append(slices.Clone(filters), spread, affinity)
	scorers = append(slices.Clone(scorers), plugintest.Weighted{Plugin: spread, Weight: 2}, plugintest.Weighted{Plugin: affinity, Weight: 2})
	return filters, scorers
}
