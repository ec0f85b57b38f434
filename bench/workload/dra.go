package workload

import (
	"bufio"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
)

// The DRA workload: every node has GPUsPerNode GPUs of driver GPUDriver in
// a ResourceSlice of its own (one pool per node), half the nodes model
// "a100" (40 GiB), half "h100" (80 GiB); a DeviceClass "gpu" selects the
// driver's devices by CEL; each pending pod claims 1 to 4 GPUs of one model
// through a ResourceClaimTemplate whose request selects the model by
// attribute (templates gpu-<model>-<count>), so Berth, playing the
// resourceclaim controller, makes each pod its own claim.
const (
	DRA         = "dra"
	GPUsPerNode = 8
	GPUDriver   = "gpu.example.com"
)

// Devices are the DRA objects of a workload, in Kubernetes' types.
type Devices struct {
	Classes   []*resourceapi.DeviceClass
	Slices    []*resourceapi.ResourceSlice
	Templates []*resourceapi.ResourceClaimTemplate
}

var gpuModels = []struct {
	name      string
	memoryGiB int64
}{{"a100", 40}, {"h100", 80}}

// dra builds the DRA workload's devices and pending pods.
func (g *gen) dra(spec Spec) {
	d := &Devices{Classes: []*resourceapi.DeviceClass{{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", GPUDriver)},
		}}},
	}}}
	for i, n := range g.w.Nodes {
		m := gpuModels[i%len(gpuModels)]
		s := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name + "-gpus"},
			Spec: resourceapi.ResourceSliceSpec{
				Driver: GPUDriver, NodeName: new(n.Name),
				Pool: resourceapi.ResourcePool{Name: n.Name, Generation: 1, ResourceSliceCount: 1},
			},
		}
		for j := range GPUsPerNode {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{
				Name: fmt.Sprintf("gpu-%d", j),
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
					"model":  {StringValue: new(m.name)},
					"memory": {IntValue: new(m.memoryGiB)},
					"numa":   {IntValue: new(int64(j / (GPUsPerNode / 2)))},
				},
			})
		}
		d.Slices = append(d.Slices, s)
	}
	for _, m := range gpuModels {
		for count := int64(1); count <= 4; count++ {
			d.Templates = append(d.Templates, &resourceapi.ResourceClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("gpu-%s-%d", m.name, count)},
				Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
					Requests: []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{
						DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
						Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
							Expression: fmt.Sprintf("device.attributes[%q].model == %q", GPUDriver, m.name),
						}}},
					}}},
				}}},
			})
		}
	}
	g.w.Devices = d
	for i := range spec.Pods {
		name := fmt.Sprintf("pod-%06d", i)
		p := g.pod(name, "dra", podMilliCPU, podMemory)
		tmpl := fmt.Sprintf("gpu-%s-%d", gpuModels[(i/4)%len(gpuModels)].name, i%4+1)
		p.ResourceClaims = []model.PodResourceClaim{{Name: "gpu", TemplateName: tmpl, ClaimName: dra.TemplateClaimName(p.Namespace, name, "gpu")}}
		p.Containers[0].Claims = []string{"gpu"}
		g.pending(p)
	}
}

// writeDevices writes the DRA objects as resource.k8s.io/v1 documents.
func (d *Devices) writeYAML(w *bufio.Writer) error {
	var objs []any
	for _, c := range d.Classes {
		c := *c
		c.TypeMeta = metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}
		objs = append(objs, &c)
	}
	for _, s := range d.Slices {
		s := *s
		s.TypeMeta = metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}
		objs = append(objs, &s)
	}
	for _, t := range d.Templates {
		t := *t
		t.TypeMeta = metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"}
		objs = append(objs, &t)
	}
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			return fmt.Errorf("workload: writing a DRA object: %w", err)
		}
		w.WriteString("---\n")
		w.Write(b)
	}
	return nil
}
