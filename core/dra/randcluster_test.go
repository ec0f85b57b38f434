package dra_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randCluster writes a random DRA cluster as multi-document YAML: nodes
// with one GPU slice each (devices with string, bool, int and version
// attributes and a memory capacity), sometimes a network-attached NIC pool
// on all nodes, three classes, and pending pods (distinct priorities, so
// queue order is the file's) using claims of their own, shared claims and
// templates, with counts, mode All, CEL selectors, firstAvailable and
// matchAttribute. CPU never limits: the devices decide.
func randCluster(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed*7919+1))
	var b strings.Builder
	doc := func(format string, args ...any) {
		b.WriteString("---\n")
		fmt.Fprintf(&b, format, args...)
	}
	fmt.Fprintf(&b, "# random DRA cluster, seed %d (core/dra randcluster_test.go)\n", seed)
	doc("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: never}\nvalue: 0\npreemptionPolicy: Never\n")
	doc("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n")
	doc("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: big-gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}, {cel: {expression: 'device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0'}}]}\n")
	doc("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: nic}\nspec: {selectors: [{cel: {expression: 'device.driver == \"nic.example.com\"'}}]}\n")
	nodes := 2 + r.IntN(4)
	models := []string{"a100", "h100", "l4"}
	mems := []string{"16Gi", "40Gi", "80Gi"}
	versions := []string{"1.2.0", "1.9.3", "2.0.0", "2.1.0"}
	for i := range nodes {
		n := fmt.Sprintf("n%d", i+1)
		doc("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s}}\nstatus: {allocatable: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n", n, n)
		var devs []string
		for d := range 1 + r.IntN(4) {
			devs = append(devs, fmt.Sprintf("  - name: gpu-%d\n    attributes: {model: {string: %s}, ecc: {bool: %t}, numa: {int: %d}, driverVersion: {version: %s}}\n    capacity: {memory: {value: %s}}\n",
				d, models[r.IntN(3)], r.IntN(2) == 0, r.IntN(2), versions[r.IntN(4)], mems[r.IntN(3)]))
		}
		doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-gpus}\nspec:\n  driver: gpu.example.com\n  nodeName: %s\n  pool: {name: %s, generation: 1, resourceSliceCount: 1}\n  devices:\n%s",
			n, n, n, strings.Join(devs, ""))
	}
	if r.IntN(2) == 0 {
		doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: fabric}\nspec:\n  driver: nic.example.com\n  allNodes: true\n  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n  devices: [{name: nic-0}, {name: nic-1}]\n")
	}
	pods := 4 + r.IntN(8)
	var shared []string
	for i := range pods {
		pod := fmt.Sprintf("p%02d", i)
		var entries []string
		for e := range 1 + r.IntN(2) {
			entry := fmt.Sprintf("c%d", e)
			switch k := r.IntN(10); {
			case k < 2 && len(shared) > 0:
				entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimName: %s}", entry, shared[r.IntN(len(shared))]))
			case k < 4:
				tmpl := pod + "-" + entry
				doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: %s}\nspec:\n  spec:\n    devices:\n%s", tmpl, randDevices(r, "      "))
				entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimTemplateName: %s}", entry, tmpl))
			default:
				claim := pod + "-" + entry
				doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s}\nspec:\n  devices:\n%s", claim, randDevices(r, "    "))
				entries = append(entries, fmt.Sprintf("{name: %s, resourceClaimName: %s}", entry, claim))
				if r.IntN(3) == 0 {
					shared = append(shared, claim)
				}
			}
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  priorityClassName: never\n  priority: %d\n  preemptionPolicy: Never\n  resourceClaims: [%s]\n  containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]\n",
			pod, 1000-i, strings.Join(entries, ", "))
	}
	return b.String()
}

// randDevices is the devices part of a claim spec, indented by ind.
func randDevices(r *rand.Rand, ind string) string {
	selectors := []string{
		"",
		`device.attributes["gpu.example.com"].model == "h100"`,
		`device.attributes["gpu.example.com"].ecc`,
		`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.9.0"))`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) < 0`,
		`device.attributes["gpu.example.com"].numa == 1`,
	}
	class := func() string { return []string{"gpu", "gpu", "big-gpu", "nic"}[r.IntN(4)] }
	sel := func() string {
		s := selectors[r.IntN(len(selectors))]
		if s == "" {
			return ""
		}
		return fmt.Sprintf(", selectors: [{cel: {expression: '%s'}}]", s)
	}
	mode := func() string {
		switch k := r.IntN(10); {
		case k == 0:
			return ", allocationMode: All"
		case k < 4:
			return fmt.Sprintf(", count: %d", 2+r.IntN(2))
		}
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%srequests:\n", ind)
	n := 1 + r.IntN(2)
	for i := range n {
		if r.IntN(5) == 0 {
			c1, c2 := class(), class()
			fmt.Fprintf(&b, "%s- name: r%d\n%s  firstAvailable:\n%s  - {name: a, deviceClassName: %s%s%s}\n%s  - {name: b, deviceClassName: %s%s}\n",
				ind, i, ind, ind, c1, sel(), mode(), ind, c2, sel())
			continue
		}
		c := class()
		s := ""
		if c != "nic" {
			s = sel()
		}
		fmt.Fprintf(&b, "%s- name: r%d\n%s  exactly: {deviceClassName: %s%s%s}\n", ind, i, ind, c, s, mode())
	}
	if n == 2 && r.IntN(3) == 0 {
		fmt.Fprintf(&b, "%sconstraints: [{requests: [r0, r1], matchAttribute: gpu.example.com/numa}]\n", ind)
	}
	return b.String()
}
