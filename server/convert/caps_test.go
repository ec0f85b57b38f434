package convert_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

func names(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

func labelMap(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("example.com/k%d", i)] = "v"
	}
	return m
}

func nodeTaints(n int) []*berthv1.Taint {
	out := make([]*berthv1.Taint, n)
	for i := range out {
		out[i] = &berthv1.Taint{Key: fmt.Sprintf("example.com/t%d", i), Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}
	}
	return out
}

func podContainers(n int) []*berthv1.Container {
	out := make([]*berthv1.Container, n)
	for i := range out {
		out[i] = &berthv1.Container{Name: fmt.Sprintf("c%d", i), Requests: map[string]int64{"cpu": 1}}
	}
	return out
}

func tolerationList(n int) []*berthv1.Toleration {
	out := make([]*berthv1.Toleration, n)
	for i := range out {
		out[i] = &berthv1.Toleration{Key: fmt.Sprintf("example.com/t%d", i), Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS}
	}
	return out
}

func hostnameIn(values int) *berthv1.NodeSelectorTerm {
	return &berthv1.NodeSelectorTerm{MatchExpressions: []*berthv1.NodeSelectorRequirement{{
		Key: "kubernetes.io/hostname", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_IN, Values: names(values, "n%d"),
	}}}
}

func nodeAffinity(terms int, values int) *berthv1.Affinity {
	ts := make([]*berthv1.NodeSelectorTerm, terms)
	for i := range ts {
		ts[i] = hostnameIn(values)
	}
	return &berthv1.Affinity{NodeAffinity: &berthv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &berthv1.NodeSelector{NodeSelectorTerms: ts}}}
}

func antiAffinity(terms int) *berthv1.Affinity {
	ts := make([]*berthv1.PodAffinityTerm, terms)
	for i := range ts {
		ts[i] = &berthv1.PodAffinityTerm{LabelSelector: &berthv1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}
	}
	return &berthv1.Affinity{PodAntiAffinity: &berthv1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ts}}
}

// TestListCaps: every list has a cap (server/convert/caps.go); a list at
// its cap is accepted, one entry more is refused at the list's field,
// naming the cap. Before the caps, each of these was accepted however
// long (issue 28: 100,000 taints, gates, containers, ...).
func TestListCaps(t *testing.T) {
	node := func(edit func(*berthv1.Node)) *berthv1.Object { return nodeObject(edit) }
	tests := []struct {
		name     string
		obj      func(n int) *berthv1.Object
		cap      int
		wantPath string
	}{
		{name: "node taints", cap: convert.MaxTaints, wantPath: "node.taints",
			obj: func(n int) *berthv1.Object { return node(func(x *berthv1.Node) { x.Taints = nodeTaints(n) }) }},
		{name: "node images", cap: convert.MaxNodeImages, wantPath: "node.images",
			obj: func(n int) *berthv1.Object { return node(func(x *berthv1.Node) { x.Images = nodeImages(n, 1) }) }},
		{name: "image names", cap: convert.MaxImageNames, wantPath: "node.images[0].names",
			obj: func(n int) *berthv1.Object { return node(func(x *berthv1.Node) { x.Images = nodeImages(1, n) }) }},
		{name: "node labels", cap: convert.MaxLabels, wantPath: "node.labels",
			obj: func(n int) *berthv1.Object { return node(func(x *berthv1.Node) { x.Labels = labelMap(n) }) }},
		{name: "scheduling gates", cap: convert.MaxSchedulingGates, wantPath: "pod.scheduling_gates",
			obj: func(n int) *berthv1.Object {
				return podObject(func(p *berthv1.Pod) { p.SchedulingGates = names(n, "example.com/g%d") })
			}},
		{name: "containers", cap: convert.MaxContainers, wantPath: "pod.containers",
			obj: func(n int) *berthv1.Object {
				return podObject(func(p *berthv1.Pod) { p.Containers, p.InitContainers = podContainers(n), nil })
			}},
		{name: "node selector", cap: convert.MaxLabels, wantPath: "pod.node_selector",
			obj: func(n int) *berthv1.Object { return podObject(func(p *berthv1.Pod) { p.NodeSelector = labelMap(n) }) }},
		{name: "tolerations", cap: convert.MaxTolerations, wantPath: "pod.tolerations",
			obj: func(n int) *berthv1.Object {
				return podObject(func(p *berthv1.Pod) { p.Tolerations = tolerationList(n) })
			}},
		{name: "In values", cap: convert.MaxValues,
			wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0].match_expressions[0].values",
			obj: func(n int) *berthv1.Object {
				return podObject(func(p *berthv1.Pod) { p.Affinity = nodeAffinity(1, n) })
			}},
		{name: "node selector terms", cap: convert.MaxTerms,
			wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms",
			obj: func(n int) *berthv1.Object {
				return podObject(func(p *berthv1.Pod) { p.Affinity = nodeAffinity(n, 10) })
			}},
		{name: "anti-affinity terms", cap: convert.MaxTerms,
			wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution",
			obj:      func(n int) *berthv1.Object { return podObject(func(p *berthv1.Pod) { p.Affinity = antiAffinity(n) }) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := convert.ObjectFromProto(tc.obj(tc.cap)); err != nil {
				t.Fatalf("at the cap of %d: %v", tc.cap, err)
			}
			_, err := convert.ObjectFromProto(tc.obj(tc.cap + 1))
			var fe *convert.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("one over the cap: error %.300v, want a *FieldError", err)
			}
			want := fmt.Sprintf("must have at most %d entries, has %d", tc.cap, tc.cap+1)
			if fe.Path != tc.wantPath || !strings.Contains(fe.Reason, want) {
				t.Errorf("error at %q: %q; want at %q, with %q", fe.Path, fe.Reason, tc.wantPath, want)
			}
		})
	}
}

// TestDuplicatesFoundLinearly: the duplicate checks made linear still
// name the first entry repeated.
func TestDuplicatesFoundLinearly(t *testing.T) {
	taints := nodeTaints(3)
	taints[2].Key = taints[0].Key
	gates := []string{"example.com/a", "example.com/b", "example.com/b"}
	tests := []struct {
		name, wantPath, wantMsg string
		obj                     *berthv1.Object
	}{
		{name: "taint", obj: nodeObject(func(n *berthv1.Node) { n.Taints = taints }), wantPath: "node.taints[2]", wantMsg: "duplicate of taints[0]"},
		{name: "gate", obj: podObject(func(p *berthv1.Pod) { p.SchedulingGates = gates }), wantPath: "pod.scheduling_gates[2]", wantMsg: "duplicate of scheduling_gates[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ObjectFromProto(tc.obj)
			var fe *convert.FieldError
			if !errors.As(err, &fe) || fe.Path != tc.wantPath || !strings.Contains(fe.Reason, tc.wantMsg) {
				t.Errorf("error %v, want at %q with %q", err, tc.wantPath, tc.wantMsg)
			}
		})
	}
}

// TestCPUBound: a cpu amount beyond MaxCPU is refused wherever it is (a
// running pod with cpu 1e18 was accepted before), at MaxCPU accepted.
func TestCPUBound(t *testing.T) {
	tests := []struct {
		name     string
		obj      *berthv1.Object
		wantPath string
	}{
		{name: "running pod at the bound", obj: podObject(func(p *berthv1.Pod) {
			p.NodeName, p.Containers, p.InitContainers, p.PodLevelRequests = "n1", []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": convert.MaxCPU}}}, nil, nil
		})},
		{name: "running pod with cpu 1e18", obj: podObject(func(p *berthv1.Pod) {
			p.NodeName, p.Containers, p.InitContainers, p.PodLevelRequests = "n1", []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 1e18}}}, nil, nil
		}), wantPath: "pod.containers[0].requests[cpu]"},
		{name: "node allocatable", obj: nodeObject(func(n *berthv1.Node) { n.Allocatable = map[string]int64{"cpu": 1e18} }),
			wantPath: "node.allocatable[cpu]"},
		{name: "memory may be larger", obj: nodeObject(func(n *berthv1.Node) { n.Allocatable = map[string]int64{"memory": 1e18} })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ObjectFromProto(tc.obj)
			if tc.wantPath == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *convert.FieldError
			if !errors.As(err, &fe) || fe.Path != tc.wantPath || !strings.Contains(fe.Reason, "at most 1099511627776 millicores") {
				t.Errorf("error %v, want at %s naming the bound", err, tc.wantPath)
			}
		})
	}
}

// nodeImages returns n images of names names each.
func nodeImages(n, names int) []*berthv1.ContainerImage {
	out := make([]*berthv1.ContainerImage, n)
	for i := range out {
		out[i] = &berthv1.ContainerImage{SizeBytes: int64(i)}
		for j := range names {
			out[i].Names = append(out[i].Names, fmt.Sprintf("example.com/image-%d:v%d", i, j))
		}
	}
	return out
}
