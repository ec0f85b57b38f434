package noderesources

import (
	"math"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// scoreFormula is how a resourceScorer turns per-resource figures into a
// node score.
type scoreFormula int

const (
	leastAllocated scoreFormula = iota
	mostAllocated
	requestedToCapacityRatio
	balancedAllocation
)

// maxUtilization is a full node in RequestedToCapacityRatio terms.
const maxUtilization = 100

// inlineResources is how many resources a score is computed for without
// allocating.
const inlineResources = 8

// resourceScorer scores a node from the configured resources: for each,
// the node's allocatable, what is already requested there, and what the
// pod adds.
type resourceScorer struct {
	formula   scoreFormula
	resources []ResourceSpec
	// scalar marks resources counted as scalars (extended resources,
	// hugepages, ...); other names besides cpu, memory and
	// ephemeral-storage never count.
	scalar []bool
	// useRequested scores cpu and memory with the exact requests instead of
	// the non-zero defaults for containers that request none.
	useRequested bool
	shape        []shapePoint // requestedToCapacityRatio only
}

// shapePoint is a point of the RequestedToCapacityRatio function with the
// score already scaled to 0..MaxNodeScore.
type shapePoint struct {
	utilization, score int64
}

func newResourceScorer(formula scoreFormula, resources []ResourceSpec, useRequested bool) resourceScorer {
	s := resourceScorer{formula: formula, resources: resources, useRequested: useRequested, scalar: make([]bool, len(resources))}
	for i, r := range resources {
		s.scalar[i] = helper.IsScalarResourceName(r.Name)
	}
	return s
}

func newShape(points []UtilizationShapePoint) []shapePoint {
	out := make([]shapePoint, len(points))
	for i, p := range points {
		out[i] = shapePoint{utilization: int64(p.Utilization), score: int64(p.Score) * (framework.MaxNodeScore / MaxCustomPriorityScore)}
	}
	return out
}

// podRequests returns what the pod requests of each resource, overhead
// included; cpu and memory get the non-zero defaults unless useRequested.
func (s *resourceScorer) podRequests(pod *model.Pod) []int64 {
	req := model.ComputeRequests(pod)
	out := make([]int64, len(s.resources))
	for i, r := range s.resources {
		switch {
		case req.FitScore != nil && !s.useRequested:
			out[i] = req.FitScore.Get(r.Name)
		case r.Name == model.ResourceCPU && !s.useRequested:
			out[i] = req.NonZeroMilliCPU
		case r.Name == model.ResourceMemory && !s.useRequested:
			out[i] = req.NonZeroMemory
		default:
			out[i] = req.Requests.Get(r.Name)
		}
	}
	return out
}

// nodeResource returns the node's allocatable amount of resource i and
// the amount its pods request; 0, 0 when the resource does not count.
func (s *resourceScorer) nodeResource(ni *framework.NodeInfo, i int) (allocatable, allocated int64) {
	requested := &ni.NonZeroRequested
	if s.useRequested {
		requested = &ni.Requested
	}
	switch name := s.resources[i].Name; name {
	case model.ResourceCPU:
		return ni.Allocatable.MilliCPU, requested.MilliCPU
	case model.ResourceMemory:
		return ni.Allocatable.Memory, requested.Memory
	case model.ResourceEphemeralStorage:
		return ni.Allocatable.EphemeralStorage, ni.Requested.EphemeralStorage
	default:
		if !s.scalar[i] {
			return 0, 0
		}
		if alloc, ok := ni.Allocatable.Scalar[name]; ok {
			return alloc, ni.Requested.Scalar[name]
		}
		return 0, 0
	}
}

// score scores the node for a pod with the given podRequests.
func (s *resourceScorer) score(ni *framework.NodeInfo, podRequests []int64) int64 {
	n := len(s.resources)
	var inline [3 * inlineResources]int64
	var buf []int64
	if n <= inlineResources {
		buf = inline[:3*n]
	} else {
		buf = make([]int64, 3*n)
	}
	requested, allocated, allocatable := buf[:n], buf[n:2*n], buf[2*n:]
	for i := range n {
		// An extended resource the pod does not ask for, or one the node
		// does not have, takes no part in the score.
		if podRequests[i] == 0 && s.scalar[i] {
			continue
		}
		alloc, used := s.nodeResource(ni, i)
		if alloc == 0 {
			continue
		}
		allocatable[i], allocated[i], requested[i] = alloc, used, used+podRequests[i]
	}
	switch s.formula {
	case leastAllocated:
		return s.weighted(requested, allocatable, leastRequestedScore)
	case mostAllocated:
		return s.weighted(requested, allocatable, mostRequestedScore)
	case requestedToCapacityRatio:
		return s.ratioScore(requested, allocatable)
	default:
		return balancedScore(requested, allocated, allocatable)
	}
}

// weighted averages per-resource scores by weight, with integer division.
func (s *resourceScorer) weighted(requested, allocatable []int64, resourceScore func(requested, capacity int64) int64) int64 {
	var sum, weights int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		w := s.resources[i].Weight
		sum += resourceScore(requested[i], allocatable[i]) * w
		weights += w
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// leastRequestedScore is the unused share of capacity on 0..100; 0 when
// the requests exceed it.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// mostRequestedScore is the used share of capacity on 0..100, capped at
// 100 (defaults for pods without requests can exceed capacity).
func mostRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	return min(requested, capacity) * framework.MaxNodeScore / capacity
}

// ratioScore is the RequestedToCapacityRatio score: the shape applied to
// each resource's utilization, averaged by weight over the resources that
// score above 0, rounded to the nearest integer.
func (s *resourceScorer) ratioScore(requested, allocatable []int64) int64 {
	var sum, weights int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		utilization := int64(maxUtilization)
		if requested[i] <= allocatable[i] {
			utilization = requested[i] * maxUtilization / allocatable[i]
		}
		if score := shapeAt(s.shape, utilization); score > 0 {
			w := s.resources[i].Weight
			sum += score * w
			weights += w
		}
	}
	if weights == 0 {
		return 0
	}
	return int64(math.Round(float64(sum) / float64(weights)))
}

// shapeAt evaluates the piecewise linear shape at utilization p: the first
// point's score below it, the last point's above it, linear in between
// (integer arithmetic).
func shapeAt(shape []shapePoint, p int64) int64 {
	for i, pt := range shape {
		if p <= pt.utilization {
			if i == 0 {
				return pt.score
			}
			prev := shape[i-1]
			return prev.score + (pt.score-prev.score)*(p-prev.utilization)/(pt.utilization-prev.utilization)
		}
	}
	return shape[len(shape)-1].score
}

// balancedScore scores how the pod changes the node's balance: the
// balance with the pod against the balance without it, mapped to 50..100
// (75 when unchanged).
func balancedScore(requested, allocated, allocatable []int64) int64 {
	with := balance(requested, allocatable)
	without := balance(allocated, allocatable)
	return framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+with-without)/2
}

// balance is (1 - standard deviation of the used fractions) on 0..100,
// truncated; fractions are capped at 1 and resources the node lacks are
// left out. The arithmetic follows kube-scheduler's exactly so the
// truncation agrees.
func balance(used, allocatable []int64) int64 {
	var n int
	var total, f0, f1 float64
	for i := range used {
		if allocatable[i] == 0 {
			continue
		}
		f := fraction(used[i], allocatable[i])
		switch n {
		case 0:
			f0 = f
		case 1:
			f1 = f
		}
		total += f
		n++
	}
	var std float64
	switch {
	case n == 2:
		std = math.Abs((f0 - f1) / 2)
	case n > 2:
		mean := total / float64(n)
		var sum float64
		for i := range used {
			if allocatable[i] == 0 {
				continue
			}
			d := fraction(used[i], allocatable[i]) - mean
			sum += float64(d * d) // the conversion forbids a fused multiply-add
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

func fraction(used, allocatable int64) float64 {
	return min(float64(used)/float64(allocatable), 1)
}
