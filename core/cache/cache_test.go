package cache

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

var antiTerm = model.PodAffinityTerm{LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: model.LabelHostname}

func TestCachePodLifecycle(t *testing.T) {
	n1 := mt.MakeNode("n1").Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	n2 := mt.MakeNode("n2").Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	web := mt.MakePod("web").Req(mt.Res(500, mt.Gi)).Obj()
	noReq := mt.MakePod("noreq").Req(nil).Obj()
	anti := mt.MakePod("anti").Req(mt.Res(100, mt.Mi)).PodAntiAffinity(0, antiTerm).Obj()

	type step struct {
		name    string
		do      func(c *Cache) error
		wantErr error
	}
	tests := []struct {
		name        string
		steps       []step
		want        []nodeView
		wantAssumed []string
	}{
		{
			name: "assume counts on the node",
			steps: []step{
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }},
			},
			want: []nodeView{
				{Name: "n1", Pods: []string{"default/web"}, MilliCPU: 500, Memory: mt.Gi, NonZeroMilliCPU: 500, NonZeroMemory: mt.Gi},
				{Name: "n2"},
			},
			wantAssumed: []string{"uid-web"},
		},
		{
			name: "add of the bound pod confirms",
			steps: []step{
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }},
				{name: "confirm", do: func(c *Cache) error { return c.AddPod(bound(web, "n1")) }},
			},
			want: []nodeView{
				{Name: "n1", Pods: []string{"default/web"}, MilliCPU: 500, Memory: mt.Gi, NonZeroMilliCPU: 500, NonZeroMemory: mt.Gi},
				{Name: "n2"},
			},
		},
		{
			name: "confirmation on another node moves the pod",
			steps: []step{
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }},
				{name: "confirm", do: func(c *Cache) error { return c.AddPod(bound(web, "n2")) }},
			},
			want: []nodeView{
				{Name: "n1"},
				{Name: "n2", Pods: []string{"default/web"}, MilliCPU: 500, Memory: mt.Gi, NonZeroMilliCPU: 500, NonZeroMemory: mt.Gi},
			},
		},
		{
			name: "forget frees the node",
			steps: []step{
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }},
				{name: "forget", do: func(c *Cache) error { return c.ForgetPod(bound(web, "n1")) }},
				{name: "forget again", do: func(c *Cache) error { return c.ForgetPod(bound(web, "n1")) }},
			},
			want: []nodeView{{Name: "n1"}, {Name: "n2"}},
		},
		{
			name: "non-zero defaults and affinity lists",
			steps: []step{
				{name: "add noreq", do: func(c *Cache) error { return c.AddPod(bound(noReq, "n2")) }},
				{name: "add anti", do: func(c *Cache) error { return c.AddPod(bound(anti, "n2")) }},
			},
			want: []nodeView{
				{Name: "n1"},
				{Name: "n2", Pods: []string{"default/anti", "default/noreq"}, WithAffinity: []string{"default/anti"}, WithRequiredAnti: []string{"default/anti"},
					MilliCPU: 100, Memory: mt.Mi, NonZeroMilliCPU: 200, NonZeroMemory: mt.Mi + 200*mt.Mi},
			},
		},
		{
			name: "update replaces the pod's requests",
			steps: []step{
				{name: "add", do: func(c *Cache) error { return c.AddPod(bound(web, "n1")) }},
				{name: "update", do: func(c *Cache) error {
					return c.UpdatePod(bound(mt.MakePod("web").Req(mt.Res(1000, 2*mt.Gi)).Obj(), "n1"))
				}},
			},
			want: []nodeView{
				{Name: "n1", Pods: []string{"default/web"}, MilliCPU: 1000, Memory: 2 * mt.Gi, NonZeroMilliCPU: 1000, NonZeroMemory: 2 * mt.Gi},
				{Name: "n2"},
			},
		},
		{
			name: "an assumed pod's version is replaced, still assumed",
			steps: []step{
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }},
				{name: "update assumed", do: func(c *Cache) error {
					return c.UpdateAssumedPod(bound(mt.MakePod("web").Req(mt.Res(500, mt.Gi)).Terminating().Obj(), "n1"))
				}},
				{name: "still assumed", do: func(c *Cache) error {
					if st, _ := c.Pod("uid-web"); !st.Assumed || !st.Pod.Terminating {
						return fmt.Errorf("state %+v", st)
					}
					return nil
				}},
			},
			want: []nodeView{
				{Name: "n1", Pods: []string{"default/web"}, MilliCPU: 500, Memory: mt.Gi, NonZeroMilliCPU: 500, NonZeroMemory: mt.Gi},
				{Name: "n2"},
			},
			wantAssumed: []string{"uid-web"},
		},
		{
			name: "remove a bound pod",
			steps: []step{
				{name: "add", do: func(c *Cache) error { return c.AddPod(bound(web, "n1")) }},
				{name: "remove", do: func(c *Cache) error { return c.RemovePod(web) }},
			},
			want: []nodeView{{Name: "n1"}, {Name: "n2"}},
		},
		{
			name: "errors",
			steps: []step{
				{name: "add unbound", do: func(c *Cache) error { return c.AddPod(web) }, wantErr: ErrNotBound},
				{name: "assume unbound", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(web)) }, wantErr: ErrNotBound},
				{name: "add", do: func(c *Cache) error { return c.AddPod(bound(web, "n1")) }},
				{name: "add twice", do: func(c *Cache) error { return c.AddPod(bound(web, "n1")) }, wantErr: ErrPodExists},
				{name: "assume a bound pod", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(web, "n1"))) }, wantErr: ErrPodExists},
				{name: "forget a bound pod", do: func(c *Cache) error { return c.ForgetPod(bound(web, "n1")) }, wantErr: ErrNotAssumed},
				{name: "update unknown", do: func(c *Cache) error { return c.UpdatePod(bound(noReq, "n1")) }, wantErr: ErrPodNotFound},
				{name: "remove unknown", do: func(c *Cache) error { return c.RemovePod(noReq) }, wantErr: ErrPodNotFound},
				{name: "assume", do: func(c *Cache) error { return c.AssumePod(framework.MustPodInfo(bound(noReq, "n2"))) }},
				{name: "update assumed", do: func(c *Cache) error { return c.UpdatePod(bound(noReq, "n2")) }, wantErr: ErrAssumed},
				{name: "update a bound pod as assumed", do: func(c *Cache) error { return c.UpdateAssumedPod(bound(web, "n1")) }, wantErr: ErrNotAssumed},
				{name: "update an assumed pod on another node", do: func(c *Cache) error { return c.UpdateAssumedPod(bound(noReq, "n1")) }, wantErr: ErrNotAssumed},
				{name: "update an unknown pod as assumed", do: func(c *Cache) error { return c.UpdateAssumedPod(bound(anti, "n1")) }, wantErr: ErrPodNotFound},
				{name: "forget on the wrong node", do: func(c *Cache) error { return c.ForgetPod(bound(noReq, "n1")) }, wantErr: ErrNotAssumed},
				{name: "remove unknown node", do: func(c *Cache) error { return c.RemoveNode("n9") }, wantErr: ErrNodeNotFound},
			},
			want: []nodeView{
				{Name: "n1", Pods: []string{"default/web"}, MilliCPU: 500, Memory: mt.Gi, NonZeroMilliCPU: 500, NonZeroMemory: mt.Gi},
				{Name: "n2", Pods: []string{"default/noreq"}, NonZeroMilliCPU: 100, NonZeroMemory: 200 * mt.Mi},
			},
			wantAssumed: []string{"uid-noreq"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			c.AddNode(n1)
			c.AddNode(n2)
			for _, st := range tc.steps {
				if err := st.do(c); !errors.Is(err, st.wantErr) || (err == nil) != (st.wantErr == nil) {
					t.Fatalf("%s: err = %v, want %v", st.name, err, st.wantErr)
				}
			}
			s := NewEmptySnapshot()
			if err := c.UpdateSnapshot(s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, viewSnapshot(s).Nodes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
			var assumed []string
			for _, uid := range []string{"uid-web", "uid-noreq", "uid-anti"} {
				if c.IsAssumed(uid) {
					assumed = append(assumed, uid)
				}
			}
			if diff := cmp.Diff(tc.wantAssumed, assumed, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("assumed (-want +got):\n%s", diff)
			}
			if got := c.Counts().AssumedPods; got != len(tc.wantAssumed) {
				t.Errorf("Counts().AssumedPods = %d, want %d", got, len(tc.wantAssumed))
			}
		})
	}
}

func TestCacheNodesAndOrphanPods(t *testing.T) {
	web := mt.MakePod("web").Req(mt.Res(500, mt.Gi)).Obj()
	tests := []struct {
		name      string
		do        func(c *Cache)
		want      []string // listed nodes in order
		wantPods  map[string][]string
		wantCount Counts
	}{
		{
			name: "pod on an unknown node is kept but not listed",
			do: func(c *Cache) {
				c.AddNode(zoned("n1", "a"))
				_ = c.AddPod(bound(web, "ghost"))
			},
			want:      []string{"n1"},
			wantPods:  map[string][]string{"ghost": {"default/web"}},
			wantCount: Counts{Nodes: 1, Pods: 1},
		},
		{
			name: "the node arriving later lists the pod",
			do: func(c *Cache) {
				_ = c.AddPod(bound(web, "n1"))
				c.AddNode(zoned("n1", "a"))
			},
			want:      []string{"n1"},
			wantPods:  map[string][]string{"n1": {"default/web"}},
			wantCount: Counts{Nodes: 1, Pods: 1},
		},
		{
			name: "a deleted node with pods stays as a ghost",
			do: func(c *Cache) {
				c.AddNode(zoned("n1", "a"))
				c.AddNode(zoned("n2", "a"))
				_ = c.AddPod(bound(web, "n1"))
				_ = c.RemoveNode("n1")
			},
			want:      []string{"n2"},
			wantPods:  map[string][]string{"n1": {"default/web"}},
			wantCount: Counts{Nodes: 1, Pods: 1},
		},
		{
			name: "the ghost goes with its last pod",
			do: func(c *Cache) {
				c.AddNode(zoned("n1", "a"))
				_ = c.AddPod(bound(web, "n1"))
				_ = c.RemoveNode("n1")
				_ = c.RemovePod(web)
			},
			wantPods: map[string][]string{"n1": nil},
		},
		{
			name: "re-adding a node keeps its pods",
			do: func(c *Cache) {
				c.AddNode(zoned("n1", "a"))
				c.AddNode(zoned("n2", "a"))
				_ = c.AddPod(bound(web, "n1"))
				_ = c.RemoveNode("n1")
				c.AddNode(zoned("n1", "a"))
			},
			want:      []string{"n2", "n1"},
			wantPods:  map[string][]string{"n1": {"default/web"}},
			wantCount: Counts{Nodes: 2, Pods: 1},
		},
		{
			name: "a zone change reorders",
			do: func(c *Cache) {
				c.AddNode(zoned("a1", "a"))
				c.AddNode(zoned("a2", "a"))
				c.AddNode(zoned("b1", "b"))
				c.UpdateNode(zoned("a1", "b"))
			},
			want:      []string{"a2", "b1", "a1"},
			wantCount: Counts{Nodes: 3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			tc.do(c)
			s := NewEmptySnapshot()
			if err := c.UpdateSnapshot(s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(s.List()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			for node, want := range tc.wantPods {
				ni, ok := c.NodeInfo(node)
				var got []string
				if ok {
					got = keys(ni.Pods)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("pods on %s (-want +got):\n%s", node, diff)
				}
			}
			if diff := cmp.Diff(tc.wantCount, c.Counts()); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCachePodState(t *testing.T) {
	c := New()
	web := mt.MakePod("web").Obj()
	if _, ok := c.Pod(web.UID); ok {
		t.Fatal("unknown pod found")
	}
	_ = c.AssumePod(framework.MustPodInfo(bound(web, "n1")))
	got, _ := c.Pod(web.UID)
	if want := (PodState{Pod: got.Pod, Assumed: true}); got != want || got.Pod.NodeName != "n1" {
		t.Errorf("Pod() = %+v, want assumed on n1", got)
	}
	_ = c.AddPod(bound(web, "n1"))
	if got, _ := c.Pod(web.UID); got.Assumed {
		t.Errorf("after confirmation Pod() = %+v, want bound", got)
	}
}
