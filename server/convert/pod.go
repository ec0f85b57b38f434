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
	out, fe := pod("", in)
	if fe != nil {
		return nil, fe
	}
	return out, nil
}

func pod(p path, in *berthv1.Pod) (*model.Pod, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	for _, c := range []struct {
		name  string
		check func(path, string) *FieldError
		v     string
	}{
		{"uid", required, in.GetUid()},
		{"namespace", dnsLabel, in.GetNamespace()},
		{"name", subdomain, in.GetName()},
		{"scheduler_name", optionalSubdomain, in.GetSchedulerName()},
		{"priority_class_name", optionalSubdomain, in.GetPriorityClassName()},
		{"node_name", optionalSubdomain, in.GetNodeName()},
		{"nominated_node_name", optionalSubdomain, in.GetNominatedNodeName()},
	} {
		if fe := c.check(p.field(c.name), c.v); fe != nil {
			return nil, fe
		}
	}
	if fe := labels(p.field("labels"), in.GetLabels()); fe != nil {
		return nil, fe
	}
	policy, fe := preemptionPolicies().model(p.field("preemption_policy"), in.GetPreemptionPolicy(), true)
	if fe != nil {
		return nil, fe
	}
	out := &model.Pod{
		UID: in.GetUid(), Namespace: in.GetNamespace(), Name: in.GetName(),
		Labels:            maps.Clone(in.GetLabels()),
		SchedulerName:     in.GetSchedulerName(),
		PriorityClassName: in.GetPriorityClassName(),
		PreemptionPolicy:  policy,
		NodeName:          in.GetNodeName(),
		NominatedNodeName: in.GetNominatedNodeName(),
		Ready:             in.GetReady(),
		Terminating:       in.GetTerminating(),
		Preempted:         in.GetPreempted(),
	}
	if in.Priority != nil {
		out.RequestedPriority, out.Priority = ptr(in.GetPriority()), in.GetPriority()
	}
	if len(in.GetContainers()) == 0 {
		return nil, p.field("containers").errorf("at least one container is required")
	}
	names := map[string]path{}
	if out.Containers, fe = containers(p.field("containers"), in.GetContainers(), false, names); fe != nil {
		return nil, fe
	}
	if out.InitContainers, fe = containers(p.field("init_containers"), in.GetInitContainers(), true, names); fe != nil {
		return nil, fe
	}
	if fe := uniqueHostPorts(p, in); fe != nil {
		return nil, fe
	}
	if fe := resources(p.field("overhead"), in.GetOverhead()); fe != nil {
		return nil, fe
	}
	if fe := requestTotals(p, in); fe != nil {
		return nil, fe
	}
	out.Overhead = cloneResources(in.GetOverhead())
	if fe := podLevelRequests(p.field("pod_level_requests"), in.GetPodLevelRequests(), out); fe != nil {
		return nil, fe
	}
	out.PodLevelRequests = cloneResources(in.GetPodLevelRequests())
	if fe := labels(p.field("node_selector"), in.GetNodeSelector()); fe != nil {
		return nil, fe
	}
	out.NodeSelector = maps.Clone(in.GetNodeSelector())
	if out.Affinity, fe = affinity(p.field("affinity"), in.GetAffinity()); fe != nil {
		return nil, fe
	}
	if out.Tolerations, fe = tolerations(p.field("tolerations"), in.GetTolerations()); fe != nil {
		return nil, fe
	}
	if out.TopologySpreadConstraints, fe = spreadConstraints(p.field("topology_spread_constraints"), in.GetTopologySpreadConstraints()); fe != nil {
		return nil, fe
	}
	if out.WorkloadSelectors, fe = workloadSelectors(p.field("workload_selectors"), in.GetWorkloadSelectors(), out.Labels); fe != nil {
		return nil, fe
	}
	gp := p.field("scheduling_gates")
	for i, g := range in.GetSchedulingGates() {
		if fe := qualifiedName(gp.index(i), g); fe != nil {
			return nil, fe
		}
		if j := slices.Index(in.GetSchedulingGates(), g); j < i {
			return nil, gp.index(i).errorf("duplicate of scheduling_gates[%d] %q", j, g)
		}
	}
	out.SchedulingGates = slices.Clone(in.GetSchedulingGates())
	if out.CreationTime, fe = timestamp(p.field("creation_time"), in.GetCreationTime()); fe != nil {
		return nil, fe
	}
	if out.StartTime, fe = timestamp(p.field("start_time"), in.GetStartTime()); fe != nil {
		return nil, fe
	}
	return out, nil
}

// containers converts regular or init containers. names records the names
// seen so far: they must be unique across both lists.
func containers(p path, in []*berthv1.Container, init bool, names map[string]path) ([]model.Container, *FieldError) {
	var out []model.Container
	protos := protocols()
	for i, c := range in {
		cp := p.index(i)
		if c == nil {
			return nil, cp.errorf("required")
		}
		if fe := dnsLabel(cp.field("name"), c.GetName()); fe != nil {
			return nil, fe
		}
		if prev, dup := names[c.GetName()]; dup {
			return nil, cp.field("name").errorf("duplicate container name %q (also %s)", c.GetName(), prev)
		}
		names[c.GetName()] = cp.field("name")
		if fe := resources(cp.field("requests"), c.GetRequests()); fe != nil {
			return nil, fe
		}
		mc := model.Container{Name: c.GetName(), Requests: cloneResources(c.GetRequests())}
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
		for j, cport := range c.GetPorts() {
			pp := cp.field("ports").index(j)
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
		for i, c := range list.cs {
			if fe := add(p.field(list.name).index(i).field("requests"), c.GetRequests()); fe != nil {
				return fe
			}
		}
	}
	return add(p.field("overhead"), in.GetOverhead())
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
	var out []model.LabelSelector
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
	seen := map[hostPort]path{}
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
				hp := p.field(list.name).index(i).field("ports").index(j).field("host_port")
				if prev, dup := seen[k]; dup {
					return hp.errorf("host port %d/%s is also taken by %s", k.port, proto, prev)
				}
				seen[k] = hp
			}
		}
	}
	return nil
}

func tolerations(p path, in []*berthv1.Toleration) ([]model.Toleration, *FieldError) {
	var out []model.Toleration
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
			mt.TolerationSeconds = ptr(t.GetTolerationSeconds())
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
		pc := &berthv1.Container{Name: c.Name, Requests: cloneResources(c.Requests)}
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
