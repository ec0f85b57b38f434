package pressure

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Message is the kubelet's eviction message for a pod evicted to reclaim the
// resource: the resource, the first met threshold of that resource with what
// was available, then each container whose usage exceeded its request.
// The kubelet's words, spacing included (each sentence ends with ". ").
func Message(res string, p *Pod, st *statsv1.PodStats, met []Threshold, obs Observations) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The node was low on resource: %s. ", res)
	for _, t := range met {
		if t.Signal.Resource() != res {
			continue
		}
		if o, ok := obs[t.Signal]; ok {
			q := t.Value.Of(o.Capacity)
			fmt.Fprintf(&b, "Threshold quantity: %s, available: %s. ", q.String(), o.quantity().String())
			break
		}
	}
	if st == nil {
		return b.String()
	}
	for _, cs := range st.Containers {
		for _, c := range p.Containers {
			if c.Name != cs.Name {
				continue
			}
			usage, ok := containerUsage(res, &cs)
			req := c.request(res)
			if ok && usage.Cmp(req) > 0 {
				fmt.Fprintf(&b, "Container %s was using %s, request is %s, has larger consumption of %s. ", c.Name, usage.String(), req.String(), res)
			}
			break
		}
	}
	return b.String()
}

func (o Observation) quantity() *resource.Quantity {
	if o.Binary {
		return resource.NewQuantity(o.Available, resource.BinarySI)
	}
	return resource.NewQuantity(o.Available, resource.DecimalSI)
}

func (c *Container) request(res string) resource.Quantity {
	switch res {
	case "memory":
		return c.MemoryRequest
	case "ephemeral-storage":
		return c.EphemeralStorageRequest
	}
	return resource.Quantity{}
}

// containerUsage: memory is the working set; ephemeral storage the writable
// layer plus logs (both must be measured). Other resources name no container.
func containerUsage(res string, cs *statsv1.ContainerStats) (*resource.Quantity, bool) {
	switch res {
	case "memory":
		if m := cs.Memory; m != nil && m.WorkingSetBytes != nil {
			return resource.NewQuantity(int64(*m.WorkingSetBytes), resource.BinarySI), true
		}
	case "ephemeral-storage":
		if r, l := cs.Rootfs, cs.Logs; r != nil && r.UsedBytes != nil && l != nil && l.UsedBytes != nil {
			return resource.NewQuantity(int64(*r.UsedBytes+*l.UsedBytes), resource.BinarySI), true
		}
	}
	return nil, false
}
