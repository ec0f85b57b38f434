package pressure

import (
	"fmt"

	"github.com/berthsched/berth/core/model"
	"k8s.io/apimachinery/pkg/api/resource"
	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// DefaultTerminationGracePeriodSeconds is the API server's default for a
// pod's terminationGracePeriodSeconds. Berth's Pod does not carry the field,
// so every pod is taken to have it.
const DefaultTerminationGracePeriodSeconds int64 = 30

// FromModel is the eviction manager's view of a Berth pod: its priority,
// its effective memory and ephemeral-storage requests (as kube computes
// them: containers, init containers, pod-level requests, overhead) and its
// containers' own requests for the message.
func FromModel(p *model.Pod) *Pod {
	req := model.ComputeRequests(p).Requests
	grace := DefaultTerminationGracePeriodSeconds
	out := &Pod{
		UID: p.UID, Namespace: p.Namespace, Name: p.Name,
		Priority:                      p.Priority,
		TerminationGracePeriodSeconds: &grace,
		MemoryRequest:                 *resource.NewQuantity(req.Memory, resource.BinarySI),
		EphemeralStorageRequest:       *resource.NewQuantity(req.EphemeralStorage, resource.BinarySI),
	}
	for _, cs := range [][]model.Container{p.Containers, p.InitContainers} {
		for i := range cs {
			out.Containers = append(out.Containers, Container{
				Name:                    cs[i].Name,
				MemoryRequest:           *resource.NewQuantity(cs[i].Requests[model.ResourceMemory], resource.BinarySI),
				EphemeralStorageRequest: *resource.NewQuantity(cs[i].Requests[model.ResourceEphemeralStorage], resource.BinarySI),
			})
		}
	}
	return out
}

// UnknownPodError says a Summary reports a pod that is not on its node.
type UnknownPodError struct {
	Field, Node, Pod string
}

func (e *UnknownPodError) Error() string {
	return fmt.Sprintf("%s: pod %s is not on node %s", e.Field, e.Pod, e.Node)
}

// ResolvePodRefs checks that every pod the Summary reports is one of the
// node's pods and fills in a missing podRef.uid from the pod of that
// namespace/name, since the kubelet matches stats to pods by UID. A podRef
// whose UID names another pod (or none) is an *UnknownPodError naming the
// field (pods[2].podRef).
func ResolvePodRefs(s *statsv1.Summary, pods []*Pod) error {
	byKey := make(map[string]*Pod, len(pods))
	byUID := make(map[string]*Pod, len(pods))
	for _, p := range pods {
		byKey[p.Key()] = p
		byUID[p.UID] = p
	}
	for i := range s.Pods {
		ref := &s.Pods[i].PodRef
		field := fmt.Sprintf("pods[%d].podRef", i)
		key := ref.Namespace + "/" + ref.Name
		p, ok := byKey[key]
		if !ok {
			return &UnknownPodError{Field: field, Node: s.Node.NodeName, Pod: key}
		}
		if ref.UID == "" {
			ref.UID = p.UID
		} else if q, ok := byUID[ref.UID]; !ok || q != p {
			return &UnknownPodError{Field: field + ".uid", Node: s.Node.NodeName, Pod: key + " (uid " + ref.UID + ")"}
		}
	}
	return nil
}
