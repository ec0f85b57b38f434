package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berthsched/berth/core/model"
)

// compositeGroupDoc is kube 1.37's scheduling.k8s.io/v1alpha3
// CompositePodGroup as written, the fields Berth reads. Berth's k8s.io/api
// (1.36) has no such type, so the document is read here, not through the
// scheme.
type compositeGroupDoc struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ParentCompositePodGroupName *string `json:"parentCompositePodGroupName,omitempty"`
		WorkloadRef                 *struct {
			WorkloadName string `json:"workloadName"`
			TemplateName string `json:"templateName"`
		} `json:"workloadRef,omitempty"`
		SchedulingPolicy *struct {
			Basic *struct{} `json:"basic,omitempty"`
			Gang  *struct {
				MinGroupCount int32 `json:"minGroupCount"`
			} `json:"gang,omitempty"`
		} `json:"schedulingPolicy,omitempty"`
		SchedulingConstraints *struct {
			Topology []json.RawMessage `json:"topology,omitempty"`
		} `json:"schedulingConstraints,omitempty"`
		DisruptionMode *struct {
			Single *struct{} `json:"single,omitempty"`
			All    *struct{} `json:"all,omitempty"`
		} `json:"disruptionMode,omitempty"`
		PriorityClassName string  `json:"priorityClassName,omitempty"`
		Priority          *int32  `json:"priority,omitempty"`
		PreemptionPolicy  *string `json:"preemptionPolicy,omitempty"`
	} `json:"spec"`
	// group is the model object, made by compositeGroup.
	group *model.CompositePodGroup
}

// DeepCopyObject is runtime.Object's; the document is never shared.
func (d *compositeGroupDoc) DeepCopyObject() runtime.Object {
	c := *d
	return &c
}

// compositeGroup reads a CompositePodGroup document. What Berth does not
// model is refused naming the field: topology constraints, the all
// disruption mode and a preemption policy (the alpha
// PodGroupPreemptionPolicy's) of a composite group. It returns the field
// at fault.
func compositeGroup(raw []byte) (*compositeGroupDoc, string, error) {
	d := &compositeGroupDoc{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(d); err != nil {
		return nil, "", fmt.Errorf("reading CompositePodGroup: %w", err)
	}
	s := d.Spec
	out := &model.CompositePodGroup{Namespace: d.Namespace, Name: d.Name, MinGroupCount: 1,
		PriorityClassName: s.PriorityClassName, RequestedPriority: s.Priority}
	if out.Namespace == "" {
		out.Namespace = metav1.NamespaceDefault
	}
	if out.Name == "" {
		return nil, "metadata.name", errors.New("required")
	}
	if s.WorkloadRef == nil {
		return nil, "spec.workloadRef", errors.New("required")
	}
	if p := s.ParentCompositePodGroupName; p != nil {
		if *p == "" || *p == d.Name {
			return nil, "spec.parentCompositePodGroupName", fmt.Errorf("invalid value %q: another CompositePodGroup's name", *p)
		}
		out.Parent = *p
	}
	switch p := s.SchedulingPolicy; {
	case p == nil || (p.Basic == nil) == (p.Gang == nil):
		return nil, "spec.schedulingPolicy", errors.New("exactly one of basic and gang (with minGroupCount) is required")
	case p.Gang != nil:
		if p.Gang.MinGroupCount < 1 {
			return nil, "spec.schedulingPolicy.gang.minGroupCount", fmt.Errorf("must be at least 1, got %d", p.Gang.MinGroupCount)
		}
		out.MinGroupCount = p.Gang.MinGroupCount
	}
	if c := s.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		return nil, "spec.schedulingConstraints.topology", errors.New("topology constraints of composite pod groups are not modelled by Berth")
	}
	if m := s.DisruptionMode; m != nil {
		switch {
		case m.All != nil && m.Single == nil:
			return nil, "spec.disruptionMode", errors.New("all: the disruption mode of composite pod groups is not modelled by Berth (single is)")
		case m.Single == nil || m.All != nil:
			return nil, "spec.disruptionMode", errors.New("exactly one of single and all")
		}
	}
	if s.PreemptionPolicy != nil {
		return nil, "spec.preemptionPolicy", errors.New("the preemption policy of composite pod groups is not modelled by Berth")
	}
	d.group = out
	return d, "", nil
}

func (b *builder) addCompositeGroup(e *entry, d *compositeGroupDoc) error {
	b.cluster.CompositePodGroups = append(b.cluster.CompositePodGroups, d.group)
	b.cluster.Origins[d.group] = e.at
	return nil
}
