package dra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/model"
)

// The devices in use the tracker keeps between attempts (added to on
// Assume, made anew after other changes) are, after every step of random
// pod lifecycles, those of its claims.
func TestInUseFollowsTheClaims(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			tr := NewTracker()
			tr.SetClass(gpuClass())
			nodes := []string{"n1", "n2"}
			for _, n := range nodes {
				tr.SetSlice(modelSlice(n+"-gpus", n, "a", "a", "a"))
			}
			var pods []*model.Pod
			for i := range 12 {
				p := &model.Pod{Namespace: "default", Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("uid-%d", i),
					ResourceClaims: []model.PodResourceClaim{{Name: "g", ClaimName: fmt.Sprintf("c%d", i)}}}
				pods = append(pods, p)
				if _, err := tr.SetClaim(modelClaim(fmt.Sprintf("c%d", i), 1+int64(i%2), modelIs("a"))); err != nil {
					t.Fatal(err)
				}
			}
			check := func(step string) {
				t.Helper()
				tr.mu.Lock()
				got, want := tr.inUseLocked().AllocatedDevices.UnsortedList(), AllocatedState(tr.claimsLocked()).AllocatedDevices
				tr.mu.Unlock()
				if len(got) != want.Len() || !want.HasAll(got...) {
					t.Fatalf("%s: in use %v, the claims take %v", step, got, want.UnsortedList())
				}
			}
			for step := range 200 {
				p := pods[r.IntN(len(pods))]
				var what string
				switch r.IntN(6) {
				case 0, 1:
					what = "assume " + p.Name
					claims, err := tr.PodClaims(p)
					if err != nil || claims[0].Status.Allocation != nil {
						continue
					}
					a, err := tr.NewAllocator(context.Background(), claims)
					if err != nil {
						t.Fatal(err)
					}
					node := nodes[r.IntN(len(nodes))]
					res, ok, err := a.Allocate(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
					if err != nil || !ok {
						continue
					}
					_ = tr.Assume(p, claims, res)
				case 2:
					what = "commit " + p.Name
					tr.Commit(p)
				case 3:
					what = "forget " + p.Name
					tr.Forget(p)
				case 4:
					what = "remove " + p.Name
					tr.RemovePod(p)
				case 5:
					what = "deallocate " + p.Name
					tr.Deallocate("default", p.ResourceClaims[0].ClaimName, p.UID)
				}
				check(fmt.Sprintf("step %d (%s)", step, what))
			}
		})
	}
}

// An update of a claim that keeps its allocation keeps the devices in
// use; one that changes it makes them anew.
func TestInUseAfterClaimUpdates(t *testing.T) {
	tr := NewTracker()
	c := modelClaim("c", 1, modelIs("a"))
	tr.SetClaim(c)
	done := c.DeepCopy()
	done.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{Request: "r0", Driver: testDriver, Pool: "n1", Device: "gpu-0"}}}}
	tr.SetClaim(done)
	ids := func() []string {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		var out []string
		for id := range tr.inUseLocked().AllocatedDevices {
			out = append(out, id.String())
		}
		return out
	}
	if diff := cmp.Diff([]string{testDriver + "/n1/gpu-0"}, ids()); diff != "" {
		t.Errorf("after the allocation (-want +got):\n%s", diff)
	}
	again := done.DeepCopy()
	again.Labels = map[string]string{"x": "y"}
	tr.SetClaim(again)
	if diff := cmp.Diff([]string{testDriver + "/n1/gpu-0"}, ids()); diff != "" {
		t.Errorf("after a label change (-want +got):\n%s", diff)
	}
	tr.DeleteClaim("default", "c")
	if got := ids(); len(got) != 0 {
		t.Errorf("after the delete: %v", got)
	}
}
