package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/model"
)

// Pod groups (gang scheduling) come from three sources:
//   - kube 1.36's PodGroup (scheduling.k8s.io/v1alpha2): a gang policy's
//     minCount, or, with none of its own, the policy of the Workload
//     pod-group template its podGroupTemplateRef names; a basic policy is
//     a group of one (every pod on its own);
//   - kube's Workload: read for its podGroupTemplates only;
//   - scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1): minMember.
// Pods join with spec.schedulingGroup.podGroupName or the
// scheduling.x-k8s.io/pod-group label.

// LabelPodGroup is scheduler-plugins' label naming a pod's PodGroup.
const LabelPodGroup = "scheduling.x-k8s.io/pod-group"

const coschedulingAPIVersion = "scheduling.x-k8s.io/v1alpha1"

// coschedulingPodGroup is the part of scheduler-plugins' PodGroup Berth
// reads (its Go types are not a dependency of Berth).
type coschedulingPodGroup struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		MinMember int32 `json:"minMember"`
	} `json:"spec"`
}

// coschedulingGroup turns a scheduler-plugins PodGroup document into kube's
// PodGroup with a gang policy, so one conversion serves both.
func coschedulingGroup(raw []byte) (*schedulingv1alpha2.PodGroup, error) {
	var in coschedulingPodGroup
	if err := yaml.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	out := &schedulingv1alpha2.PodGroup{ObjectMeta: in.Metadata}
	out.Spec.SchedulingPolicy.Gang = &schedulingv1alpha2.GangSchedulingPolicy{MinCount: in.Spec.MinMember}
	return out, nil
}

// templateKey names a Workload's pod-group template.
type templateKey struct{ namespace, workload, template string }

// indexWorkloadTemplates records a Workload's pod-group templates.
func (b *builder) indexWorkloadTemplates(w *schedulingv1alpha2.Workload) {
	if b.templates == nil {
		b.templates = map[templateKey]schedulingv1alpha2.PodGroupTemplate{}
	}
	ns := w.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	for _, t := range w.Spec.PodGroupTemplates {
		b.templates[templateKey{ns, w.Name, t.Name}] = t
	}
}

func (b *builder) addPodGroup(e *entry, g *schedulingv1alpha2.PodGroup) error {
	if g.Name == "" {
		return e.fail("metadata.name", fmt.Errorf("required"))
	}
	ns := g.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	policy, field := g.Spec.SchedulingPolicy, "spec.schedulingPolicy"
	if policy.Gang == nil && policy.Basic == nil {
		ref := g.Spec.PodGroupTemplateRef
		if ref == nil || ref.Workload == nil {
			return e.fail(field, fmt.Errorf("required: gang (with minCount), basic, or a spec.podGroupTemplateRef naming a Workload's template"))
		}
		t, ok := b.templates[templateKey{ns, ref.Workload.WorkloadName, ref.Workload.PodGroupTemplateName}]
		if !ok {
			return e.fail("spec.podGroupTemplateRef.workload", fmt.Errorf("no Workload %s/%s with podGroupTemplate %q in the manifests",
				ns, ref.Workload.WorkloadName, ref.Workload.PodGroupTemplateName))
		}
		policy = t.SchedulingPolicy
	}
	if ferr := validLabels(g.Labels); ferr != nil {
		return e.fail("metadata.labels"+ferr.field, ferr.err)
	}
	out := &model.PodGroup{Namespace: ns, Name: g.Name, MinCount: 1, PriorityClassName: g.Spec.PriorityClassName, RequestedPriority: g.Spec.Priority,
		PreemptionPolicy: e.groupPolicy, Labels: copyMap(g.Labels), Parent: e.groupParent}
	if m := g.Spec.DisruptionMode; m != nil {
		switch *m {
		case schedulingv1alpha2.DisruptionModePod:
		case schedulingv1alpha2.DisruptionModePodGroup:
			out.DisruptionAll = true
		default:
			return e.fail("spec.disruptionMode", fmt.Errorf("unknown mode %q: Pod or PodGroup", *m))
		}
	}
	if policy.Gang != nil {
		if policy.Gang.MinCount < 1 {
			return e.fail(field+".gang.minCount", fmt.Errorf("must be at least 1, got %d", policy.Gang.MinCount))
		}
		out.MinCount = policy.Gang.MinCount
	}
	if c := g.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		out.TopologyKey = c.Topology[0].Key
	}
	b.cluster.PodGroups = append(b.cluster.PodGroups, out)
	if q, ok := g.Labels[QueueNameLabel]; ok {
		b.queuedGroup(out, q)
	}
	b.cluster.Origins[out] = e.at
	return nil
}

// podGroupName is the group a pod names: spec.schedulingGroup first, then
// scheduler-plugins' label.
func podGroupName(spec *string, labels map[string]string) string {
	if spec != nil && *spec != "" {
		return *spec
	}
	return labels[LabelPodGroup]
}

// The scheduling.k8s.io versions of kube 1.37's PodGroup and Workload
// (v1alpha3 has CompositePodGroup too).
const (
	schedulingV1beta1  = "scheduling.k8s.io/v1beta1"
	schedulingV1alpha3 = "scheduling.k8s.io/v1alpha3"
)

// schedulingV1alpha2 is kube 1.36's spelling of PodGroup and Workload,
// removed in 1.37; Berth still reads it, with a warning.
const schedulingV1alpha2 = "scheduling.k8s.io/v1alpha2"

// outdatedAPI is the warning for a kind written in an API version kube no
// longer serves, "" when the version is current.
func outdatedAPI(apiVersion, kind string) string {
	if apiVersion != schedulingV1alpha2 {
		return ""
	}
	var changed string
	switch kind {
	case "PodGroup":
		changed = "spec.workloadRef {workloadName, templateName} instead of spec.podGroupTemplateRef.workload, " +
			"spec.disruptionMode {single: {}} | {all: {}} instead of Pod | PodGroup"
	case "Workload":
		changed = "a template's disruptionMode {single: {}} | {all: {}} instead of Pod | PodGroup"
	default:
		return ""
	}
	return fmt.Sprintf("%s %s is Kubernetes 1.36's spelling, removed in 1.37: write %s (%s)",
		schedulingV1alpha2, kind, schedulingV1beta1, changed)
}

// fromV1beta1 rewrites a kube 1.37 PodGroup or Workload (v1beta1, or
// v1alpha3 which has their shape) in 1.36's v1alpha2 spelling, the one
// the builder reads: workloadRef {workloadName, templateName} becomes
// podGroupTemplateRef.workload {workloadName, podGroupTemplateName}, and
// disruptionMode {single: {}} | {all: {}} becomes Pod | PodGroup. What
// Berth does not model is refused naming the field: a Workload's
// compositePodGroupTemplates (CompositePodGroup documents are read by
// compositeGroup). A PodGroup's preemptionPolicy and
// parentCompositePodGroupName, which v1alpha2 does not have, are returned
// apart (checked); a Workload template's preemptionPolicy is dropped.
func fromV1beta1(kind string, jsonDoc []byte) (_ []byte, _ model.PreemptionPolicy, parent, field string, _ error) {
	var doc map[string]any
	if err := json.Unmarshal(jsonDoc, &doc); err != nil {
		return nil, "", "", "", err
	}
	doc["apiVersion"] = schedulingV1alpha2
	spec, _ := doc["spec"].(map[string]any)
	if spec == nil {
		return nil, "", "", "spec", errors.New("required")
	}
	var policy model.PreemptionPolicy
	switch kind {
	case "PodGroup":
		if raw, ok := spec["parentCompositePodGroupName"]; ok && raw != nil {
			p, _ := raw.(string)
			if errs := validation.IsDNS1123Subdomain(p); len(errs) > 0 {
				return nil, "", "", "spec.parentCompositePodGroupName", fmt.Errorf("invalid value %v: %s", raw, strings.Join(errs, "; "))
			}
			if _, ok := spec["workloadRef"]; !ok {
				return nil, "", "", "spec.workloadRef", errors.New("must be set when parentCompositePodGroupName is set")
			}
			parent = p
		}
		if raw, ok := spec["preemptionPolicy"]; ok && raw != nil {
			switch v, _ := raw.(string); model.PreemptionPolicy(v) {
			case model.PreemptLowerPriority, model.PreemptNever:
				policy = model.PreemptionPolicy(v)
			default:
				return nil, "", "", "spec.preemptionPolicy", fmt.Errorf("unsupported value %v: PreemptLowerPriority or Never", raw)
			}
		}
		delete(spec, "parentCompositePodGroupName")
		if ref, ok := spec["workloadRef"].(map[string]any); ok {
			spec["podGroupTemplateRef"] = map[string]any{"workload": map[string]any{"workloadName": ref["workloadName"], "podGroupTemplateName": ref["templateName"]}}
			delete(spec, "workloadRef")
		}
		if field, err := groupSpecV1beta1(spec); err != nil {
			return nil, "", "", "spec." + field, err
		}
	case "Workload":
		if c, ok := spec["compositePodGroupTemplates"].([]any); ok && len(c) > 0 {
			return nil, "", "", "spec.compositePodGroupTemplates", errors.New("a Workload's composite pod group templates are not modelled by Berth (CompositePodGroup objects are)")
		}
		delete(spec, "compositePodGroupTemplates")
		templates, _ := spec["podGroupTemplates"].([]any)
		for i, t := range templates {
			if m, ok := t.(map[string]any); ok {
				if field, err := groupSpecV1beta1(m); err != nil {
					return nil, "", "", fmt.Sprintf("spec.podGroupTemplates[%d].%s", i, field), err
				}
			}
		}
	}
	out, err := json.Marshal(doc)
	return out, policy, parent, "", err
}

// groupSpecV1beta1 rewrites the disruption mode of a PodGroup spec or
// template and drops its preemptionPolicy; it returns the field at fault.
func groupSpecV1beta1(spec map[string]any) (string, error) {
	delete(spec, "preemptionPolicy")
	raw, ok := spec["disruptionMode"]
	if !ok || raw == nil {
		return "", nil
	}
	m, _ := raw.(map[string]any)
	_, single := m["single"]
	_, all := m["all"]
	switch {
	case single && !all && len(m) == 1:
		spec["disruptionMode"] = string(schedulingv1alpha2.DisruptionModePod)
	case all && !single && len(m) == 1:
		spec["disruptionMode"] = string(schedulingv1alpha2.DisruptionModePodGroup)
	default:
		return "disruptionMode", errors.New("exactly one of single and all")
	}
	return "", nil
}
