package convert

import "k8s.io/apimachinery/pkg/api/resource"

// Caps on the lists of an object, all in one place (README's API section
// lists them). Kubernetes' API server bounds few of these lists itself: an
// object must fit etcd's request limit (1.5 MiB by default), which keeps
// every list to some thousands of entries. Berth has no such store
// behind its objects and a request may be 16 MiB, so it bounds each list
// explicitly, well above what real objects carry, so that a hostile
// object is refused in linear time before it reaches the scheduler, whose
// filters are linear in these lists per node. Where Kubernetes has its
// own bound (device requests, selectors and constraints of a claim,
// devices of a slice) core/dra applies kube's.
const (
	// MaxLabels bounds a label map: an object's labels, a pod's
	// node_selector, a label selector's match_labels.
	MaxLabels = 1024
	// MaxResources bounds a resource map: a node's allocatable, a
	// container's requests, a pod's overhead and pod_level_requests.
	MaxResources = 128
	// MaxTaints bounds a node's taints.
	MaxTaints = 256
	// MaxContainers bounds a pod's containers, and its init_containers.
	MaxContainers = 256
	// MaxPorts bounds a container's ports.
	MaxPorts = 256
	// MaxTolerations bounds a pod's tolerations.
	MaxTolerations = 256
	// MaxSchedulingGates bounds a pod's scheduling_gates.
	MaxSchedulingGates = 256
	// MaxSpreadConstraints bounds a pod's topology_spread_constraints.
	MaxSpreadConstraints = 64
	// MaxWorkloadSelectors bounds a pod's workload_selectors.
	MaxWorkloadSelectors = 64
	// MaxTerms bounds the terms of an affinity: node affinity's required
	// node_selector_terms and its preferred terms, pod (anti-)affinity's
	// required and preferred terms, each.
	MaxTerms = 64
	// MaxRequirements bounds the match_expressions (and match_fields) of
	// a selector or a node selector term.
	MaxRequirements = 64
	// MaxValues bounds the values of one requirement (In, NotIn, Gt, Lt):
	// a node affinity listing many hostnames is common.
	MaxValues = 4096
	// MaxNamespaces bounds a pod affinity term's namespaces.
	MaxNamespaces = 256
	// MaxLabelKeys bounds match_label_keys and mismatch_label_keys.
	MaxLabelKeys = 64
	// MaxPodClaims bounds a pod's resource_claims and a container's
	// claims.
	MaxPodClaims = 128
	// MaxOwners bounds a pod runtime's owners.
	MaxOwners = 64
	// MaxAnnotationBytes bounds the keys and values of a pod runtime's
	// annotations together, as Kubernetes bounds an object's (256 KiB).
	MaxAnnotationBytes = 256 << 10
	// MaxNodeImages bounds a node's images (the kubelet reports at most
	// 50 by default, nodeStatusMaxImages), and MaxImageNames the names of
	// one image.
	MaxNodeImages = 1024
	MaxImageNames = 64
	// MaxImageNameLength bounds an image name, a node's or a container's.
	MaxImageNameLength = 4096
)

// MaxCPU bounds a cpu amount, in millicores (2^40, about a billion
// cores): a pod or node beyond it describes no machine, and sums of such
// amounts would only saturate. Other amounts are bounded by
// model.MaxAmount (2^62), bytes of memory and storage needing the room.
const MaxCPU = 1 << 40

// overCap refuses a list at p of n entries beyond max, naming the cap:
// checked before any entry, so a huge list costs nothing.
func overCap(p path, n, max int) *FieldError {
	if n <= max {
		return nil
	}
	return p.errorf("must have at most %d entries, has %d", max, n)
}

// maxCapacity bounds a device's capacity, as model.MaxAmount bounds
// resource amounts.
func maxCapacity() resource.Quantity { return *resource.NewQuantity(1<<62, resource.DecimalSI) }
