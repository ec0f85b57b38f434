package convert_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

func podObject(edit func(p *berthv1.Pod)) *berthv1.Object {
	p := fullPod()
	edit(p)
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: p}}
}

func nodeObject(edit func(n *berthv1.Node)) *berthv1.Object {
	n := proto.Clone(fullObjects()["node"]).(*berthv1.Object).GetNode()
	edit(n)
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: n}}
}

func pdbObject(edit func(b *berthv1.PodDisruptionBudget)) *berthv1.Object {
	b := proto.Clone(fullObjects()["budget with min_available percent"]).(*berthv1.Object).GetPodDisruptionBudget()
	edit(b)
	return &berthv1.Object{Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: b}}
}

func TestObjectValidation(t *testing.T) {
	antiTerm := func(p *berthv1.Pod) *berthv1.PodAffinityTerm {
		return p.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	}
	tests := []struct {
		name     string
		obj      *berthv1.Object
		wantPath string
		wantMsg  string // a substring of the reason
	}{
		{name: "no kind", obj: &berthv1.Object{}, wantPath: "", wantMsg: "exactly one of"},
		{name: "nil pod", obj: &berthv1.Object{Kind: &berthv1.Object_Pod{}}, wantPath: "pod", wantMsg: "required"},
		{name: "missing uid", obj: podObject(func(p *berthv1.Pod) { p.Uid = "" }), wantPath: "pod.uid", wantMsg: "required"},
		{name: "bad pod name", obj: podObject(func(p *berthv1.Pod) { p.Name = "Web_0" }), wantPath: "pod.name", wantMsg: "RFC 1123"},
		{name: "namespace not a label", obj: podObject(func(p *berthv1.Pod) { p.Namespace = "a.b" }), wantPath: "pod.namespace", wantMsg: "dots"},
		{name: "bad label key", obj: podObject(func(p *berthv1.Pod) { p.Labels["bad key"] = "v" }), wantPath: "pod.labels[bad key]", wantMsg: "invalid value"},
		{name: "bad label value", obj: podObject(func(p *berthv1.Pod) { p.Labels["app"] = strings.Repeat("x", 64) }), wantPath: "pod.labels[app]", wantMsg: "63"},
		{name: "no containers", obj: podObject(func(p *berthv1.Pod) { p.Containers = nil }), wantPath: "pod.containers", wantMsg: "at least one"},
		{name: "owner without kind", obj: podObject(func(p *berthv1.Pod) { p.Runtime.Owners[0].Kind = "" }), wantPath: "pod.runtime.owners[0].kind", wantMsg: "required"},
		{name: "negative restart count", obj: podObject(func(p *berthv1.Pod) { p.Runtime.Containers[1].RestartCount = -2 }), wantPath: "pod.runtime.containers[1].restart_count", wantMsg: "at least 0"},
		{name: "annotations too large", obj: podObject(func(p *berthv1.Pod) { p.Runtime.Annotations["big"] = strings.Repeat("x", 256<<10) }), wantPath: "pod.runtime.annotations", wantMsg: "at most 262144 bytes"},
		{name: "unknown pod phase", obj: podObject(func(p *berthv1.Pod) { p.Runtime.Phase = 9 }), wantPath: "pod.runtime.phase", wantMsg: "unknown value 9"},
		{name: "negative request", obj: podObject(func(p *berthv1.Pod) { p.Containers[1].Requests["cpu"] = -1 }), wantPath: "pod.containers[1].requests[cpu]", wantMsg: "negative"},
		{name: "unqualified extended resource", obj: podObject(func(p *berthv1.Pod) { p.Containers[0].Requests["gpu"] = 1 }), wantPath: "pod.containers[0].requests[gpu]", wantMsg: "qualified with a domain"},
		{name: "duplicate container name", obj: podObject(func(p *berthv1.Pod) { p.InitContainers[0].Name = "app" }), wantPath: "pod.init_containers[0].name", wantMsg: "duplicate"},
		{name: "sidecar policy on a regular container", obj: podObject(func(p *berthv1.Pod) {
			p.Containers[0].RestartPolicy = berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_ALWAYS
		}), wantPath: "pod.containers[0].restart_policy", wantMsg: "init containers"},
		{name: "host port out of range", obj: podObject(func(p *berthv1.Pod) { p.Containers[0].Ports[0].HostPort = 70000 }), wantPath: "pod.containers[0].ports[0].host_port", wantMsg: "65535"},
		{name: "container port missing", obj: podObject(func(p *berthv1.Pod) { p.Containers[1].Ports[1].ContainerPort = 0 }), wantPath: "pod.containers[1].ports[1].container_port", wantMsg: "between 1"},
		{name: "bad host ip", obj: podObject(func(p *berthv1.Pod) { p.Containers[0].Ports[0].HostIp = "10.0.0" }), wantPath: "pod.containers[0].ports[0].host_ip", wantMsg: "IP"},
		{name: "duplicate host port", obj: podObject(func(p *berthv1.Pod) {
			p.Containers[1].Ports[0] = &berthv1.ContainerPort{ContainerPort: 1, HostPort: 80, HostIp: "10.0.0.1"}
		}), wantPath: "pod.containers[1].ports[0].host_port", wantMsg: "also taken by pod.containers[0].ports[0].host_port"},
		{name: "unknown protocol", obj: podObject(func(p *berthv1.Pod) { p.Containers[0].Ports[0].Protocol = 9 }), wantPath: "pod.containers[0].ports[0].protocol", wantMsg: "unknown value 9"},
		{name: "negative overhead", obj: podObject(func(p *berthv1.Pod) { p.Overhead["memory"] = -2 }), wantPath: "pod.overhead[memory]", wantMsg: "negative"},
		// Amounts and their sums stay within 2^62, so nothing wraps around.
		{name: "request above 2^62", obj: podObject(func(p *berthv1.Pod) { p.Containers[0].Requests["cpu"] = math.MaxInt64 }), wantPath: "pod.containers[0].requests[cpu]", wantMsg: "at most 4611686018427387904"},
		{name: "container requests overflow", obj: podObject(func(p *berthv1.Pod) {
			p.Containers[0].Requests["memory"] = 1 << 62
			p.Containers[1].Requests["memory"] = 1
		}), wantPath: "pod.containers[1].requests[memory]", wantMsg: "add up to more than"},
		{name: "init container tips the sum over", obj: podObject(func(p *berthv1.Pod) {
			p.Containers[0].Requests["memory"] = 1 << 61
			p.Containers[1].Requests["memory"] = 1 << 60
			p.InitContainers[0].Requests = map[string]int64{"memory": 1 << 61, "cpu": 1}
		}), wantPath: "pod.init_containers[0].requests[memory]", wantMsg: "add up to more than"},
		{name: "overhead tips the sum over", obj: podObject(func(p *berthv1.Pod) {
			p.Containers[0].Requests["example.com/gpu"] = 1 << 62
			p.Overhead["example.com/gpu"] = 1
		}), wantPath: "pod.overhead[example.com/gpu]", wantMsg: "add up to more than"},
		{name: "allocatable above 2^62", obj: nodeObject(func(n *berthv1.Node) { n.Allocatable["memory"] = 1<<62 + 1 }), wantPath: "node.allocatable[memory]", wantMsg: "at most"},
		{name: "pod-level extended resource", obj: podObject(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"example.com/gpu": 1} }),
			wantPath: "pod.pod_level_requests[example.com/gpu]", wantMsg: "only cpu, memory and hugepages"},
		{name: "pod-level ephemeral storage", obj: podObject(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"ephemeral-storage": 1} }),
			wantPath: "pod.pod_level_requests[ephemeral-storage]", wantMsg: "unsupported at pod level"},
		{name: "pod-level request below the containers'", obj: podObject(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"cpu": 1999} }),
			wantPath: "pod.pod_level_requests[cpu]", wantMsg: "aggregate request 2000, got 1999"},
		{name: "negative pod-level request", obj: podObject(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"memory": -1} }),
			wantPath: "pod.pod_level_requests[memory]", wantMsg: "negative"},
		{name: "workload selector not selecting the pod", obj: podObject(func(p *berthv1.Pod) {
			p.WorkloadSelectors = []*berthv1.LabelSelector{{}, {MatchLabels: map[string]string{"app": "db"}}}
		}), wantPath: "pod.workload_selectors[1]", wantMsg: "does not select the pod"},
		{name: "nil workload selector", obj: podObject(func(p *berthv1.Pod) { p.WorkloadSelectors = []*berthv1.LabelSelector{nil} }),
			wantPath: "pod.workload_selectors[0]", wantMsg: "required"},
		{name: "bad workload selector key", obj: podObject(func(p *berthv1.Pod) {
			p.WorkloadSelectors = []*berthv1.LabelSelector{{MatchLabels: map[string]string{"bad key": "x"}}}
		}), wantPath: "pod.workload_selectors[0].match_labels[bad key]", wantMsg: "invalid"},
		{name: "pod-level request above 2^62", obj: podObject(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"memory": 1<<62 + 1} }),
			wantPath: "pod.pod_level_requests[memory]", wantMsg: "at most"},
		{name: "unknown preemption policy", obj: podObject(func(p *berthv1.Pod) { p.PreemptionPolicy = 3 }), wantPath: "pod.preemption_policy", wantMsg: "unknown"},
		{name: "label selector operator unset", obj: podObject(func(p *berthv1.Pod) {
			antiTerm(p).LabelSelector.MatchExpressions = append(antiTerm(p).LabelSelector.MatchExpressions,
				&berthv1.LabelSelectorRequirement{Key: "a", Values: []string{"x"}}, &berthv1.LabelSelectorRequirement{Key: "b"})
		}), wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0].label_selector.match_expressions[1].operator", wantMsg: "required"},
		{name: "In without values", obj: podObject(func(p *berthv1.Pod) {
			antiTerm(p).LabelSelector.MatchExpressions[0] = &berthv1.LabelSelectorRequirement{Key: "a", Operator: berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_IN}
		}), wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0].label_selector.match_expressions[0].values", wantMsg: "non-empty"},
		{name: "Exists with values", obj: podObject(func(p *berthv1.Pod) { antiTerm(p).LabelSelector.MatchExpressions[0].Values = []string{"x"} }),
			wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0].label_selector.match_expressions[0].values", wantMsg: "must be empty"},
		{name: "missing topology key", obj: podObject(func(p *berthv1.Pod) { antiTerm(p).TopologyKey = "" }),
			wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0].topology_key", wantMsg: "required"},
		{name: "match_label_keys without selector", obj: podObject(func(p *berthv1.Pod) {
			antiTerm(p).LabelSelector, antiTerm(p).MatchLabelKeys = nil, []string{"v"}
		}), wantPath: "pod.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0].match_label_keys[0]", wantMsg: "label_selector"},
		{name: "key in match and mismatch", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].MismatchLabelKeys = []string{"pod-template-hash"}
		}), wantPath: "pod.affinity.pod_affinity.required_during_scheduling_ignored_during_execution[0].mismatch_label_keys[0]", wantMsg: "only one"},
		{name: "preferred weight 0", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 0
		}),
			wantPath: "pod.affinity.node_affinity.preferred_during_scheduling_ignored_during_execution[0].weight", wantMsg: "between 1 and 100"},
		{name: "pod affinity weight 101", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 101
		}),
			wantPath: "pod.affinity.pod_affinity.preferred_during_scheduling_ignored_during_execution[0].weight", wantMsg: "between 1 and 100"},
		{name: "required node selector without terms", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = nil
		}), wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms", wantMsg: "at least one"},
		{name: "Gt with a non-integer", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"many"}
		}), wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0].match_expressions[0].values[0]", wantMsg: "integer"},
		{name: "match field other than metadata.name", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Key = "metadata.uid"
		}), wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0].match_fields[0].key", wantMsg: "metadata.name"},
		{name: "match field with two values", obj: podObject(func(p *berthv1.Pod) {
			p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values = []string{"a", "b"}
		}), wantPath: "pod.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0].match_fields[0].values", wantMsg: "exactly one"},
		{name: "toleration Exists with a value", obj: podObject(func(p *berthv1.Pod) { p.Tolerations[1].Value = "x" }), wantPath: "pod.tolerations[1].value", wantMsg: "EXISTS"},
		{name: "toleration empty key with Equal", obj: podObject(func(p *berthv1.Pod) { p.Tolerations[1].Operator = berthv1.TolerationOperator_TOLERATION_OPERATOR_EQUAL }),
			wantPath: "pod.tolerations[1].operator", wantMsg: "key is empty"},
		{name: "toleration seconds without NoExecute", obj: podObject(func(p *berthv1.Pod) { p.Tolerations[0].TolerationSeconds = ptr(int64(1)) }),
			wantPath: "pod.tolerations[0].toleration_seconds", wantMsg: "NO_EXECUTE"},
		{name: "toleration unknown effect", obj: podObject(func(p *berthv1.Pod) { p.Tolerations[0].Effect = 4 }), wantPath: "pod.tolerations[0].effect", wantMsg: "unknown value 4"},
		{name: "max_skew 0", obj: podObject(func(p *berthv1.Pod) { p.TopologySpreadConstraints[1].MaxSkew = 0 }), wantPath: "pod.topology_spread_constraints[1].max_skew", wantMsg: "at least 1"},
		{name: "when_unsatisfiable unset", obj: podObject(func(p *berthv1.Pod) { p.TopologySpreadConstraints[1].WhenUnsatisfiable = 0 }),
			wantPath: "pod.topology_spread_constraints[1].when_unsatisfiable", wantMsg: "required"},
		{name: "min_domains with ScheduleAnyway", obj: podObject(func(p *berthv1.Pod) { p.TopologySpreadConstraints[1].MinDomains = ptr(int32(2)) }),
			wantPath: "pod.topology_spread_constraints[1].min_domains", wantMsg: "DO_NOT_SCHEDULE"},
		{name: "min_domains 0", obj: podObject(func(p *berthv1.Pod) { p.TopologySpreadConstraints[0].MinDomains = ptr(int32(0)) }),
			wantPath: "pod.topology_spread_constraints[0].min_domains", wantMsg: "at least 1"},
		{name: "unknown inclusion policy", obj: podObject(func(p *berthv1.Pod) { p.TopologySpreadConstraints[0].NodeTaintsPolicy = 7 }),
			wantPath: "pod.topology_spread_constraints[0].node_taints_policy", wantMsg: "unknown"},
		{name: "duplicate spread constraint", obj: podObject(func(p *berthv1.Pod) {
			p.TopologySpreadConstraints[1].TopologyKey = p.TopologySpreadConstraints[0].TopologyKey
			p.TopologySpreadConstraints[1].WhenUnsatisfiable = p.TopologySpreadConstraints[0].WhenUnsatisfiable
		}), wantPath: "pod.topology_spread_constraints[1]", wantMsg: "duplicate"},
		{name: "duplicate gate", obj: podObject(func(p *berthv1.Pod) { p.SchedulingGates = []string{"a", "a"} }), wantPath: "pod.scheduling_gates[1]", wantMsg: "duplicate"},
		{name: "invalid creation time", obj: podObject(func(p *berthv1.Pod) { p.CreationTime.Nanos = -1 }), wantPath: "pod.creation_time", wantMsg: "timestamp"},
		{name: "node name invalid", obj: podObject(func(p *berthv1.Pod) { p.NodeName = "N1" }), wantPath: "pod.node_name", wantMsg: "RFC 1123"},
		{name: "node selector bad key", obj: podObject(func(p *berthv1.Pod) { p.NodeSelector["-x"] = "y" }), wantPath: "pod.node_selector[-x]", wantMsg: "invalid value"},

		{name: "node without name", obj: nodeObject(func(n *berthv1.Node) { n.Name = "" }), wantPath: "node.name", wantMsg: "required"},
		{name: "taint without effect", obj: nodeObject(func(n *berthv1.Node) { n.Taints[0].Effect = 0 }), wantPath: "node.taints[0].effect", wantMsg: "required"},
		{name: "taint without key", obj: nodeObject(func(n *berthv1.Node) { n.Taints[1].Key = "" }), wantPath: "node.taints[1].key", wantMsg: "required"},
		{name: "duplicate taint", obj: nodeObject(func(n *berthv1.Node) { n.Taints[1].Effect = n.Taints[0].Effect }), wantPath: "node.taints[1]", wantMsg: "unique"},
		{name: "negative allocatable", obj: nodeObject(func(n *berthv1.Node) { n.Allocatable["pods"] = -1 }), wantPath: "node.allocatable[pods]", wantMsg: "negative"},

		{name: "system class", obj: &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "system-mine"}}},
			wantPath: "priority_class.name", wantMsg: "reserved"},
		{name: "class value too high", obj: &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "x", Value: 1000000001}}},
			wantPath: "priority_class.value", wantMsg: "at most 1000000000"},
		{name: "class unknown policy", obj: &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "x", PreemptionPolicy: 5}}},
			wantPath: "priority_class.preemption_policy", wantMsg: "unknown"},

		{name: "budget without bound", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) { b.Budget = nil }), wantPath: "pod_disruption_budget", wantMsg: "min_available"},
		{name: "budget percent over 100", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) {
			b.Budget = &berthv1.PodDisruptionBudget_MinAvailable{MinAvailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Percent{Percent: 101}}}
		}), wantPath: "pod_disruption_budget.min_available.percent", wantMsg: "between 0 and 100"},
		{name: "budget negative count", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) {
			b.Budget = &berthv1.PodDisruptionBudget_MaxUnavailable{MaxUnavailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Count{Count: -1}}}
		}), wantPath: "pod_disruption_budget.max_unavailable.count", wantMsg: "negative"},
		{name: "budget empty IntOrPercent", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) {
			b.Budget = &berthv1.PodDisruptionBudget_MaxUnavailable{MaxUnavailable: &berthv1.IntOrPercent{}}
		}), wantPath: "pod_disruption_budget.max_unavailable", wantMsg: "count and percent"},
		{name: "budget selector bad operator", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) { b.Selector.MatchExpressions[0].Operator = 9 }),
			wantPath: "pod_disruption_budget.selector.match_expressions[0].operator", wantMsg: "unknown value 9"},
		{name: "budget disrupted pod with a bad name", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) {
			b.DisruptedPods = map[string]*timestamppb.Timestamp{"Web_1": timestamppb.Now()}
		}), wantPath: "pod_disruption_budget.disrupted_pods[Web_1]", wantMsg: ""},
		{name: "budget disrupted pod with a bad time", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) {
			b.DisruptedPods = map[string]*timestamppb.Timestamp{"web-1": {Seconds: 1, Nanos: -1}}
		}), wantPath: "pod_disruption_budget.disrupted_pods[web-1]", wantMsg: "invalid timestamp"},
		{name: "budget without namespace", obj: pdbObject(func(b *berthv1.PodDisruptionBudget) { b.Namespace = "" }), wantPath: "pod_disruption_budget.namespace", wantMsg: "required"},

		{name: "namespace bad label", obj: &berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: &berthv1.Namespace{Name: "a", Labels: map[string]string{"a/b/c": "x"}}}},
			wantPath: "namespace.labels[a/b/c]", wantMsg: "invalid value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ObjectFromProto(tc.obj)
			var fe *convert.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ObjectFromProto error = %v, want a *FieldError", err)
			}
			if fe.Path != tc.wantPath {
				t.Errorf("path = %q, want %q (reason %q)", fe.Path, tc.wantPath, fe.Reason)
			}
			if !strings.Contains(fe.Reason, tc.wantMsg) {
				t.Errorf("reason = %q, want it to mention %q", fe.Reason, tc.wantMsg)
			}
		})
	}
}

func TestRefFromProto(t *testing.T) {
	tests := []struct {
		name     string
		ref      *berthv1.ObjectRef
		want     convert.Ref
		wantPath string // empty: no error
	}{
		{name: "pod with uid", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "ns", Name: "p", Uid: "u"},
			want: convert.Ref{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "ns", Name: "p", UID: "u"}},
		{name: "node", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: "n1"},
			want: convert.Ref{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: "n1"}},
		{name: "kind unset", ref: &berthv1.ObjectRef{Name: "n1"}, wantPath: "kind"},
		{name: "kind unknown", ref: &berthv1.ObjectRef{Kind: 99, Name: "n1"}, wantPath: "kind"},
		{name: "pod without namespace", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Name: "p"}, wantPath: "namespace"},
		{name: "node with namespace", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Namespace: "ns", Name: "n"}, wantPath: "namespace"},
		{name: "uid on a budget", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, Namespace: "ns", Name: "b", Uid: "u"}, wantPath: "uid"},
		{name: "name missing", ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NAMESPACE}, wantPath: "name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := convert.RefFromProto(tc.ref)
			if tc.wantPath != "" {
				var fe *convert.FieldError
				if !errors.As(err, &fe) || fe.Path != tc.wantPath {
					t.Fatalf("error = %v, want a *FieldError at %q", err, tc.wantPath)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RefFromProto (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFieldErrorPrefixed(t *testing.T) {
	for _, tc := range []struct{ prefix, path, want string }{
		{"pods[2]", "containers[0].name", "pods[2].containers[0].name"},
		{"pods[2]", "", "pods[2]"},
		{"", "uid", "uid"},
		{"node", "[x]", "node[x]"},
	} {
		got := (&convert.FieldError{Path: tc.path, Reason: "r"}).Prefixed(tc.prefix).Path
		if got != tc.want {
			t.Errorf("Prefixed(%q) of %q = %q, want %q", tc.prefix, tc.path, got, tc.want)
		}
	}
}
