package decisionlog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
)

// nodeReasonsBySorting is the straightforward nodeReasons (the one before
// grouping): every node's reasons built and sorted by name, grouped by a
// string key, picked round by round.
func nodeReasonsBySorting(fitErr *framework.FitError, maxNodes int) ([]*berthv1.NodeReasons, int) {
	if fitErr == nil || fitErr.Diagnosis.NodeToStatus == nil {
		return nil, 0
	}
	m := fitErr.Diagnosis.NodeToStatus
	nodes := m.Nodes()
	all := make([]*berthv1.NodeReasons, 0, len(nodes))
	for _, n := range nodes {
		st := m.Get(n)
		all = append(all, &berthv1.NodeReasons{
			Node: n, Reasons: st.Reasons(), Unresolvable: st.Code() == framework.UnschedulableAndUnresolvable,
		})
	}
	if len(all) <= maxNodes {
		return all, 0
	}
	type group struct{ nodes []*berthv1.NodeReasons }
	byKey := map[string]*group{}
	var groups []*group
	for _, nr := range all {
		k := fmt.Sprint(nr.Unresolvable)
		for _, r := range nr.Reasons {
			k += "\x00" + r
		}
		g := byKey[k]
		if g == nil {
			g = &group{}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.nodes = append(g.nodes, nr)
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].nodes) < len(groups[j].nodes) })
	picked := make([]*berthv1.NodeReasons, 0, maxNodes)
	for round := 0; len(picked) < maxNodes; round++ {
		for _, g := range groups {
			if round < len(g.nodes) && len(picked) < maxNodes {
				picked = append(picked, g.nodes[round])
			}
		}
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Node < picked[j].Node })
	return picked, len(all) - len(picked)
}

// TestNodeReasonsMatchesSorting compares nodeReasons with the
// straightforward implementation on random diagnoses: few or many
// distinct rejections, shared and equal statuses, error statuses, reason
// lists that join alike, clusters smaller and larger than the bound.
func TestNodeReasonsMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	reasonSets := [][]string{
		{"Insufficient cpu"}, {"Insufficient memory"}, {"Insufficient cpu", "Insufficient memory"},
		{"node(s) had untolerated taint {a: b}"}, {}, {"a\x00b"}, {"a", "b"}, {""},
	}
	for i := range 400 {
		n := rng.IntN(400)
		if i%10 == 0 {
			n = rng.IntN(5)
		}
		maxNodes := rng.IntN(120)
		distinct := 1 + rng.IntN(len(reasonSets)*2)
		pool := make([]*framework.Status, distinct)
		for j := range pool {
			code := framework.Unschedulable
			if rng.IntN(3) == 0 {
				code = framework.UnschedulableAndUnresolvable
			}
			if rng.IntN(8) == 0 {
				pool[j] = framework.AsStatus(errors.New("boom"))
				continue
			}
			pool[j] = framework.NewStatus(code, reasonSets[rng.IntN(len(reasonSets))]...)
		}
		m := framework.NewNodeToStatus()
		for k := range n {
			name := fmt.Sprintf("node-%05d", rng.IntN(n*3+1))
			if k%7 == 0 {
				name = fmt.Sprintf("n%d", k)
			}
			st := pool[rng.IntN(len(pool))]
			if rng.IntN(2) == 0 { // an equal status of its own
				st = framework.NewStatus(st.Code(), st.Reasons()...)
			}
			m.Set(name, st)
		}
		fitErr := &framework.FitError{NumAllNodes: n, Diagnosis: framework.Diagnosis{NodeToStatus: m}}
		t.Run(fmt.Sprintf("%d_nodes%d_max%d_distinct%d", i, m.Len(), maxNodes, distinct), func(t *testing.T) {
			want, wantOmitted := nodeReasonsBySorting(fitErr, maxNodes)
			got, gotOmitted := nodeReasons(fitErr, maxNodes)
			if gotOmitted != wantOmitted {
				t.Fatalf("omitted: got %d, want %d", gotOmitted, wantOmitted)
			}
			wantB, _ := encode(&berthv1.Decision{Action: &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{NodeReasons: want}}})
			gotB, _ := encode(&berthv1.Decision{Action: &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{NodeReasons: got}}})
			if string(gotB) != string(wantB) {
				t.Fatalf("node reasons differ:\ngot  %v\nwant %v", got, want)
			}
			if len(got) != len(want) || len(got) > 0 && !proto.Equal(got[0], want[0]) {
				t.Fatalf("node reasons differ")
			}
		})
	}
	if nr, omitted := nodeReasons(nil, 10); nr != nil || omitted != 0 {
		t.Fatalf("nil fit error: got %v, %d", nr, omitted)
	}
}

// BenchmarkNodeReasons: one preemptor's diagnosis at 5000 nodes, every
// node rejected alike (the preemption workload).
func BenchmarkNodeReasons(b *testing.B) {
	m := framework.NewNodeToStatus()
	for i := range 5000 {
		m.Set(fmt.Sprintf("node-%05d", i), framework.NewStatus(framework.Unschedulable, "Insufficient cpu", "Insufficient memory"))
	}
	fitErr := &framework.FitError{NumAllNodes: 5000, Diagnosis: framework.Diagnosis{NodeToStatus: m}}
	for _, impl := range []struct {
		name string
		f    func(*framework.FitError, int) ([]*berthv1.NodeReasons, int)
	}{{"grouped", nodeReasons}, {"sorted", nodeReasonsBySorting}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f(fitErr, DefaultMaxNodeReasons)
			}
		})
	}
}
