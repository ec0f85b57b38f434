package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// refCache is a deliberately naive model of the cache for the property test.
type refCache struct {
	nodes map[string]*model.Node
	// seq orders the nodes of a zone; zoneSeq orders zones by when they
	// last went from empty to non-empty.
	seq     map[string]int
	zoneSeq map[string]int
	nextSeq int
	pods    map[string]refPod
}

type refPod struct {
	pod     *model.Pod
	assumed bool
}

// order lists nodes zone-interleaved, computed differently from nodeTree:
// rank each node by (position within its zone, rank of its zone).
func (r *refCache) order() []string {
	byZone := map[string][]string{}
	for name, n := range r.nodes {
		z := zoneKey(n)
		byZone[z] = append(byZone[z], name)
	}
	type ranked struct {
		name      string
		pos, zone int
	}
	var all []ranked
	for z, names := range byZone {
		slices.SortFunc(names, func(a, b string) int { return r.seq[a] - r.seq[b] })
		for i, n := range names {
			all = append(all, ranked{n, i, r.zoneSeq[z]})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return a.zone - b.zone
	})
	out := make([]string, 0, len(all))
	for _, r := range all {
		out = append(out, r.name)
	}
	return out
}

func (r *refCache) zoneHasNodes(z string) bool {
	for _, n := range r.nodes {
		if zoneKey(n) == z {
			return true
		}
	}
	return false
}

func (r *refCache) view() snapView {
	var v snapView
	for _, name := range r.order() {
		nv := nodeView{Name: name}
		hasAff, hasAnti := false, false
		for _, rp := range r.pods {
			if rp.pod.NodeName != name {
				continue
			}
			pi := framework.MustPodInfo(rp.pod)
			nv.Pods = append(nv.Pods, rp.pod.Key())
			if rp.pod.HasPodAffinityConstraints() {
				nv.WithAffinity = append(nv.WithAffinity, rp.pod.Key())
				hasAff = true
			}
			if len(pi.RequiredAntiAffinityTerms) > 0 {
				nv.WithRequiredAnti = append(nv.WithRequiredAnti, rp.pod.Key())
				hasAnti = true
			}
			nv.MilliCPU += pi.Requests.Requests.MilliCPU
			nv.Memory += pi.Requests.Requests.Memory
			nv.NonZeroMilliCPU += pi.Requests.NonZeroMilliCPU
			nv.NonZeroMemory += pi.Requests.NonZeroMemory
		}
		slices.Sort(nv.Pods)
		slices.Sort(nv.WithAffinity)
		slices.Sort(nv.WithRequiredAnti)
		v.Nodes = append(v.Nodes, nv)
		if hasAff {
			v.WithAffinity = append(v.WithAffinity, name)
		}
		if hasAnti {
			v.WithRequiredAnti = append(v.WithRequiredAnti, name)
		}
	}
	return v
}

func TestCacheProperty(t *testing.T) {
	zones := []string{"a", "b", "c", ""}
	for seed := uint64(1); seed <= 25; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			c := New()
			ref := &refCache{nodes: map[string]*model.Node{}, seq: map[string]int{}, zoneSeq: map[string]int{}, pods: map[string]refPod{}}
			incremental := NewEmptySnapshot()
			nodeName := func() string { return fmt.Sprint("n", rng.IntN(8)) }
			makePod := func() *model.Pod {
				b := mt.MakePod(fmt.Sprint("p", rng.IntN(24))).Req(mt.Res(int64(rng.IntN(4))*100, int64(rng.IntN(3))*mt.Gi))
				switch rng.IntN(4) {
				case 0:
					b.PodAntiAffinity(0, antiTerm)
				case 1:
					b.PodAffinity(5, antiTerm)
				}
				return b.Obj()
			}
			for step := 0; step < 300; step++ {
				var desc string
				var err error
				wantErr := false
				switch op := rng.IntN(9); op {
				case 0, 1: // add or update a node
					b := mt.MakeNode(nodeName())
					if z := zones[rng.IntN(len(zones))]; z != "" {
						b.Zone(z)
					}
					n := b.Obj()
					desc = "add node " + n.Name + " zone " + n.Labels[model.LabelZone]
					c.AddNode(n)
					if old, ok := ref.nodes[n.Name]; !ok || zoneKey(old) != zoneKey(n) {
						delete(ref.nodes, n.Name)
						if !ref.zoneHasNodes(zoneKey(n)) {
							ref.zoneSeq[zoneKey(n)] = ref.nextSeq
						}
						ref.seq[n.Name] = ref.nextSeq
						ref.nextSeq++
					}
					ref.nodes[n.Name] = n
				case 2: // remove a node
					name := nodeName()
					desc = "remove node " + name
					err = c.RemoveNode(name)
					_, ok := ref.nodes[name]
					wantErr = !ok
					delete(ref.nodes, name)
				case 3, 4: // add a bound pod
					p := bound(makePod(), nodeName())
					desc = "add pod " + p.Name + " on " + p.NodeName
					err = c.AddPod(p)
					cur, ok := ref.pods[p.UID]
					wantErr = ok && !cur.assumed
					if !wantErr {
						ref.pods[p.UID] = refPod{pod: p}
					}
				case 5: // assume a pod
					p := bound(makePod(), nodeName())
					desc = "assume pod " + p.Name + " on " + p.NodeName
					err = c.AssumePod(framework.MustPodInfo(p))
					_, wantErr = ref.pods[p.UID]
					if !wantErr {
						ref.pods[p.UID] = refPod{pod: p, assumed: true}
					}
				case 6: // forget
					p := makePod()
					cur, ok := ref.pods[p.UID]
					if ok {
						p = cur.pod
					}
					desc = "forget pod " + p.Name
					err = c.ForgetPod(p)
					wantErr = ok && !cur.assumed
					if ok && cur.assumed {
						delete(ref.pods, p.UID)
					}
				case 7: // remove
					p := makePod()
					desc = "remove pod " + p.Name
					err = c.RemovePod(p)
					_, ok := ref.pods[p.UID]
					wantErr = !ok
					delete(ref.pods, p.UID)
				case 8: // update a bound pod, maybe moving it
					p := makePod()
					cur, ok := ref.pods[p.UID]
					node := nodeName()
					if ok && rng.IntN(2) == 0 {
						node = cur.pod.NodeName
					}
					p = bound(p, node)
					desc = "update pod " + p.Name + " on " + node
					err = c.UpdatePod(p)
					wantErr = !ok || cur.assumed
					if !wantErr {
						ref.pods[p.UID] = refPod{pod: p}
					}
				}
				if (err != nil) != wantErr {
					t.Fatalf("step %d %s: err = %v, want error %v", step, desc, err, wantErr)
				}
				if rng.IntN(3) != 0 {
					continue
				}
				if err := c.UpdateSnapshot(incremental); err != nil {
					t.Fatalf("step %d %s: %v", step, desc, err)
				}
				fresh := NewEmptySnapshot()
				if err := c.UpdateSnapshot(fresh); err != nil {
					t.Fatal(err)
				}
				got := viewSnapshot(incremental)
				if diff := cmp.Diff(viewSnapshot(fresh), got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("step %d %s: incremental vs fresh snapshot (-fresh +incremental):\n%s", step, desc, diff)
				}
				if diff := cmp.Diff(ref.view(), got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("step %d %s: snapshot vs reference (-ref +snapshot):\n%s", step, desc, diff)
				}
				assumed := 0
				for _, rp := range ref.pods {
					if rp.assumed {
						assumed++
					}
				}
				if diff := cmp.Diff(Counts{Nodes: len(ref.nodes), Pods: len(ref.pods), AssumedPods: assumed}, c.Counts()); diff != "" {
					t.Fatalf("step %d %s: counts (-ref +cache):\n%s", step, desc, diff)
				}
			}
		})
	}
}
