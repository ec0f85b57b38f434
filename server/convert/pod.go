package convert

import (
	"maps"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// PodFromProto validates a wire pod and converts it. A *FieldError's path
// is relative to the Pod ("containers[1].requests[cpu]").
//
// The priority the caller gave becomes RequestedPriority (and Priority,
// until admission resolves it).
func PodFromProto(in *berthv1.Pod) (*model.Pod, error) {
	out, fe := pod(rootPath(""), in, nil)
	if fe != nil {
		return nil, fe
	}
	return out, nil
}

// pod converts in; held, if not nil, is the version of a pod Berth holds,
// whose parts equal to in's are shared (see ObjectFromProtoHeld).
func pod(p path, in *berthv1.Pod, held *model.Pod) (*model.Pod, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if held != nil && held.UID != in.GetUid() {
		held = nil
	}
	if fe := podNames(&p, in); fe != nil {
		return nil, fe
	}
	// Parts equal to held's were valid when it was converted: they are
	// shared, not checked and copied again. Checks of other parts come in
	// the same order either way, so the first error is the same.
	var podLabels map[string]string
	if held != nil && sameLabels(in.GetLabels(), held.Labels) {
		podLabels = held.Labels
	} else {
		if fe := labels(p.field("labels"), in.GetLabels()); fe != nil {
			return nil, fe
		}
		podLabels = maps.Clone(in.GetLabels())
	}
	policy, fe := preemptionPolicies().model(p.field("preemption_policy"), in.GetPreemptionPolicy(), true)
	if fe != nil {
		return nil, fe
	}
	out := &model.Pod{
		UID: in.GetUid(), Namespace: in.GetNamespace(), Name: in.GetName(),
		Labels:            podLabels,
		SchedulerName:     in.GetSchedulerName(),
		PriorityClassName: in.GetPriorityClassName(),
		PreemptionPolicy:  policy,
		NodeName:          in.GetNodeName(),
		NominatedNodeName: in.GetNominatedNodeName(),
		Ready:             in.GetReady(),
		Terminating:       in.GetTerminating(),
		Preempted:         in.GetPreempted(),
		SchedulingGroup:   in.GetSchedulingGroup(),
	}
	if g := in.GetSchedulingGroup(); g != "" {
		if fe := subdomain(p.field("scheduling_group"), g); fe != nil {
			return nil, fe
		}
	}
	if in.Priority != nil {
		out.RequestedPriority, out.Priority = ptr(in.GetPriority()), in.GetPriority()
	}
	if fe := podContainersAndResources(&p, in, held, out); fe != nil {
		return nil, fe
	}
	if fe := labels(p.field("node_selector"), in.GetNodeSelector()); fe != nil {
		return nil, fe
	}
	out.NodeSelector = maps.Clone(in.GetNodeSelector())
	if out.Affinity, fe = affinity(p.field("affinity"), in.GetAffinity()); fe != nil {
		return nil, fe
	}
	if held != nil && sameTolerations(in.GetTolerations(), held.Tolerations) {
		out.Tolerations = held.Tolerations
	} else if out.Tolerations, fe = tolerations(p.field("tolerations"), in.GetTolerations()); fe != nil {
		return nil, fe
	}
	if out.TopologySpreadConstraints, fe = spreadConstraints(p.field("topology_spread_constraints"), in.GetTopologySpreadConstraints()); fe != nil {
		return nil, fe
	}
	if out.WorkloadSelectors, fe = workloadSelectors(p.field("workload_selectors"), in.GetWorkloadSelectors(), out.Labels); fe != nil {
		return nil, fe
	}
	if out.SchedulingGates, fe = schedulingGates(p.field("scheduling_gates"), in.GetSchedulingGates()); fe != nil {
		return nil, fe
	}
	if out.CreationTime, fe = timestamp(p.field("creation_time"), in.GetCreationTime()); fe != nil {
		return nil, fe
	}
	if out.StartTime, fe = timestamp(p.field("start_time"), in.GetStartTime()); fe != nil {
		return nil, fe
	}
	if out.Volumes, fe = podVolumes(p, in); fe != nil {
		return nil, fe
	}
	if out.ResourceClaims, fe = podClaims(p, in); fe != nil {
		return nil, fe
	}
	if out.Runtime, fe = podRuntime(p.field("runtime"), in.GetRuntime()); fe != nil {
		return nil, fe
	}
	return out, nil
}

// podNames checks the pod's uid and the names it holds or refers to. p
// is pod's own path, by pointer: a copy of it would be one more allocation.
func podNames(p *path, in *berthv1.Pod) *FieldError {
	// Direct calls, not a table of checks: a path handed to a function
	// value would escape to the heap.
	if fe := checkUID(p.field("uid"), in.GetUid(), true); fe != nil {
		return fe
	}
	if fe := dnsLabel(p.field("namespace"), in.GetNamespace()); fe != nil {
		return fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return fe
	}
	if fe := optionalSubdomain(p.field("scheduler_name"), in.GetSchedulerName()); fe != nil {
		return fe
	}
	if fe := optionalSubdomain(p.field("priority_class_name"), in.GetPriorityClassName()); fe != nil {
		return fe
	}
	if fe := optionalSubdomain(p.field("node_name"), in.GetNodeName()); fe != nil {
		return fe
	}
	if fe := optionalSubdomain(p.field("nominated_node_name"), in.GetNominatedNodeName()); fe != nil {
		return fe
	}
	return nil
}

// podContainersAndResources converts the containers (sharing held's
// when equal) and the pod-level amounts into out, and checks the host
// ports are unique and the requests add up within bounds. p is pod's own
// path, by pointer (see podNames).
func podContainersAndResources(p *path, in *berthv1.Pod, held *model.Pod, out *model.Pod) *FieldError {
	if len(in.GetContainers()) == 0 {
		return p.field("containers").errorf("at least one container is required")
	}
	if held != nil && len(in.GetInitContainers()) == 0 && len(held.InitContainers) == 0 && sameContainers(in.GetContainers(), held.Containers) {
		out.Containers = held.Containers
	} else {
		// A lone container cannot repeat a name: no map for most pods.
		var names map[string]containerAt
		if n := len(in.GetContainers()) + len(in.GetInitContainers()); n > 1 {
			names = make(map[string]containerAt, n)
		}
		var fe *FieldError
		if out.Containers, fe = containers(*p, "containers", in.GetContainers(), false, names); fe != nil {
			return fe
		}
		if out.InitContainers, fe = containers(*p, "init_containers", in.GetInitContainers(), true, names); fe != nil {
			return fe
		}
	}
	if fe := uniqueHostPorts(*p, in); fe != nil {
		return fe
	}
	if fe := resources(p.field("overhead"), in.GetOverhead()); fe != nil {
		return fe
	}
	if fe := requestTotals(*p, in); fe != nil {
		return fe
	}
	out.Overhead = cloneResources(in.GetOverhead())
	if fe := podLevelRequests(p.field("pod_level_requests"), in.GetPodLevelRequests(), out); fe != nil {
		return fe
	}
	out.PodLevelRequests = cloneResources(in.GetPodLevelRequests())
	return nil
}

// schedulingGates checks the gates at p are qualified names, each once.
func schedulingGates(p path, in []string) ([]string, *FieldError) {
	if fe := overCap(p, len(in), MaxSchedulingGates); fe != nil {
		return nil, fe
	}
	var seen map[string]int // made at the second gate
	for i, g := range in {
		ip := p.index(i)
		if fe := qualifiedName(ip, g); fe != nil {
			return nil, fe
		}
		if j, dup := seen[g]; dup {
			return nil, ip.errorf("duplicate of scheduling_gates[%d] %q", j, g)
		}
		if i == 0 && len(in) > 1 {
			seen = make(map[string]int, len(in))
		}
		if seen != nil {
			seen[g] = i
		}
	}
	return slices.Clone(in), nil
}

// containerAt locates a container name, for the message about a duplicate.
type containerAt struct {
	list string // "containers" or "init_containers"
	i    int
}

// containers converts the regular or init containers in the list field of
// the pod at p. names records the names seen so far: they must be unique
// across both lists (nil when there is only one container).
func containers(p path, list string, in []*berthv1.Container, init bool, names map[string]containerAt) ([]model.Container, *FieldError) {
	if len(in) == 0 {
		return nil, nil
	}
	lp := p.field(list)
	if fe := overCap(lp, len(in), MaxContainers); fe != nil {
		return nil, fe
	}
	out := make([]model.Container, 0, len(in))
	protos := protocols()
	for i, c := range in {
		cp := lp.index(i)
		if c == nil {
			return nil, cp.errorf("required")
		}
		np := cp.field("name")
		if fe := dnsLabel(np, c.GetName()); fe != nil {
			return nil, fe
		}
		if prev, dup := names[c.GetName()]; dup {
			prevList := p.field(prev.list)
			prevContainer := prevList.index(prev.i)
			return nil, np.errorf("duplicate container name %q (also %s)", c.GetName(), prevContainer.field("name").String())
		}
		if names != nil {
			names[c.GetName()] = containerAt{list, i}
		}
		if fe := resources(cp.field("requests"), c.GetRequests()); fe != nil {
			return nil, fe
		}
		if fe := overCap(cp.field("claims"), len(c.GetClaims()), MaxPodClaims); fe != nil {
			return nil, fe
		}
		if fe := imageName(cp.field("image"), c.GetImage(), false); fe != nil {
			return nil, fe
		}
		mc := model.Container{Name: c.GetName(), Requests: cloneResources(c.GetRequests()), Claims: slices.Clone(c.GetClaims()), Image: c.GetImage()}
		switch c.GetRestartPolicy() {
		case berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_UNSPECIFIED:
		case berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_ALWAYS:
			if !init {
				return nil, cp.field("restart_policy").errorf("may only be set on init containers")
			}
			mc.RestartAlways = true
		default:
			return nil, cp.field("restart_policy").errorf("unknown value %d", int32(c.GetRestartPolicy()))
		}
		if len(c.GetPorts()) > 0 {
			mc.Ports = make([]model.ContainerPort, 0, len(c.GetPorts()))
		}
		psp := cp.field("ports")
		if fe := overCap(psp, len(c.GetPorts()), MaxPorts); fe != nil {
			return nil, fe
		}
		for j, cport := range c.GetPorts() {
			pp := psp.index(j)
			if fe := port(pp.field("container_port"), cport.GetContainerPort(), false); fe != nil {
				return nil, fe
			}
			if fe := port(pp.field("host_port"), cport.GetHostPort(), true); fe != nil {
				return nil, fe
			}
			if fe := ipAddress(pp.field("host_ip"), cport.GetHostIp()); fe != nil {
				return nil, fe
			}
			proto, fe := protos.model(pp.field("protocol"), cport.GetProtocol(), true)
			if fe != nil {
				return nil, fe
			}
			mc.Ports = append(mc.Ports, model.ContainerPort{
				ContainerPort: cport.GetContainerPort(), HostPort: cport.GetHostPort(), HostIP: cport.GetHostIp(), Protocol: proto,
			})
		}
		out = append(out, mc)
	}
	return out, nil
}

// requestTotals checks that, for every resource, the sum of what a pod's
// containers, init containers and overhead request stays within
// model.MaxAmount, so no arithmetic on the pod's requests can overflow
// (the effective request, kube's max of the steady state and the init
// steps, never exceeds that sum). The error names the field at which the
// sum goes over. The amounts were checked on their own already.
func requestTotals(p path, in *berthv1.Pod) *FieldError {
	// The sums only grow, so when the totals are within bounds no partial
	// sum went over: the exact walk, in key order, runs only to find the
	// field at fault.
	if requestTotalsWithin(in) {
		return nil
	}
	sums := map[string]int64{}
	add := func(fp path, m map[string]int64) *FieldError {
		for _, k := range sortedKeys(m) {
			if m[k] > model.MaxAmount-sums[k] {
				return fp.key(k).errorf("the pod's %s requests (containers, init containers and overhead together) add up to more than %d (2^62)", k, model.MaxAmount)
			}
			sums[k] += m[k]
		}
		return nil
	}
	for _, list := range []struct {
		name string
		cs   []*berthv1.Container
	}{{"containers", in.GetContainers()}, {"init_containers", in.GetInitContainers()}} {
		lp := p.field(list.name)
		for i, c := range list.cs {
			cp := lp.index(i)
			if fe := add(cp.field("requests"), c.GetRequests()); fe != nil {
				return fe
			}
		}
	}
	return add(p.field("overhead"), in.GetOverhead())
}

// requestTotalsWithin reports whether, for every resource, the pod's
// requests add up to at most model.MaxAmount. Each amount is within
// [0, model.MaxAmount] already.
func requestTotalsWithin(in *berthv1.Pod) bool {
	cs, inits, overhead := in.GetContainers(), in.GetInitContainers(), in.GetOverhead()
	if len(cs) == 1 && len(inits) == 0 && len(overhead) == 0 {
		return true // one list of amounts, each within bounds
	}
	sums := make(map[string]int64, 4)
	add := func(m map[string]int64) bool {
		for k, v := range m {
			if v > model.MaxAmount-sums[k] {
				return false
			}
			sums[k] += v
		}
		return true
	}
	for _, c := range cs {
		if !add(c.GetRequests()) {
			return false
		}
	}
	for _, c := range inits {
		if !add(c.GetRequests()) {
			return false
		}
	}
	return add(overhead)
}

// podLevelRequests validates pod-level requests like container requests,
// and as Kubernetes does: only cpu, memory and hugepages-* may be requested
// at pod level, each at least the containers' aggregate request. out holds
// the converted containers.
func podLevelRequests(p path, in map[string]int64, out *model.Pod) *FieldError {
	if fe := resources(p, in); fe != nil {
		return fe
	}
	if len(in) == 0 {
		return nil
	}
	aggregate := model.AggregateContainerRequests(out)
	valid := true
	for k, v := range in {
		agg, ok := aggregate[k]
		valid = valid && model.IsPodLevelResource(k) && (!ok || v >= agg)
	}
	if valid {
		return nil
	}
	// The first problem in key order is reported.
	for _, k := range sortedKeys(in) {
		if !model.IsPodLevelResource(k) {
			return p.key(k).errorf("unsupported at pod level: only cpu, memory and hugepages-<size> may be requested for the pod as a whole")
		}
		if agg, ok := aggregate[k]; ok && in[k] < agg {
			return p.key(k).errorf("must be at least the containers' aggregate request %d, got %d", agg, in[k])
		}
	}
	return nil
}

// workloadSelectors converts the selectors of the pod's workloads; each
// must select the pod itself, as its controller's and its Services' do.
func workloadSelectors(p path, in []*berthv1.LabelSelector, podLabels map[string]string) ([]model.LabelSelector, *FieldError) {
	if fe := overCap(p, len(in), MaxWorkloadSelectors); fe != nil {
		return nil, fe
	}
	out := sized[model.LabelSelector](len(in))
	for i, ws := range in {
		wp := p.index(i)
		if ws == nil {
			return nil, wp.errorf("required")
		}
		sel, fe := labelSelector(wp, ws)
		if fe != nil {
			return nil, fe
		}
		compiled, err := sel.Compile()
		if err != nil {
			return nil, wp.errorf("%v", err)
		}
		if !compiled.Matches(podLabels) {
			return nil, wp.errorf("does not select the pod's own labels: a workload selector must match the pod")
		}
		out = append(out, *sel)
	}
	return out, nil
}

// uniqueHostPorts refuses a pod taking the same host port, protocol and
// address twice, as Kubernetes does.
func uniqueHostPorts(p path, in *berthv1.Pod) *FieldError {
	type hostPort struct {
		port  int32
		proto berthv1.Protocol
		ip    string
	}
	type portAt struct {
		list string
		i, j int
	}
	var seen map[hostPort]portAt // made at the first host port: most pods take none
	for _, list := range []struct {
		name string
		cs   []*berthv1.Container
	}{{"containers", in.GetContainers()}, {"init_containers", in.GetInitContainers()}} {
		for i, c := range list.cs {
			for j, cport := range c.GetPorts() {
				if cport.GetHostPort() == 0 {
					continue
				}
				proto := cport.GetProtocol()
				if proto == berthv1.Protocol_PROTOCOL_UNSPECIFIED {
					proto = berthv1.Protocol_PROTOCOL_TCP
				}
				k := hostPort{cport.GetHostPort(), proto, cport.GetHostIp()}
				if prev, dup := seen[k]; dup {
					return hostPortPath(p, list.name, i, j).errorf("host port %d/%s is also taken by %s", k.port, proto, hostPortPath(p, prev.list, prev.i, prev.j))
				}
				if seen == nil {
					seen = map[hostPort]portAt{}
				}
				seen[k] = portAt{list.name, i, j}
			}
		}
	}
	return nil
}

// hostPortPath is the path of the host_port of port j of container i in
// the list field of the pod at p, rendered (the error that needs it keeps
// no path).
func hostPortPath(p path, list string, i, j int) path {
	lp := p.field(list)
	cp := lp.index(i)
	psp := cp.field("ports")
	pp := psp.index(j)
	return rootPath(pp.field("host_port").String())
}

func tolerations(p path, in []*berthv1.Toleration) ([]model.Toleration, *FieldError) {
	if len(in) == 0 {
		return nil, nil
	}
	if fe := overCap(p, len(in), MaxTolerations); fe != nil {
		return nil, fe
	}
	out := make([]model.Toleration, 0, len(in))
	// The tolerations' seconds share one allocation.
	var secs []int64
	for _, t := range in {
		if t.TolerationSeconds != nil {
			secs = make([]int64, 0, len(in))
			break
		}
	}
	ops, effects := tolerationOperators(), taintEffects()
	for i, t := range in {
		tp := p.index(i)
		if t == nil {
			return nil, tp.errorf("required")
		}
		op, fe := ops.model(tp.field("operator"), t.GetOperator(), true)
		if fe != nil {
			return nil, fe
		}
		effect, fe := effects.model(tp.field("effect"), t.GetEffect(), true)
		if fe != nil {
			return nil, fe
		}
		if t.GetKey() == "" {
			if op != model.TolerationOpExists {
				return nil, tp.field("operator").errorf("must be TOLERATION_OPERATOR_EXISTS when key is empty")
			}
		} else if fe := qualifiedName(tp.field("key"), t.GetKey()); fe != nil {
			return nil, fe
		}
		if op == model.TolerationOpExists && t.GetValue() != "" {
			return nil, tp.field("value").errorf("must be empty when operator is TOLERATION_OPERATOR_EXISTS")
		}
		if fe := labelValue(tp.field("value"), t.GetValue()); fe != nil {
			return nil, fe
		}
		mt := model.Toleration{Key: t.GetKey(), Operator: op, Value: t.GetValue(), Effect: effect}
		if t.TolerationSeconds != nil {
			if effect != model.TaintEffectNoExecute {
				return nil, tp.field("toleration_seconds").errorf("may only be set when effect is TAINT_EFFECT_NO_EXECUTE")
			}
			secs = append(secs, t.GetTolerationSeconds())
			mt.TolerationSeconds = &secs[len(secs)-1]
		}
		out = append(out, mt)
	}
	return out, nil
}

func timestamp(p path, ts *timestamppb.Timestamp) (time.Time, *FieldError) {
	if ts == nil {
		return time.Time{}, nil
	}
	if err := ts.CheckValid(); err != nil {
		return time.Time{}, p.errorf("invalid timestamp: %v", err)
	}
	return ts.AsTime(), nil
}

func timestampToProto(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// PodToProto converts a model pod to its wire form. The priority sent is
// the one the caller requested (RequestedPriority), not the one admission
// resolved, so that converting back gives the same pod.
func PodToProto(in *model.Pod) *berthv1.Pod {
	if in == nil {
		return nil
	}
	out := &berthv1.Pod{
		Uid: in.UID, Namespace: in.Namespace, Name: in.Name,
		Labels:                    maps.Clone(in.Labels),
		SchedulerName:             in.SchedulerName,
		PriorityClassName:         in.PriorityClassName,
		PreemptionPolicy:          preemptionPolicies().proto(in.PreemptionPolicy),
		Containers:                containersToProto(in.Containers),
		InitContainers:            containersToProto(in.InitContainers),
		Overhead:                  cloneResources(in.Overhead),
		PodLevelRequests:          cloneResources(in.PodLevelRequests),
		NodeSelector:              maps.Clone(in.NodeSelector),
		Affinity:                  affinityToProto(in.Affinity),
		TopologySpreadConstraints: spreadConstraintsToProto(in.TopologySpreadConstraints),
		SchedulingGates:           slices.Clone(in.SchedulingGates),
		WorkloadSelectors:         workloadSelectorsToProto(in.WorkloadSelectors),
		NodeName:                  in.NodeName,
		NominatedNodeName:         in.NominatedNodeName,
		CreationTime:              timestampToProto(in.CreationTime),
		StartTime:                 timestampToProto(in.StartTime),
		Ready:                     in.Ready,
		Terminating:               in.Terminating,
		Preempted:                 in.Preempted,
		ResourceClaims:            podClaimsToProto(in.ResourceClaims),
		Volumes:                   podVolumesToProto(in.Volumes),
		SchedulingGroup:           in.SchedulingGroup,
		Runtime:                   podRuntimeToProto(in.Runtime),
	}
	if in.RequestedPriority != nil {
		out.Priority = ptr(*in.RequestedPriority)
	}
	ops, effects := tolerationOperators(), taintEffects()
	for _, t := range in.Tolerations {
		pt := &berthv1.Toleration{Key: t.Key, Operator: ops.proto(t.Operator), Value: t.Value, Effect: effects.proto(t.Effect)}
		if t.TolerationSeconds != nil {
			pt.TolerationSeconds = ptr(*t.TolerationSeconds)
		}
		out.Tolerations = append(out.Tolerations, pt)
	}
	return out
}

func workloadSelectorsToProto(in []model.LabelSelector) []*berthv1.LabelSelector {
	var out []*berthv1.LabelSelector
	for i := range in {
		out = append(out, labelSelectorToProto(&in[i]))
	}
	return out
}

func containersToProto(in []model.Container) []*berthv1.Container {
	var out []*berthv1.Container
	protos := protocols()
	for _, c := range in {
		pc := &berthv1.Container{Name: c.Name, Requests: cloneResources(c.Requests), Claims: slices.Clone(c.Claims), Image: c.Image}
		if c.RestartAlways {
			pc.RestartPolicy = berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_ALWAYS
		}
		for _, cport := range c.Ports {
			pc.Ports = append(pc.Ports, &berthv1.ContainerPort{
				ContainerPort: cport.ContainerPort, HostPort: cport.HostPort, HostIp: cport.HostIP, Protocol: protos.proto(cport.Protocol),
			})
		}
		out = append(out, pc)
	}
	return out
}

func cloneResources(m map[string]int64) model.ResourceList {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
