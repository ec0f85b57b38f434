package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// DRAOptions sizes a random DRA cluster.
type DRAOptions struct {
	Nodes int
	Pods  int
}

// GenerateDRA returns a random dynamic-resource-allocation cluster as
// multi-document Kubernetes YAML; the same seed and options always give
// the same bytes. Nodes (two zones, CPU that sometimes runs out) carry
// GPU slices (devices with string, bool, int and version attributes and a
// memory capacity), some an FPGA slice or a GPU pool split over two
// slices; a NIC pool is network-attached to one zone or to all nodes.
// Device classes select by driver and by CEL on attributes and capacity.
// Pending pods (distinct priorities, preemptionPolicy Never: kubeoracle
// does not release a preemption victim's devices) use claims of their
// own, shared claims, templates, claims allocated before the run (some
// reserved by running pods, some stale on a node without CPU left), and
// now and then a claim that does not exist, admin access or one claim
// named by two entries (a class that does not exist is refused by
// core/manifest, so the corpus has none); requests ask for counts,
// allocationMode All, CEL selectors, firstAvailable alternatives and
// matchAttribute constraints. Some devices carry taints (NoSchedule,
// NoExecute, None), DeviceTaintRules taint a device, a pool or a driver's
// devices (NoSchedule, None: Berth refuses NoExecute rules), and some
// requests tolerate them; these draws come from a source of their own, so
// the rest of a cluster is what it was before taints were added.
func GenerateDRA(seed uint64, o DRAOptions) []byte {
	g := &draGen{r: rand.New(rand.NewPCG(seed, seed*0x2545f4914f6cdd1d+7)), o: o,
		t: rand.New(rand.NewPCG(seed^0x7461696e74, seed+99))}
	fmt.Fprintf(&g.b, "# random DRA cluster, seed %d (core/parity randdra.go)\n", seed)
	g.classes()
	g.nodesAndSlices()
	g.taintRules()
	g.preallocated()
	for i := range o.Pods {
		g.pod(i)
	}
	return []byte(g.b.String())
}

type draGen struct {
	r      *rand.Rand
	t      *rand.Rand // taints, rules and tolerations
	o      DRAOptions
	b      strings.Builder
	nodes  []string
	gpus   map[string]int // devices per node
	shared []string       // claims pods may share
	taken  map[string]bool
}

func (g *draGen) doc(format string, args ...any) {
	g.b.WriteString("---\n")
	fmt.Fprintf(&g.b, format, args...)
}

func (g *draGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *draGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *draGen) classes() {
	class := func(name string, exprs ...string) {
		var sels []string
		for _, e := range exprs {
			sels = append(sels, fmt.Sprintf("{cel: {expression: '%s'}}", e))
		}
		g.doc("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: %s}\nspec: {selectors: [%s]}\n", name, strings.Join(sels, ", "))
	}
	class("gpu", `device.driver == "gpu.example.com"`)
	class("big-gpu", `device.driver == "gpu.example.com"`, `device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`)
	class("ecc-gpu", `device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].ecc`)
	class("nic", `device.driver == "nic.example.com"`)
	class("fpga", `device.driver == "fpga.example.com"`)
}

// nodesAndSlices writes the nodes and their slices, and the NIC pool.
func (g *draGen) nodesAndSlices() {
	g.gpus = map[string]int{}
	for i := range g.o.Nodes {
		n := fmt.Sprintf("n%d", i+1)
		g.nodes = append(g.nodes, n)
		zone := []string{"a", "b"}[i%2]
		g.doc("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s, topology.kubernetes.io/zone: %s}}\nstatus: {allocatable: {cpu: %q, memory: 64Gi, pods: \"110\"}}\n",
			n, n, zone, g.pick("3", "4", "8", "16"))
		if g.chance(0.15) {
			continue // a node without devices
		}
		devs := 1 + g.r.IntN(6)
		g.gpus[n] = devs
		if devs >= 2 && g.chance(0.2) {
			// One pool in two slices: the allocator sees it whole.
			half := devs / 2
			g.gpuSlice(n+"-gpus-a", n, 0, half, 2)
			g.gpuSlice(n+"-gpus-b", n, half, devs, 2)
		} else {
			g.gpuSlice(n+"-gpus", n, 0, devs, 1)
		}
		if g.chance(0.3) {
			var d []string
			for k := range 1 + g.r.IntN(2) {
				d = append(d, fmt.Sprintf("{name: fpga-%d, attributes: {type: {string: %s}, numa: {int: %d}}}", k, g.pick("fast", "slow"), g.r.IntN(2)))
			}
			g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-fpgas}\nspec:\n  driver: fpga.example.com\n  nodeName: %s\n  pool: {name: %s-fpga, generation: 1, resourceSliceCount: 1}\n  devices: [%s]\n",
				n, n, n, strings.Join(d, ", "))
		}
	}
	if g.chance(0.6) {
		placement := "allNodes: true"
		if g.chance(0.5) {
			placement = "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]}]}"
		}
		var d []string
		for k := range 1 + g.r.IntN(3) {
			d = append(d, fmt.Sprintf("{name: nic-%d, attributes: {speed: {int: %d}}}", k, []int{10, 100}[g.r.IntN(2)]))
		}
		g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: fabric}\nspec:\n  driver: nic.example.com\n  %s\n  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n  devices: [%s]\n",
			placement, strings.Join(d, ", "))
	}
}

// gpuSlice writes devices gpu-from..gpu-(to-1) of node's pool.
func (g *draGen) gpuSlice(name, node string, from, to, slices int) {
	var devs strings.Builder
	for d := from; d < to; d++ {
		fmt.Fprintf(&devs, "  - name: gpu-%d\n    attributes: {model: {string: %s}, ecc: {bool: %t}, numa: {int: %d}, driverVersion: {version: %s}}\n    capacity: {memory: {value: %s}}\n",
			d, g.pick("a100", "h100", "l4"), g.chance(0.5), g.r.IntN(2), g.pick("1.2.0", "1.9.3", "2.0.0", "2.1.0"), g.pick("16Gi", "40Gi", "80Gi"))
		if g.t.Float64() < 0.12 {
			fmt.Fprintf(&devs, "    taints: [%s]\n", g.taint("NoSchedule", "NoExecute", "None"))
		}
	}
	g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\nspec:\n  driver: gpu.example.com\n  nodeName: %s\n  pool: {name: %s, generation: 1, resourceSliceCount: %d}\n  devices:\n%s",
		name, node, node, slices, devs.String())
}

// preallocated writes claims allocated before the run: each on gpu-0 of
// a node, reserved by a pod running there or by nobody (a stale one,
// which PostFilter may deallocate).
func (g *draGen) preallocated() {
	g.taken = map[string]bool{}
	for i := range g.r.IntN(3) {
		var withGPU []string
		for _, n := range g.nodes {
			if g.gpus[n] > 0 && !g.taken[n] {
				withGPU = append(withGPU, n)
			}
		}
		if len(withGPU) == 0 {
			return
		}
		n := g.pick(withGPU...)
		g.taken[n] = true
		name := fmt.Sprintf("pre-%d", i)
		reserved := ""
		if g.chance(0.5) {
			pod := name + "-user"
			reserved = fmt.Sprintf("  reservedFor: [{resource: pods, name: %s, uid: pod-default-%s}]\n", pod, pod)
			g.doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  nodeName: %s\n  resourceClaims: [{name: g, resourceClaimName: %s}]\n  containers: [{name: c, image: x, resources: {requests: {cpu: %q}}}]\n",
				pod, n, name, g.pick("1", "2"))
		} else if g.chance(0.5) {
			// Fill the node's CPU: a pod using the stale claim cannot go there.
			g.doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s-hog}\nspec:\n  nodeName: %s\n  containers: [{name: c, image: x, resources: {requests: {cpu: \"3\"}}}]\n", name, n)
		}
		g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, finalizers: [resource.kubernetes.io/delete-protection]}\nspec:\n  devices:\n    requests:\n    - name: g\n      exactly: {deviceClassName: gpu}\nstatus:\n  allocation:\n    devices:\n      results:\n      - {request: g, driver: gpu.example.com, pool: %s, device: gpu-0}\n    nodeSelector:\n      nodeSelectorTerms:\n      - matchFields:\n        - {key: metadata.name, operator: In, values: [%s]}\n%s",
			name, n, n, reserved)
		g.shared = append(g.shared, name)
	}
}

// pod writes pending pod i with its claims.
func (g *draGen) pod(i int) {
	pod := fmt.Sprintf("p%02d", i)
	var entries []string
	n := 1 + g.r.IntN(2)
	if g.chance(0.12) {
		n = 0
	}
	for e := range n {
		entry := fmt.Sprintf("c%d", e)
		switch k := g.r.Float64(); {
		case k < 0.15 && len(g.shared) > 0:
			entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimName: %s}", entry, g.pick(g.shared...)))
		case k < 0.18:
			entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimName: missing-%s}", entry, pod))
		case k < 0.40:
			tmpl := pod + "-" + entry
			g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: %s}\nspec:\n  spec:\n    devices:\n%s", tmpl, g.devices("      "))
			entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimTemplateName: %s}", entry, tmpl))
		default:
			claim := pod + "-" + entry
			g.doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s}\nspec:\n  devices:\n%s", claim, g.devices("    "))
			entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimName: %s}", entry, claim))
			if g.chance(0.3) {
				g.shared = append(g.shared, claim)
			}
			if n == 1 && g.chance(0.05) {
				// Two entries naming one claim.
				entries = append(entries, fmt.Sprintf("{name: again, resourceClaimName: %s}", claim))
			}
		}
	}
	claims := ""
	if len(entries) > 0 {
		claims = fmt.Sprintf("  resourceClaims: [%s]\n", strings.Join(entries, ", "))
	}
	g.doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  priority: %d\n  preemptionPolicy: Never\n%s  containers: [{name: c, image: x, resources: {requests: {cpu: %q, memory: %s}}}]\n",
		pod, 1000-i, claims, g.pick("1", "1", "2", "3"), g.pick("1Gi", "4Gi"))
}

// devices is the devices part of a claim spec, indented by ind.
func (g *draGen) devices(ind string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%srequests:\n", ind)
	n := 1 + g.r.IntN(2)
	gpuOnly := true
	for i := range n {
		switch k := g.r.Float64(); {
		case k < 0.25:
			fmt.Fprintf(&b, "%s- name: r%d\n%s  firstAvailable:\n", ind, i, ind)
			for j := range 2 + g.r.IntN(2) {
				c := g.class()
				gpuOnly = gpuOnly && c != "nic" && c != "fpga"
				fmt.Fprintf(&b, "%s  - {name: s%d, deviceClassName: %s%s%s%s}\n", ind, j, c, g.selectors(c), g.mode(c), g.tolerations())
			}
		default:
			c := g.class()
			gpuOnly = gpuOnly && c != "nic" && c != "fpga"
			admin := ""
			if c == "gpu" && g.chance(0.06) {
				admin = ", adminAccess: true"
			}
			fmt.Fprintf(&b, "%s- name: r%d\n%s  exactly: {deviceClassName: %s%s%s%s%s}\n", ind, i, ind, c, g.selectors(c), g.mode(c), admin, g.tolerations())
		}
	}
	if n == 2 && gpuOnly && g.chance(0.4) {
		fmt.Fprintf(&b, "%sconstraints: [{requests: [r0, r1], matchAttribute: gpu.example.com/%s}]\n", ind, g.pick("numa", "model"))
	}
	return b.String()
}

func (g *draGen) class() string {
	return g.pick("gpu", "gpu", "gpu", "big-gpu", "ecc-gpu", "nic", "fpga")
}

// selectors is an optional CEL selector for a request of class c.
func (g *draGen) selectors(c string) string {
	var opts []string
	switch c {
	case "gpu", "big-gpu", "ecc-gpu":
		opts = []string{
			`device.attributes["gpu.example.com"].model == "h100"`,
			`device.attributes["gpu.example.com"].model != "l4"`,
			`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.9.0"))`,
			`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) < 0`,
			`device.attributes["gpu.example.com"].numa == 1`,
		}
	case "fpga":
		opts = []string{`device.attributes["fpga.example.com"].type == "fast"`}
	case "nic":
		opts = []string{`device.attributes["nic.example.com"].speed >= 100`}
	}
	if len(opts) == 0 || g.chance(0.55) {
		return ""
	}
	return fmt.Sprintf(", selectors: [{cel: {expression: '%s'}}]", g.pick(opts...))
}

// mode is the allocation mode and count of a request of class c: All only
// for the smaller pools (NICs, FPGAs).
func (g *draGen) mode(c string) string {
	switch k := g.r.Float64(); {
	case k < 0.15 && (c == "nic" || c == "fpga"):
		return ", allocationMode: All"
	case k < 0.3:
		return fmt.Sprintf(", count: %d", 2+g.r.IntN(2))
	}
	return ""
}

// taint is a device taint of one of effects, drawn from g.t.
func (g *draGen) taint(effects ...string) string {
	key := []string{"example.com/maintenance", "example.com/unhealthy"}[g.t.IntN(2)]
	return fmt.Sprintf("{key: %s, value: %s, effect: %s}", key, []string{"planned", "bad"}[g.t.IntN(2)], effects[g.t.IntN(len(effects))])
}

// taintRules writes, now and then, DeviceTaintRules for one GPU, one
// node's GPU pool, or every NIC.
func (g *draGen) taintRules() {
	if g.t.Float64() >= 0.5 {
		return
	}
	for i := range 1 + g.t.IntN(2) {
		var sel string
		switch k := g.t.Float64(); {
		case k < 0.5 && len(g.gpus) > 0:
			n := g.nodes[g.t.IntN(len(g.nodes))]
			if g.gpus[n] == 0 {
				continue
			}
			sel = fmt.Sprintf("{driver: gpu.example.com, pool: %s, device: gpu-%d}", n, g.t.IntN(g.gpus[n]))
		case k < 0.8:
			sel = fmt.Sprintf("{pool: %s}", g.nodes[g.t.IntN(len(g.nodes))])
		default:
			sel = "{driver: nic.example.com}"
		}
		g.doc("apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: rule-%d}\nspec:\n  deviceSelector: %s\n  taint: %s\n", i, sel, g.taint("NoSchedule", "NoSchedule", "None"))
	}
}

// tolerations is, now and then, a request's tolerations of the taints the
// generator writes.
func (g *draGen) tolerations() string {
	switch k := g.t.Float64(); {
	case k < 0.12:
		return ", tolerations: [{key: example.com/maintenance, operator: Exists}]"
	case k < 0.2:
		return ", tolerations: [{key: example.com/unhealthy, operator: Equal, value: bad, effect: NoSchedule}]"
	case k < 0.24:
		return ", tolerations: [{operator: Exists}]"
	}
	return ""
}
