package parity

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// GenOptions sizes a random cluster.
type GenOptions struct {
	Nodes       int
	RunningPods int
	PendingPods int
	// Preemption adds priority classes, budgets and high-priority pods that
	// can only fit by evicting others.
	Preemption bool
	// Varied, with Preemption, widens what preemption meets: negative
	// priorities, running pods sharing start times (equally important
	// victims, ordered by the node's pod order), budgets by percentage and
	// by maxUnavailable (some with an empty selector, some with a status
	// listing disrupted pods), running pods being deleted (some preempted)
	// and pending pods already nominated.
	Varied bool
	// Topology makes topology spread constraints and inter-pod
	// (anti-)affinity the common case rather than the exception.
	Topology bool
	// NodeLocal leaves them out (the random draws are the same otherwise):
	// every pod's filters are then node-local, so the result memo and
	// preemption's memo apply to every pod.
	NodeLocal bool
	// Images gives nodes container images (status.images, in the spellings
	// kubelets report) and pods one to three containers using them, some
	// spelled otherwise (no tag, short names, other registries), for
	// ImageLocality. The other draws are the same with it off.
	Images bool
}

// Generate returns a random cluster as multi-document Kubernetes YAML. The
// same seed and options always give the same bytes.
func Generate(seed uint64, o GenOptions) ([]byte, error) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), o: o, running: map[string][]string{}}
	return g.cluster()
}

type gen struct {
	r     *rand.Rand
	o     GenOptions
	docs  []any
	nodes []string
	t     time.Time
	// running lists the running pods' names by app (Varied budgets name
	// some as disrupted).
	running map[string][]string
}

var apps = []string{"web", "api", "cache", "db", "batch"}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) chance(p float64) bool   { return g.r.Float64() < p }

// topoChance is chance for the pod-topology constraints: heavier with
// GenOptions.Topology.
func (g *gen) topoChance(p float64) bool {
	if g.o.Topology {
		p = 0.6
	}
	return g.chance(p) && !g.o.NodeLocal
}

func (g *gen) cluster() ([]byte, error) {
	g.t = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	if g.o.Preemption {
		classes := []struct {
			name  string
			value int32
			never bool
		}{{"low", 100, false}, {"mid", 1000, false}, {"high", 10000, false}, {"high-never", 10000, true}}
		if g.o.Varied {
			classes = append(classes, []struct {
				name  string
				value int32
				never bool
			}{{"neg", -100, false}, {"neg-low", -1000, false}}...)
		}
		for _, pc := range classes {
			c := &schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
				ObjectMeta: metav1.ObjectMeta{Name: pc.name}, Value: pc.value}
			if pc.never {
				p := corev1.PreemptNever
				c.PreemptionPolicy = &p
			}
			g.docs = append(g.docs, c)
		}
	}
	for i := 0; i < g.o.Nodes; i++ {
		g.docs = append(g.docs, g.node(i))
	}
	for i := 0; i < g.o.RunningPods; i++ {
		g.docs = append(g.docs, g.pod(fmt.Sprintf("run-%d", i), g.pick(g.nodes)))
	}
	if g.o.Preemption {
		for _, app := range apps[:3] {
			pdb := &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: app + "-pdb", Namespace: "default"},
				Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
			if g.o.Varied {
				g.vary(pdb, app)
			} else {
				v := intstr.FromInt32(int32(1 + g.r.IntN(3)))
				pdb.Spec.MinAvailable = &v
			}
			g.docs = append(g.docs, pdb)
		}
	}
	for i := 0; i < g.o.PendingPods; i++ {
		g.docs = append(g.docs, g.pod(fmt.Sprintf("pend-%d", i), ""))
	}
	var out bytes.Buffer
	for _, d := range g.docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes(), nil
}

// vary gives a budget one of the forms Varied allows.
func (g *gen) vary(pdb *policyv1.PodDisruptionBudget, app string) {
	var v intstr.IntOrString
	if g.chance(0.5) {
		v = intstr.FromString(fmt.Sprintf("%d%%", []int{0, 25, 34, 50, 75, 100}[g.r.IntN(6)]))
	} else {
		v = intstr.FromInt32(int32(g.r.IntN(4)))
	}
	if g.chance(0.5) {
		pdb.Spec.MaxUnavailable = &v
	} else {
		pdb.Spec.MinAvailable = &v
	}
	if g.chance(0.15) {
		pdb.Spec.Selector = &metav1.LabelSelector{} // covers no pod for preemption
	}
	if names := g.running[app]; len(names) > 0 && g.chance(0.3) {
		// A status given as is: an allowance and a disrupted pod.
		pdb.Status.DisruptionsAllowed = int32(g.r.IntN(3))
		pdb.Status.DisruptedPods = map[string]metav1.Time{g.pick(names): metav1.NewTime(g.t)}
	}
}

func (g *gen) node(i int) *corev1.Node {
	name := fmt.Sprintf("node-%02d", i)
	g.nodes = append(g.nodes, name)
	cpu := []int64{2, 4, 8, 16, 32}[g.r.IntN(5)]
	mem := cpu * []int64{2, 4, 8}[g.r.IntN(3)]
	labels := map[string]string{
		"kubernetes.io/hostname":      name,
		"topology.kubernetes.io/zone": fmt.Sprintf("zone-%c", 'a'+rune(g.r.IntN(3))),
		"disk":                        g.pick([]string{"ssd", "hdd"}),
		"cores":                       fmt.Sprint(cpu),
	}
	if g.chance(0.1) {
		delete(labels, "topology.kubernetes.io/zone") // nodes without the topology key
	}
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if g.chance(0.15) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: g.pick([]string{"gpu", "infra"}), Effect: corev1.TaintEffectNoSchedule})
	}
	if g.chance(0.2) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule})
	}
	if g.chance(0.05) {
		n.Spec.Unschedulable = true
	}
	rl := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(mem<<30, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(int64(10+g.r.IntN(100)), resource.DecimalSI),
	}
	if g.chance(0.2) {
		rl["example.com/gpu"] = *resource.NewQuantity(int64(1+g.r.IntN(4)), resource.DecimalSI)
	}
	n.Status.Capacity, n.Status.Allocatable = rl, rl
	if g.o.Images {
		n.Status.Images = g.nodeImages()
	}
	return n
}

func (g *gen) pod(name, nodeName string) *corev1.Pod {
	g.t = g.t.Add(time.Second)
	app := g.pick(apps)
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": app}, CreationTimestamp: metav1.NewTime(g.t)},
		Spec:       corev1.PodSpec{NodeName: nodeName}}
	if g.chance(0.3) {
		p.Labels["tier"] = g.pick([]string{"front", "back"})
	}
	req := corev1.ResourceList{}
	if !g.chance(0.1) { // some pods request nothing
		req[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(50*(1+g.r.IntN(40))), resource.DecimalSI)
		req[corev1.ResourceMemory] = *resource.NewQuantity(int64(64*(1+g.r.IntN(64)))<<20, resource.BinarySI)
	}
	if g.chance(0.05) {
		req["example.com/gpu"] = *resource.NewQuantity(1, resource.DecimalSI)
	}
	c := corev1.Container{Name: "app", Image: "pause", Resources: corev1.ResourceRequirements{Requests: req}}
	if g.chance(0.08) {
		c.Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: int32(8080 + g.r.IntN(2))}}
	}
	p.Spec.Containers = []corev1.Container{c}
	if g.chance(0.1) {
		always := corev1.ContainerRestartPolicyAlways
		p.Spec.InitContainers = []corev1.Container{{Name: "side", Image: "pause", RestartPolicy: &always,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(100, resource.DecimalSI)}}}}
	}
	if g.o.Images {
		g.podImages(p)
	}
	if g.o.Preemption {
		if nodeName != "" {
			// running pods fill the nodes, mostly at low priority
			classes := []string{"low", "low", "low", "mid", "high"}
			if g.o.Varied {
				classes = append(classes, "neg", "neg-low")
			}
			p.Spec.PriorityClassName = g.pick(classes)
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(500*(1+g.r.IntN(4))), resource.DecimalSI)
		} else {
			classes := []string{"low", "mid", "high", "high", "high-never"}
			if g.o.Varied {
				classes = append(classes, "neg")
			}
			p.Spec.PriorityClassName = g.pick(classes)
			if g.chance(0.6) { // big pods that need room
				p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(1000*(1+g.r.IntN(6))), resource.DecimalSI)
			}
		}
	}
	if nodeName != "" {
		p.Status.Phase = corev1.PodRunning
		st := metav1.NewTime(g.t)
		if g.o.Varied {
			// Three start times only: many equally important victims.
			st = metav1.NewTime(time.Date(2025, 5, 31, g.r.IntN(3), 0, 0, 0, time.UTC))
			if g.chance(0.08) {
				g.terminating(p)
			}
		}
		p.Status.StartTime = &st
		g.running[app] = append(g.running[app], name)
		return p
	}
	if g.o.Varied && g.chance(0.1) {
		p.Status.NominatedNodeName = g.pick(g.nodes)
	}
	g.constraints(p, app)
	return p
}

// terminating makes a running pod one being deleted, half of the time
// because a scheduler preempted it.
func (g *gen) terminating(p *corev1.Pod) {
	at := metav1.NewTime(g.t)
	p.DeletionTimestamp = &at
	p.Finalizers = []string{"example.com/hold"}
	if g.chance(0.5) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler}}
	}
}

func (g *gen) constraints(p *corev1.Pod, app string) {
	if g.chance(0.15) {
		p.Spec.NodeSelector = map[string]string{"disk": g.pick([]string{"ssd", "hdd"})}
	}
	if g.chance(0.25) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: g.pick([]string{"gpu", "infra"}), Effect: corev1.TaintEffectNoSchedule})
	}
	if g.chance(0.1) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "spot", Operator: corev1.TolerationOpExists})
	}
	aff := &corev1.Affinity{}
	if g.chance(0.2) {
		aff.NodeAffinity = &corev1.NodeAffinity{}
		if g.chance(0.5) {
			aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "cores", Operator: corev1.NodeSelectorOpGt, Values: []string{fmt.Sprint([]int{2, 4, 8}[g.r.IntN(3)])}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}}}},
			}}
		}
		aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.PreferredSchedulingTerm{
			{Weight: int32(1 + g.r.IntN(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}},
			{Weight: int32(1 + g.r.IntN(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{g.pick([]string{"zone-a", "zone-b", "zone-c"})}}}}},
		}
	}
	topo := func() string { return g.pick([]string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}) }
	term := func(target string) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{TopologyKey: topo(), LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": target}}}
	}
	if g.topoChance(0.15) {
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
		if g.chance(0.5) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term(app)}
		} else {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: term(g.pick(apps))}}
		}
	}
	if g.topoChance(0.15) {
		aff.PodAffinity = &corev1.PodAffinity{}
		if g.chance(0.4) {
			aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term(g.pick(apps))}
		} else {
			aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: term(g.pick(apps))}}
		}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		p.Spec.Affinity = aff
	}
	if g.topoChance(0.2) {
		when := corev1.DoNotSchedule
		if g.chance(0.5) {
			when = corev1.ScheduleAnyway
		}
		c := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.IntN(2)), TopologyKey: topo(), WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
		if when == corev1.DoNotSchedule && g.chance(0.2) {
			md := int32(2 + g.r.IntN(3))
			c.MinDomains = &md
		}
		if g.chance(0.2) {
			honor := corev1.NodeInclusionPolicyHonor
			c.NodeTaintsPolicy = &honor
		}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{c}
	}
	if g.chance(0.04) {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/hold"}}
	}
}
