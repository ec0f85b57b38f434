package model

import (
	"math"
	"testing"
)

func TestAddSaturates(t *testing.T) {
	tests := []struct {
		name string
		a, b int64
		want int64
	}{
		{name: "small", a: 2, b: 3, want: 5},
		{name: "negative", a: -2, b: 3, want: 1},
		{name: "max plus one", a: math.MaxInt64, b: 1, want: math.MaxInt64},
		{name: "two huge requests", a: math.MaxInt64, b: math.MaxInt64 - 999_998, want: math.MaxInt64},
		{name: "two capped totals", a: MaxAmount, b: MaxAmount, want: math.MaxInt64},
		{name: "min minus one", a: math.MinInt64, b: -1, want: math.MinInt64},
		{name: "opposite signs never overflow", a: math.MaxInt64, b: math.MinInt64, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AddAmounts(tt.a, tt.b); got != tt.want {
				t.Errorf("AddAmounts(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			r := Resources{MilliCPU: tt.a, Scalar: map[string]int64{"example.com/gpu": tt.a}}
			r.Add(&Resources{MilliCPU: tt.b, Scalar: map[string]int64{"example.com/gpu": tt.b}})
			if r.MilliCPU != tt.want || r.Scalar["example.com/gpu"] != tt.want {
				t.Errorf("Add: cpu %d, gpu %d; want %d", r.MilliCPU, r.Scalar["example.com/gpu"], tt.want)
			}
		})
	}
	// A pod whose container requests would wrap around keeps a huge
	// request instead of a negative one.
	p := &Pod{Containers: []Container{
		{Name: "a", Requests: ResourceList{ResourceCPU: math.MaxInt64}},
		{Name: "b", Requests: ResourceList{ResourceCPU: math.MaxInt64 - 999_998}},
	}}
	if got := ComputeRequests(p).Requests.MilliCPU; got != math.MaxInt64 {
		t.Errorf("ComputeRequests: cpu %d, want %d", got, int64(math.MaxInt64))
	}
}

func TestCheckResourceName(t *testing.T) {
	for name, ok := range map[string]bool{
		"cpu": true, "memory": true, "ephemeral-storage": true, "pods": true, "storage": true,
		"hugepages-2Mi": true, "example.com/gpu": true, "gpu": false, "nvidia.com": false,
	} {
		if err := CheckResourceName(name); (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", name, err, ok)
		}
	}
}
