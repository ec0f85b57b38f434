package plugintest

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
)

// Lister serves a fixed list of NodeInfos; tests may change them in place.
type Lister struct{ Nodes []*framework.NodeInfo }

// List returns every node.
func (l *Lister) List() []*framework.NodeInfo { return l.Nodes }

// NumNodes returns the number of nodes.
func (l *Lister) NumNodes() int { return len(l.Nodes) }

// HavePodsWithAffinityList returns the nodes running pods with affinity.
func (l *Lister) HavePodsWithAffinityList() []*framework.NodeInfo {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithAffinity) > 0 })
}

// HavePodsWithRequiredAntiAffinityList returns the nodes running pods with
// required anti-affinity.
func (l *Lister) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	return l.filter(func(ni *framework.NodeInfo) bool { return len(ni.PodsWithRequiredAntiAffinity) > 0 })
}

func (l *Lister) filter(keep func(*framework.NodeInfo) bool) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, ni := range l.Nodes {
		if keep(ni) {
			out = append(out, ni)
		}
	}
	return out
}

// Get returns the named node.
func (l *Lister) Get(name string) (*framework.NodeInfo, error) {
	for _, ni := range l.Nodes {
		if ni.Name() == name {
			return ni, nil
		}
	}
	return nil, fmt.Errorf("no node %q", name)
}

// Namespaces maps namespace names to their labels.
type Namespaces map[string]map[string]string

// NamespaceLabels returns the labels of the named namespace.
func (n Namespaces) NamespaceLabels(name string) (map[string]string, bool) {
	l, ok := n[name]
	return l, ok
}

// NamespacesMatching returns the sorted names of the namespaces sel
// matches.
func (n Namespaces) NamespacesMatching(sel model.Selector) []string {
	var out []string
	for name, l := range n {
		if sel.Matches(l) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// ListerHandle is the part of framework.Handle the affinity and spread
// plugins use: the snapshot, the namespaces, a parallelizer and whether
// the run is deterministic. Any other method panics.
type ListerHandle struct {
	framework.Handle
	Lister *Lister
	NS     Namespaces
	Par    framework.Parallelizer
	// Replayable is what Deterministic reports.
	Replayable bool
}

// Deterministic returns Replayable.
func (h *ListerHandle) Deterministic() bool { return h.Replayable }

// SnapshotSharedLister returns Lister.
func (h *ListerHandle) SnapshotSharedLister() framework.NodeInfoLister { return h.Lister }

// Namespaces returns NS.
func (h *ListerHandle) Namespaces() framework.NamespaceLister { return h.NS }

// Parallelizer returns Par.
func (h *ListerHandle) Parallelizer() framework.Parallelizer { return h.Par }

// IncrementalIndexes is true: the plugins' indexes need a snapshot with a
// journal (framework.NodeJournal), which Lister is not, so they walk the
// nodes as without them.
func (h *ListerHandle) IncrementalIndexes() bool { return true }

// NewListerHandle serves nodes and ns with the default parallelism.
func NewListerHandle(nodes []*framework.NodeInfo, ns Namespaces) *ListerHandle {
	return &ListerHandle{Lister: &Lister{Nodes: nodes}, NS: ns, Par: framework.NewParallelizer(framework.DefaultParallelism)}
}

// LoadWithHandle reads a cluster from a YAML file, with a handle over its
// nodes and namespaces.
func LoadWithHandle(t testing.TB, path string) (*Cluster, *ListerHandle) {
	t.Helper()
	c := Load(t, path)
	mc, err := manifest.LoadFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	ns := Namespaces{}
	for _, n := range mc.Namespaces {
		ns[n.Name] = n.Labels
	}
	return c, NewListerHandle(c.Nodes, ns)
}

// FullProfile is kube-scheduler's default profile as far as Berth has
// filter and score plugins: Profile's plugins with PodTopologySpread and
// InterPodAffinity added in kube's order, each with weight 2.
func FullProfile(t testing.TB, c *Cluster, h framework.Handle, ipaArgs, ptsArgs string) ([]framework.Plugin, []Weighted) {
	t.Helper()
	filters, scorers := Profile(t, c.Args)
	spread := New[*podtopologyspread.PodTopologySpread](t, podtopologyspread.New, ptsArgs, h)
	affinity := New[*interpodaffinity.InterPodAffinity](t, interpodaffinity.New, ipaArgs, h)
	filters = append(slices.Clone(filters), spread, affinity)
	scorers = append(slices.Clone(scorers), Weighted{Plugin: spread, Weight: 2}, Weighted{Plugin: affinity, Weight: 2})
	return filters, scorers
}
