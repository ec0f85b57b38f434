package model

import (
	"fmt"
	"maps"
	"math"
	"strings"
)

// Well-known resource names. Anything else is an extended (scalar) resource
// counted as an integer, e.g. "example.com/gpu" or "hugepages-2Mi".
const (
	ResourceCPU              = "cpu"               // millicores
	ResourceMemory           = "memory"            // bytes
	ResourceEphemeralStorage = "ephemeral-storage" // bytes
	ResourcePods             = "pods"              // count
	// ResourceHugePagesPrefix starts the names of huge page resources
	// ("hugepages-2Mi"), counted in bytes.
	ResourceHugePagesPrefix = "hugepages-"
)

// Defaults the scheduler assumes for containers that request no cpu or memory
// when it spreads load (scoring only; filtering uses the real requests).
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// ResourceList maps resource names to canonical amounts. A missing key and a
// zero value differ: a container that does not mention cpu gets the scoring
// default, one that asks for 0 does not.
type ResourceList map[string]int64

// Resources is the dense form of a ResourceList used in arithmetic on the hot
// path: the four well-known resources are fields, the rest live in Scalar.
type Resources struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	Pods             int64
	Scalar           map[string]int64
}

// ResourcesFromList converts a ResourceList into dense form.
func ResourcesFromList(l ResourceList) Resources {
	var r Resources
	for name, v := range l {
		r.Set(name, v)
	}
	return r
}

// Get returns the amount of the named resource.
func (r *Resources) Get(name string) int64 {
	switch name {
	case ResourceCPU:
		return r.MilliCPU
	case ResourceMemory:
		return r.Memory
	case ResourceEphemeralStorage:
		return r.EphemeralStorage
	case ResourcePods:
		return r.Pods
	default:
		return r.Scalar[name]
	}
}

// Set stores the amount of the named resource.
func (r *Resources) Set(name string, v int64) {
	switch name {
	case ResourceCPU:
		r.MilliCPU = v
	case ResourceMemory:
		r.Memory = v
	case ResourceEphemeralStorage:
		r.EphemeralStorage = v
	case ResourcePods:
		r.Pods = v
	default:
		if r.Scalar == nil {
			r.Scalar = make(map[string]int64, 1)
		}
		r.Scalar[name] = v
	}
}

// Add adds o to r in place. Sums saturate at the int64 bounds instead of
// wrapping around: the server caps every amount and every pod's total at
// MaxAmount, so a sum only gets near the bounds on a node holding a huge
// number of huge pods, and then a saturated sum keeps the node full rather
// than making it look empty.
func (r *Resources) Add(o *Resources) {
	r.MilliCPU = AddAmounts(r.MilliCPU, o.MilliCPU)
	r.Memory = AddAmounts(r.Memory, o.Memory)
	r.EphemeralStorage = AddAmounts(r.EphemeralStorage, o.EphemeralStorage)
	r.Pods = AddAmounts(r.Pods, o.Pods)
	for name, v := range o.Scalar {
		r.Set(name, AddAmounts(r.Scalar[name], v))
	}
}

// MaxAmount is the largest amount of one resource the server accepts, in
// one field or in the total of a pod's requests (2^62: 4.6e18 millicores
// or bytes), so that adding two accepted amounts cannot overflow int64.
const MaxAmount int64 = 1 << 62

// AddAmounts returns a+b, saturated at math.MaxInt64 and math.MinInt64
// instead of wrapping around.
func AddAmounts(a, b int64) int64 {
	s := a + b
	if (s^a)&(s^b) < 0 { // the sign of both operands differs from the sum's
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return s
}

// Sub subtracts o from r in place.
func (r *Resources) Sub(o *Resources) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	r.Pods -= o.Pods
	for name, v := range o.Scalar {
		r.Set(name, r.Scalar[name]-v)
	}
}

// Max raises every resource of r to at least the amount in o.
func (r *Resources) Max(o *Resources) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	r.Pods = max(r.Pods, o.Pods)
	for name, v := range o.Scalar {
		if cur, ok := r.Scalar[name]; !ok || v > cur {
			r.Set(name, v)
		}
	}
}

// Clone returns a deep copy.
func (r Resources) Clone() Resources {
	r.Scalar = maps.Clone(r.Scalar)
	return r
}

// IsZero reports whether every amount is zero.
func (r *Resources) IsZero() bool {
	if r.MilliCPU != 0 || r.Memory != 0 || r.EphemeralStorage != 0 || r.Pods != 0 {
		return false
	}
	for _, v := range r.Scalar {
		if v != 0 {
			return false
		}
	}
	return true
}

// CheckResourceName returns the refusal of a resource name that is not
// standard (cpu, memory, ephemeral-storage, pods, storage, hugepages-*)
// and is not qualified with a domain, as the Kubernetes API refuses it;
// nil for a name that needs no domain or has one. The wire's validation
// (server/convert) and the manifests' (core/manifest) both refuse with it.
func CheckResourceName(name string) error {
	if strings.Contains(name, "/") || strings.HasPrefix(name, "hugepages-") {
		return nil
	}
	switch name {
	case ResourceCPU, ResourceMemory, ResourceEphemeralStorage, ResourcePods, "storage":
		return nil
	}
	return fmt.Errorf("unknown resource name %q: a resource that is not standard (cpu, memory, ephemeral-storage, pods, hugepages-*) must be qualified with a domain, for example example.com/%s", name, name)
}
