package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// VolumeOptions sizes a random storage cluster.
type VolumeOptions struct {
	Nodes int
	Pods  int
	// Unbound adds claims of WaitForFirstConsumer classes not bound yet,
	// available local volumes (distinct sizes: kube breaks ties between
	// equal ones in an unspecified order) and CSI storage capacities per
	// zone, so that the scheduling of pods binds and provisions.
	Unbound bool
}

// GenerateVolumes returns a random storage cluster as multi-document
// Kubernetes YAML; the same seed and options always give the same bytes.
// Nodes in three zones carry CSINodes with attach limits for a CSI disk
// driver (some nodes have none, some no limit); classes are a local one
// (no provisioner, WaitForFirstConsumer) and zonal ones of both binding
// modes with allowed topologies. Volumes are local (node affinity on the
// hostname), zonal (zone labels, some with node affinity too) and CSI
// disks, with ReadWriteOnce, ReadWriteMany and ReadWriteOncePod modes.
// Claims are bound to them, some shared by several pods, a few bound to a
// volume that does not exist, lost, or unbound with an Immediate class.
// Running pods use some claims (attach counts, ReadWriteOncePod users);
// pending pods of distinct priorities use zero to two claims, now and then
// one that does not exist, and scratch volumes scheduling ignores.
// With Unbound, claims of WaitForFirstConsumer classes wait for their first
// pod to bind them to an available volume or to have one provisioned.
func GenerateVolumes(seed uint64, o VolumeOptions) []byte {
	g := &volGen{r: rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+3)), o: o}
	fmt.Fprintf(&g.b, "# random storage cluster, seed %d (core/parity randvolume.go)\n", seed)
	g.classes()
	g.nodes()
	g.volumes()
	if o.Unbound {
		g.unbound()
	}
	g.running()
	for i := range o.Pods {
		g.pending(i)
	}
	return []byte(g.b.String())
}

type volGen struct {
	r      *rand.Rand
	o      VolumeOptions
	b      strings.Builder
	nodes_ []string
	zoneOf map[string]string
	claims []string // usable claims
	rwop   map[string]bool
}

var volZones = []string{"zone-a", "zone-b", "zone-c"}

func (g *volGen) doc(format string, args ...any) {
	g.b.WriteString("---\n")
	fmt.Fprintf(&g.b, format, args...)
}

func (g *volGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *volGen) classes() {
	g.doc("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n")
	g.doc("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: zonal}\nprovisioner: disk.csi.example.com\nvolumeBindingMode: Immediate\n")
	g.doc("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: zonal-late}\nprovisioner: disk.csi.example.com\nvolumeBindingMode: WaitForFirstConsumer\n" +
		"allowedTopologies:\n- matchLabelExpressions:\n  - {key: topology.kubernetes.io/zone, values: [zone-a, zone-b]}\n")
}

func (g *volGen) nodes() {
	g.zoneOf = map[string]string{}
	for i := range g.o.Nodes {
		name := fmt.Sprintf("node-%02d", i)
		zone := volZones[i%len(volZones)]
		g.nodes_ = append(g.nodes_, name)
		g.zoneOf[name] = zone
		cpu := 4 + 2*g.r.IntN(3)
		g.doc("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: {kubernetes.io/hostname: %s, topology.kubernetes.io/zone: %s}\n"+
			"status:\n  allocatable: {cpu: \"%d\", memory: %dGi, pods: \"30\"}\n", name, name, zone, cpu, 2*cpu)
		switch {
		case g.chance(0.2): // no CSINode
		case g.chance(0.2):
			g.doc("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: %s}\nspec:\n  drivers: [{name: disk.csi.example.com, nodeID: %s}]\n", name, name)
		default:
			g.doc("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: %s}\nspec:\n  drivers: [{name: disk.csi.example.com, nodeID: %s, allocatable: {count: %d}}]\n",
				name, name, 1+g.r.IntN(3))
		}
	}
}

// volumes makes the volumes and the claims bound to them.
func (g *volGen) volumes() {
	g.rwop = map[string]bool{}
	n := 2*g.o.Nodes + g.r.IntN(g.o.Nodes+1)
	for i := range n {
		pv, claim := fmt.Sprintf("pv-%02d", i), fmt.Sprintf("data-%02d", i)
		mode := "ReadWriteOnce"
		switch {
		case g.chance(0.15):
			mode = "ReadWriteOncePod"
			g.rwop[claim] = true
		case g.chance(0.2):
			mode = "ReadWriteMany"
		}
		size := 1 + g.r.IntN(20)
		var class, labels, affinity, source string
		node := g.nodes_[g.r.IntN(len(g.nodes_))]
		switch g.r.IntN(3) {
		case 0: // local
			class = "local"
			source = "  local: {path: /mnt/disks/" + pv + "}\n"
			affinity = fmt.Sprintf("  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [%s]}]\n", node)
		case 1: // zonal disk, zone labels only or node affinity too
			class = g.pickClass("zonal", "zonal-late")
			zone := g.zoneOf[node]
			labels = fmt.Sprintf("  labels: {topology.kubernetes.io/zone: %s}\n", zone)
			if g.chance(0.5) {
				labels = fmt.Sprintf("  labels: {topology.kubernetes.io/zone: %s__%s}\n", zone, volZones[g.r.IntN(len(volZones))])
			}
			source = fmt.Sprintf("  csi: {driver: disk.csi.example.com, volumeHandle: %s}\n", pv)
			if g.chance(0.4) {
				affinity = fmt.Sprintf("  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [%s]}]\n", zone)
			}
		default: // a disk reachable from every node
			class = "zonal"
			source = fmt.Sprintf("  csi: {driver: disk.csi.example.com, volumeHandle: %s}\n", pv)
		}
		lost := g.chance(0.05)
		if !lost || g.chance(0.5) {
			g.doc("apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: %s\n%sspec:\n  capacity: {storage: %dGi}\n  accessModes: [%s]\n  storageClassName: %s\n"+
				"  claimRef: {namespace: default, name: %s}\n%s%sstatus: {phase: Bound}\n", pv, labels, size, mode, class, claim, source, affinity)
		} else {
			pv = pv + "-gone"
		}
		phase := "Bound"
		if lost && g.chance(0.5) {
			phase = "Lost"
		}
		g.doc("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: %s\n  annotations: {pv.kubernetes.io/bind-completed: \"yes\"}\nspec:\n  accessModes: [%s]\n"+
			"  storageClassName: %s\n  volumeName: %s\n  resources: {requests: {storage: %dGi}}\nstatus: {phase: %s}\n", claim, mode, class, pv, size, phase)
		g.claims = append(g.claims, claim)
	}
	if g.chance(0.5) {
		g.doc("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: pending-bind}\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n" +
			"  resources: {requests: {storage: 1Gi}}\n")
		g.claims = append(g.claims, "pending-bind")
	}
}

func (g *volGen) pickClass(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *volGen) podDoc(name, node string, prio int, claims []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\nspec:\n", name)
	if node != "" {
		fmt.Fprintf(&b, "  nodeName: %s\n", node)
	}
	fmt.Fprintf(&b, "  priority: %d\n  containers:\n  - name: c\n    image: app\n    resources: {requests: {cpu: %dm, memory: %dMi}}\n",
		prio, 250*(1+g.r.IntN(6)), 256*(1+g.r.IntN(6)))
	b.WriteString("  volumes:\n  - {name: scratch, emptyDir: {}}\n")
	for i, c := range claims {
		fmt.Fprintf(&b, "  - {name: vol-%d, persistentVolumeClaim: {claimName: %s}}\n", i, c)
	}
	g.doc("%s", b.String())
}

// running places pods using some claims on nodes their volumes admit
// (a local volume's node, a zonal volume's zone); others run without.
func (g *volGen) running() {
	for i := range g.o.Nodes {
		node := g.nodes_[i]
		if g.chance(0.5) {
			continue
		}
		var claims []string
		for _, c := range g.claims {
			if len(claims) < 2 && g.chance(0.15) && g.claimFits(c, node) {
				claims = append(claims, c)
			}
		}
		g.podDoc(fmt.Sprintf("running-%02d", i), node, g.r.IntN(3)*10, claims)
	}
}

// claimFits reports whether the generated claim's volume admits node, by
// re-reading what volumes wrote: simpler to check in the text than to keep
// a model (a local volume names its node; a zonal one its zone).
func (g *volGen) claimFits(claim, node string) bool {
	text := g.b.String()
	i := strings.Index(text, "claimRef: {namespace: default, name: "+claim+"}")
	if i < 0 {
		return false
	}
	start := strings.LastIndex(text[:i], "kind: PersistentVolume\n")
	end := strings.Index(text[i:], "---")
	if end < 0 {
		end = len(text) - i
	}
	pv := text[start : i+end]
	switch {
	case strings.Contains(pv, "kubernetes.io/hostname"):
		return strings.Contains(pv, "values: ["+node+"]")
	case strings.Contains(pv, "topology.kubernetes.io/zone"):
		return strings.Contains(pv, g.zoneOf[node])
	}
	return true
}

func (g *volGen) pending(i int) {
	var claims []string
	for range g.r.IntN(3) {
		c := g.claims[g.r.IntN(len(g.claims))]
		if g.chance(0.05) {
			c = "missing-claim"
		}
		dup := false
		for _, x := range claims {
			dup = dup || x == c
		}
		if !dup {
			claims = append(claims, c)
		}
	}
	g.podDoc(fmt.Sprintf("pod-%02d", i), "", 1000-10*i+g.r.IntN(5), claims)
}

// unbound adds available local volumes of distinct sizes, unbound claims
// of the WaitForFirstConsumer classes, a CSI driver reporting capacity
// and a capacity object per zone (zone-c none: provisioning fails there).
func (g *volGen) unbound() {
	g.doc("apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: disk.csi.example.com}\nspec: {attachRequired: true, storageCapacity: true}\n")
	for i, zone := range volZones[:2] {
		max := ""
		if g.chance(0.5) {
			max = fmt.Sprintf("maximumVolumeSize: %dGi\n", 5+5*g.r.IntN(3))
		}
		g.doc("apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata: {name: cap-%d, namespace: kube-system}\nstorageClassName: zonal-late\n"+
			"nodeTopology: {matchLabels: {topology.kubernetes.io/zone: %s}}\ncapacity: %dGi\n%s", i, zone, 20+10*g.r.IntN(8), max)
	}
	sizes := g.r.Perm(40)
	n := g.o.Nodes + g.r.IntN(g.o.Nodes+1)
	for i := range n {
		node := g.nodes_[g.r.IntN(len(g.nodes_))]
		mode := g.pickClass("ReadWriteOnce", "ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod")
		g.doc("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: free-%02d}\nspec:\n  capacity: {storage: %dGi}\n  accessModes: [%s]\n  storageClassName: local\n"+
			"  local: {path: /mnt/free-%02d}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n"+
			"      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [%s]}]\nstatus: {phase: Available}\n", i, 1+sizes[i], mode, i, node)
	}
	for i := range n + g.r.IntN(4) {
		class := g.pickClass("local", "local", "zonal-late")
		mode := g.pickClass("ReadWriteOnce", "ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod")
		name := fmt.Sprintf("late-%02d", i)
		g.doc("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s}\nspec:\n  accessModes: [%s]\n  storageClassName: %s\n"+
			"  resources: {requests: {storage: %dGi}}\n", name, mode, class, 1+g.r.IntN(25))
		g.claims = append(g.claims, name)
	}
}
