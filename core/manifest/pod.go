package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
)

// Tolerations the DefaultTolerationSeconds admission plugin adds to every
// pod that does not already tolerate these NoExecute taints.
const (
	taintNotReady           = "node.kubernetes.io/not-ready"
	taintUnreachable        = "node.kubernetes.io/unreachable"
	defaultTolerationSecond = int64(300)
)

func convertPod(p *corev1.Pod) (*model.Pod, *fieldError) {
	pod := &model.Pod{
		UID:               string(p.UID),
		Namespace:         p.Namespace,
		Name:              p.Name,
		Labels:            copyMap(p.Labels),
		SchedulerName:     p.Spec.SchedulerName,
		PriorityClassName: p.Spec.PriorityClassName,
		NodeSelector:      copyMap(p.Spec.NodeSelector),
		NodeName:          p.Spec.NodeName,
		NominatedNodeName: p.Status.NominatedNodeName,
		CreationTime:      p.CreationTimestamp.Time.UTC(),
		Terminating:       p.DeletionTimestamp != nil,
		Preempted:         preemptedByScheduler(p),
		Ready:             podReady(p),
		SchedulingGroup:   podGroupName(schedulingGroupName(p), p.Labels),
		Runtime:           podRuntime(p),
	}
	if pod.UID == "" {
		pod.UID = "pod-" + p.Namespace + "-" + p.Name
	}
	if pod.SchedulerName == "" {
		pod.SchedulerName = model.DefaultSchedulerName
	}
	if p.Status.StartTime != nil {
		pod.StartTime = p.Status.StartTime.Time.UTC()
	} else if pod.NodeName != "" && !p.CreationTimestamp.IsZero() {
		pod.StartTime = pod.CreationTime
	}
	if p.Spec.Priority != nil {
		v := *p.Spec.Priority
		pod.Priority, pod.RequestedPriority = v, &v
	}
	if p.Spec.PreemptionPolicy != nil {
		pol, err := preemptionPolicy(*p.Spec.PreemptionPolicy)
		if err != nil {
			return nil, &fieldError{field: "spec.preemptionPolicy", err: err}
		}
		pod.PreemptionPolicy = pol
	}
	if len(p.Spec.Containers) == 0 {
		return nil, &fieldError{field: "spec.containers", err: fmt.Errorf("at least one container is required")}
	}
	var ferr *fieldError
	if pod.Containers, ferr = containers(p.Spec.Containers, "spec.containers", false); ferr != nil {
		return nil, ferr
	}
	if pod.InitContainers, ferr = containers(p.Spec.InitContainers, "spec.initContainers", true); ferr != nil {
		return nil, ferr
	}
	if pod.PodLevelRequests, ferr = podLevelRequests(p, pod); ferr != nil {
		return nil, ferr
	}
	if pod.NodeName != "" {
		resizedRequests(p, pod)
	}
	if len(p.Spec.Overhead) > 0 {
		if pod.Overhead, ferr = resourceList(p.Spec.Overhead); ferr != nil {
			return nil, &fieldError{field: "spec.overhead" + ferr.field, err: ferr.err}
		}
	}
	if pod.Affinity, ferr = affinity(p.Spec.Affinity); ferr != nil {
		ferr.field = "spec.affinity" + ferr.field
		return nil, ferr
	}
	if pod.Tolerations, ferr = tolerations(p.Spec.Tolerations); ferr != nil {
		return nil, ferr
	}
	if pod.TopologySpreadConstraints, ferr = spreadConstraints(p.Spec.TopologySpreadConstraints); ferr != nil {
		return nil, ferr
	}
	for _, g := range p.Spec.SchedulingGates {
		pod.SchedulingGates = append(pod.SchedulingGates, g.Name)
	}
	return pod, nil
}

// podLevelRequests reads spec.resources (PodLevelResources) into the pod's
// pod-level requests, with the API server's defaults and checks: only cpu,
// memory and hugepages-* may be given; with pod-level limits, a missing
// pod-level request defaults to the containers' aggregate request (cpu,
// memory) or else to the pod-level limit, and a hugepages limit to the
// containers' aggregate limit; a request may exceed neither its limit nor
// fall below the containers' aggregate request. pod holds the converted
// containers.
func podLevelRequests(p *corev1.Pod, pod *model.Pod) (model.ResourceList, *fieldError) {
	res := p.Spec.Resources
	if res == nil || len(res.Requests)+len(res.Limits) == 0 {
		return nil, nil
	}
	if len(res.Claims) > 0 {
		return nil, &fieldError{field: "spec.resources.claims", err: fmt.Errorf("may not be set at pod level")}
	}
	requests, ferr := podLevelList(res.Requests, "spec.resources.requests")
	if ferr != nil {
		return nil, ferr
	}
	limits, ferr := podLevelList(res.Limits, "spec.resources.limits")
	if ferr != nil {
		return nil, ferr
	}
	// Hugepages limits of the containers make the pod's limit.
	ctrLimits, ferr := containerLimits(p)
	if ferr != nil {
		return nil, ferr
	}
	for name, v := range model.AggregateContainerRequests(ctrLimits) {
		if !strings.HasPrefix(name, model.ResourceHugePagesPrefix) {
			continue
		}
		_, req := requests[name]
		_, lim := limits[name]
		if !req && !lim {
			limits[name] = v
		}
	}
	aggregate := model.AggregateContainerRequests(pod)
	if len(limits) > 0 {
		for _, name := range []string{model.ResourceCPU, model.ResourceMemory} {
			if v, ok := aggregate[name]; ok {
				if _, set := requests[name]; !set {
					requests[name] = v
				}
			}
		}
		for name, v := range limits {
			if _, set := requests[name]; !set {
				requests[name] = v
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(requests)) {
		at := "spec.resources.requests[" + name + "]"
		if lim, ok := limits[name]; ok && requests[name] > lim {
			return nil, &fieldError{field: at, err: fmt.Errorf("must be less than or equal to the pod-level limit")}
		}
		if agg, ok := aggregate[name]; ok && requests[name] < agg {
			return nil, &fieldError{field: at, err: fmt.Errorf("must be greater than or equal to the aggregate of the container requests (%d %s)", agg, unitOf(name))}
		}
	}
	if len(requests) == 0 {
		return nil, nil
	}
	return requests, nil
}

// podLevelList converts a pod-level resource list; only cpu, memory and
// hugepages-* are allowed there.
func podLevelList(l corev1.ResourceList, at string) (model.ResourceList, *fieldError) {
	for name := range l {
		if !model.IsPodLevelResource(string(name)) {
			return nil, &fieldError{field: at + "[" + string(name) + "]", err: fmt.Errorf("unsupported at pod level: only cpu, memory and hugepages-<size> may be requested for the pod as a whole")}
		}
	}
	out, ferr := resourceList(l)
	if ferr != nil {
		return nil, &fieldError{field: at + ferr.field, err: ferr.err}
	}
	return out, nil
}

// containerLimits is the pod's containers with their limits as requests,
// for aggregating limits.
func containerLimits(p *corev1.Pod) (*model.Pod, *fieldError) {
	out := &model.Pod{}
	for _, list := range []struct {
		in   []corev1.Container
		out  *[]model.Container
		path string
	}{{p.Spec.Containers, &out.Containers, "spec.containers"}, {p.Spec.InitContainers, &out.InitContainers, "spec.initContainers"}} {
		for i, c := range list.in {
			l, ferr := resourceList(c.Resources.Limits)
			if ferr != nil {
				return nil, &fieldError{field: fmt.Sprintf("%s[%d].resources.limits%s", list.path, i, ferr.field), err: ferr.err}
			}
			restart := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
			*list.out = append(*list.out, model.Container{Name: c.Name, Requests: l, RestartAlways: restart})
		}
	}
	return out, nil
}

// unitOf names the canonical unit of a resource in messages.
func unitOf(name string) string {
	switch {
	case name == model.ResourceCPU:
		return "millicores"
	case name == model.ResourceMemory, name == model.ResourceEphemeralStorage, strings.HasPrefix(name, model.ResourceHugePagesPrefix):
		return "bytes"
	}
	return "units"
}

// podReady follows the disruption controller: a pod without a Ready
// condition counts as healthy.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

// preemptedByScheduler reads the pod's DisruptionTarget condition (the
// first one decides): True with reason PreemptionByScheduler means a
// scheduler preempted the pod.
func preemptedByScheduler(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// containers converts containers, defaulting each missing request to the
// container's limit as the API server does.
func containers(cs []corev1.Container, path string, init bool) ([]model.Container, *fieldError) {
	if len(cs) == 0 {
		return nil, nil
	}
	out := make([]model.Container, 0, len(cs))
	for i, c := range cs {
		at := fmt.Sprintf("%s[%d]", path, i)
		reqs := corev1.ResourceList{}
		for name, q := range c.Resources.Limits {
			reqs[name] = q
		}
		for name, q := range c.Resources.Requests {
			reqs[name] = q
		}
		list, ferr := resourceList(reqs)
		if ferr != nil {
			return nil, &fieldError{field: at + ".resources.requests" + ferr.field, err: ferr.err}
		}
		if err := validImage(c.Image, false); err != nil {
			return nil, &fieldError{field: at + ".image", err: err}
		}
		mc := model.Container{Name: c.Name, Requests: list, Image: c.Image}
		for _, rc := range c.Resources.Claims {
			mc.Claims = append(mc.Claims, rc.Name)
		}
		if init && c.RestartPolicy != nil {
			if *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
				return nil, &fieldError{field: at + ".restartPolicy", err: fmt.Errorf("only Always is allowed for init containers, got %q", *c.RestartPolicy)}
			}
			mc.RestartAlways = true
		}
		for j, port := range c.Ports {
			if port.HostPort < 0 || port.HostPort > 65535 {
				return nil, &fieldError{field: fmt.Sprintf("%s.ports[%d].hostPort", at, j), err: fmt.Errorf("must be 0..65535, got %d", port.HostPort)}
			}
			proto := string(port.Protocol)
			if proto == "" {
				proto = string(corev1.ProtocolTCP)
			}
			mc.Ports = append(mc.Ports, model.ContainerPort{ContainerPort: port.ContainerPort, HostPort: port.HostPort, HostIP: port.HostIP, Protocol: proto})
		}
		out = append(out, mc)
	}
	return out, nil
}

func tolerations(ts []corev1.Toleration) ([]model.Toleration, *fieldError) {
	var out []model.Toleration
	notReady, unreachable := false, false
	for i, t := range ts {
		at := fmt.Sprintf("spec.tolerations[%d]", i)
		op := model.TolerationOperator(t.Operator)
		switch t.Operator {
		case "", corev1.TolerationOpEqual:
			op = model.TolerationOpEqual
		case corev1.TolerationOpExists:
			if t.Value != "" {
				return nil, &fieldError{field: at + ".value", err: fmt.Errorf("must be empty when operator is Exists")}
			}
		default:
			return nil, &fieldError{field: at + ".operator", err: fmt.Errorf("must be Equal or Exists, got %q", t.Operator)}
		}
		if err := validEffect(t.Effect, true); err != nil {
			return nil, &fieldError{field: at + ".effect", err: err}
		}
		mt := model.Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: model.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds}
		out = append(out, mt)
		notReady = notReady || mt.Tolerates(&model.Taint{Key: taintNotReady, Effect: model.TaintEffectNoExecute})
		unreachable = unreachable || mt.Tolerates(&model.Taint{Key: taintUnreachable, Effect: model.TaintEffectNoExecute})
	}
	secs := defaultTolerationSecond
	if !notReady {
		out = append(out, model.Toleration{Key: taintNotReady, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: &secs})
	}
	if !unreachable {
		out = append(out, model.Toleration{Key: taintUnreachable, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: &secs})
	}
	return out, nil
}

func spreadConstraints(cs []corev1.TopologySpreadConstraint) ([]model.TopologySpreadConstraint, *fieldError) {
	var out []model.TopologySpreadConstraint
	for i, c := range cs {
		at := fmt.Sprintf("spec.topologySpreadConstraints[%d]", i)
		if c.MaxSkew <= 0 {
			return nil, &fieldError{field: at + ".maxSkew", err: fmt.Errorf("must be greater than zero, got %d", c.MaxSkew)}
		}
		if c.TopologyKey == "" {
			return nil, &fieldError{field: at + ".topologyKey", err: fmt.Errorf("required")}
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			return nil, &fieldError{field: at + ".whenUnsatisfiable", err: fmt.Errorf("must be DoNotSchedule or ScheduleAnyway, got %q", c.WhenUnsatisfiable)}
		}
		if c.MinDomains != nil && (*c.MinDomains <= 0 || c.WhenUnsatisfiable != corev1.DoNotSchedule) {
			return nil, &fieldError{field: at + ".minDomains", err: fmt.Errorf("must be greater than zero and used only with DoNotSchedule")}
		}
		sel, ferr := labelSelector(c.LabelSelector)
		if ferr != nil {
			return nil, &fieldError{field: at + ".labelSelector" + ferr.field, err: ferr.err}
		}
		mc := model.TopologySpreadConstraint{
			MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey,
			WhenUnsatisfiable: model.UnsatisfiableConstraintAction(c.WhenUnsatisfiable),
			LabelSelector:     sel, MinDomains: c.MinDomains, MatchLabelKeys: c.MatchLabelKeys,
		}
		for _, pol := range []struct {
			in   *corev1.NodeInclusionPolicy
			out  **model.NodeInclusionPolicy
			name string
		}{{c.NodeAffinityPolicy, &mc.NodeAffinityPolicy, ".nodeAffinityPolicy"}, {c.NodeTaintsPolicy, &mc.NodeTaintsPolicy, ".nodeTaintsPolicy"}} {
			if pol.in == nil {
				continue
			}
			if *pol.in != corev1.NodeInclusionPolicyHonor && *pol.in != corev1.NodeInclusionPolicyIgnore {
				return nil, &fieldError{field: at + pol.name, err: fmt.Errorf("must be Honor or Ignore, got %q", *pol.in)}
			}
			v := model.NodeInclusionPolicy(*pol.in)
			*pol.out = &v
		}
		out = append(out, mc)
	}
	return out, nil
}

// labelSelector converts and validates a label selector: keys must be
// qualified names and values label values, as the API server checks.
func labelSelector(ls *metav1.LabelSelector) (*model.LabelSelector, *fieldError) {
	if ls == nil {
		return nil, nil
	}
	if ferr := validLabels(ls.MatchLabels); ferr != nil {
		ferr.field = ".matchLabels" + ferr.field
		return nil, ferr
	}
	out := &model.LabelSelector{MatchLabels: copyMap(ls.MatchLabels)}
	for i, e := range ls.MatchExpressions {
		at := fmt.Sprintf(".matchExpressions[%d]", i)
		if errs := validation.IsQualifiedName(e.Key); len(errs) > 0 {
			return nil, &fieldError{field: at + ".key", err: fmt.Errorf("invalid label key %q: %s", e.Key, strings.Join(errs, "; "))}
		}
		for j, v := range e.Values {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				return nil, &fieldError{field: fmt.Sprintf("%s.values[%d]", at, j), err: fmt.Errorf("invalid label value %q: %s", v, strings.Join(errs, "; "))}
			}
		}
		out.MatchExpressions = append(out.MatchExpressions, model.LabelSelectorRequirement{
			Key: e.Key, Operator: model.LabelSelectorOperator(e.Operator), Values: e.Values,
		})
	}
	if _, err := out.Compile(); err != nil {
		return nil, &fieldError{field: "", err: err}
	}
	return out, nil
}

// validLabels checks label keys and values as the API server does.
func validLabels(labels map[string]string) *fieldError {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return &fieldError{field: "[" + k + "]", err: fmt.Errorf("invalid label key %q: %s", k, strings.Join(errs, "; "))}
		}
		if errs := validation.IsValidLabelValue(labels[k]); len(errs) > 0 {
			return &fieldError{field: "[" + k + "]", err: fmt.Errorf("invalid label value %q: %s", labels[k], strings.Join(errs, "; "))}
		}
	}
	return nil
}

// resizedRequests applies in-place resizes to a running pod's requests as
// kube-scheduler counts them: per container (and sidecar) that reports
// resources in its status, the larger of the spec, the status and the
// allocated requests, per resource; when the resize is infeasible (a
// PodResizePending condition with reason Infeasible) the spec does not
// count, only what the node runs. Pod-level requests the same way, from
// the pod's status.
func resizedRequests(p *corev1.Pod, pod *model.Pod) {
	infeasible := false
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodResizePending {
			infeasible = c.Reason == corev1.PodReasonInfeasible
			break
		}
	}
	statuses := map[string]*corev1.ContainerStatus{}
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			statuses[list[i].Name] = &list[i]
		}
	}
	effective := func(spec model.ResourceList, actuated, allocated corev1.ResourceList) model.ResourceList {
		out := model.ResourceList{}
		if !infeasible {
			maps.Copy(out, spec)
		}
		for _, l := range []corev1.ResourceList{actuated, allocated} {
			for name, q := range l {
				if v, cur := quantityValue(string(name), q), out[string(name)]; v > cur || !has(out, string(name)) {
					out[string(name)] = v
				}
			}
		}
		return out
	}
	apply := func(cs []model.Container, sidecarsOnly bool) {
		for i := range cs {
			st := statuses[cs[i].Name]
			if st == nil || st.Resources == nil || (sidecarsOnly && !cs[i].RestartAlways) {
				continue
			}
			cs[i].Requests = effective(cs[i].Requests, st.Resources.Requests, st.AllocatedResources)
		}
	}
	apply(pod.Containers, false)
	apply(pod.InitContainers, true)
	if len(pod.PodLevelRequests) > 0 && p.Status.Resources != nil {
		eff := effective(pod.PodLevelRequests, p.Status.Resources.Requests, p.Status.AllocatedResources)
		for name := range pod.PodLevelRequests {
			pod.PodLevelRequests[name] = eff[name]
		}
	}
}

func has(l model.ResourceList, name string) bool {
	_, ok := l[name]
	return ok
}

func schedulingGroupName(p *corev1.Pod) *string {
	if p.Spec.SchedulingGroup == nil {
		return nil
	}
	return p.Spec.SchedulingGroup.PodGroupName
}
