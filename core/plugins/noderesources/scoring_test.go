package noderesources

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestShapeAt(t *testing.T) {
	// The doc shape {0,0},{100,10} and a four-point one, scores scaled x10.
	linear := newShape([]UtilizationShapePoint{{0, 0}, {100, 10}})
	bent := newShape([]UtilizationShapePoint{{20, 4}, {40, 0}, {80, 10}, {100, 5}})
	tests := []struct {
		shape []shapePoint
		p     int64
		want  int64
	}{
		{linear, 0, 0}, {linear, 37, 37}, {linear, 100, 100},
		{bent, 0, 40}, {bent, 20, 40}, {bent, 30, 20}, {bent, 40, 0},
		{bent, 50, 25}, {bent, 79, 97}, {bent, 90, 75}, {bent, 100, 50}, {bent, 120, 50},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%d", tc.shape, tc.p), func(t *testing.T) {
			if got := shapeAt(tc.shape, tc.p); got != tc.want {
				t.Errorf("shapeAt = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestScoreManyResources scores more resources than fit the inline
// buffers: the result must not depend on where the figures live.
func TestScoreManyResources(t *testing.T) {
	capacity := model.ResourceList{"cpu": 4000, "memory": 8 * mt.Gi}
	request := mt.Res(1000, 2*mt.Gi)
	var specs []ResourceSpec
	for i := range inlineResources + 2 {
		name := fmt.Sprintf("example.com/r%d", i)
		capacity[name] = 10
		request[name] = int64(i)
		specs = append(specs, ResourceSpec{Name: name, Weight: 1})
	}
	ni := framework.NewNodeInfo(mt.MakeNode("n").Capacity(capacity).Obj())
	pod := mt.MakePod("p").Req(request).Obj()
	// r0 is not requested and drops out; r1..r9 leave 9..1 of 10 free.
	for _, tc := range []struct {
		formula scoreFormula
		want    int64
	}{
		{leastAllocated, 50},
		{mostAllocated, 50},
	} {
		s := newResourceScorer(tc.formula, specs, false)
		if got := s.score(ni, s.podRequests(pod)); got != tc.want {
			t.Errorf("formula %d: score = %d, want %d", tc.formula, got, tc.want)
		}
	}
}

func TestBalance(t *testing.T) {
	tests := []struct {
		name        string
		used, alloc []int64
		want        int64
	}{
		{name: "one resource", used: []int64{5}, alloc: []int64{10}, want: 100},
		{name: "two resources", used: []int64{2, 6}, alloc: []int64{10, 10}, want: 80},
		{name: "capped at 1", used: []int64{20, 10}, alloc: []int64{10, 10}, want: 100},
		{name: "missing resources left out", used: []int64{2, 0, 6}, alloc: []int64{10, 0, 10}, want: 80},
		// fractions .1 .4 .7: std = sqrt(.06) = .2449..., (1 - std) * 100 = 75.5
		{name: "three resources", used: []int64{1, 4, 7}, alloc: []int64{10, 10, 10}, want: 75},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := balance(tc.used, tc.alloc); got != tc.want {
				t.Errorf("balance = %d, want %d", got, tc.want)
			}
		})
	}
}
