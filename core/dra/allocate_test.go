package dra_test

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

// placeInOrder allocates each pending pod's claims on the first node (by
// name) where they all fit, recording the allocations, and returns per pod
// "node: driver/pool/device ..." or "unschedulable". It is the allocation
// half of a scheduling run without scoring: on testdata where at most one
// node fits each pod, its answers are kube-scheduler's.
func placeInOrder(t *testing.T, c *manifest.Cluster) map[string][]string {
	t.Helper()
	ctx := t.Context()
	objs, cache := c.Devices, dra.NewCELCache()
	nodes := make([]*corev1.Node, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	got := map[string][]string{}
	for _, p := range c.Pods {
		if p.NodeName != "" || len(p.ResourceClaims) == 0 {
			continue
		}
		claims := podClaimObjects(t, objs, p)
		a, err := dra.NewAllocator(ctx, objs, dra.AllocatedState(allClaims(objs)), cache, nil, dra.Shortcuts{}, claims)
		if err != nil {
			t.Fatal(err)
		}
		got[p.Key()] = []string{"unschedulable"}
		for _, n := range nodes {
			res, ok, err := a.Allocate(ctx, n)
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Key(), n.Name, err)
			}
			if !ok {
				continue
			}
			line := []string{n.Name}
			for i, c := range claims {
				alloc := res[i]
				for _, r := range alloc.Devices.Results {
					line = append(line, r.Driver+"/"+r.Pool+"/"+r.Device)
				}
				done := c.DeepCopy()
				done.Status.Allocation = &alloc
				objs.Claims[dra.Key(c.Namespace, c.Name)] = done
			}
			got[p.Key()] = line
			break
		}
	}
	return got
}

func podClaimObjects(t *testing.T, objs *dra.Objects, p *model.Pod) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, rc := range p.ResourceClaims {
		c, ok := objs.Claims[dra.Key(p.Namespace, rc.ClaimName)]
		if !ok {
			t.Fatalf("%s: no claim %s", p.Key(), rc.ClaimName)
		}
		out = append(out, c)
	}
	return out
}

func allClaims(objs *dra.Objects) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, c := range objs.Claims {
		out = append(out, c)
	}
	return out
}

// The outcomes of scenario dra-01 (kube-scheduler v1.36.4 through
// kubeoracle): class and request CEL selectors over string, bool, version
// attributes and capacities, defaulted counts, a device taken by an
// earlier pod.
func TestAllocateAttributesAndCEL(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/dra-01-attributes-cel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"default/p-big-ecc":    {"n2", "gpu.example.com/n2/gpu-0"},
		"default/p-a100":       {"n1", "gpu.example.com/n1/gpu-0"},
		"default/p-new-driver": {"n3", "gpu.example.com/n3/gpu-1"},
		"default/p-ecc":        {"unschedulable"},
	}
	if diff := cmp.Diff(want, placeInOrder(t, c)); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
}
