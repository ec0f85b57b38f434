package convert_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/nodeconditions"
	"github.com/berthsched/berth/server/convert"
)

func TestNodeConditions(t *testing.T) {
	cond := func(typ berthv1.NodeConditionType, st berthv1.ConditionStatus) *berthv1.NodeCondition {
		return &berthv1.NodeCondition{Type: typ, Status: st}
	}
	ready := berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY
	for _, tc := range []struct {
		name  string
		conds []*berthv1.NodeCondition
		want  string // error text; "" accepted
	}{
		{"ok", []*berthv1.NodeCondition{cond(ready, berthv1.ConditionStatus_CONDITION_STATUS_FALSE)}, ""},
		{"no type", []*berthv1.NodeCondition{cond(0, berthv1.ConditionStatus_CONDITION_STATUS_TRUE)}, "conditions[0].type: must be one of"},
		{"no status", []*berthv1.NodeCondition{cond(ready, 0)}, "conditions[0].status: must be one of"},
		{"duplicate", []*berthv1.NodeCondition{cond(ready, berthv1.ConditionStatus_CONDITION_STATUS_TRUE), cond(ready, berthv1.ConditionStatus_CONDITION_STATUS_FALSE)}, "conditions[1].type: duplicate of conditions[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.NodeFromProto(&berthv1.Node{Name: "n1", Conditions: tc.conds})
			if got := errText(err); tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}

// A node's wire form round-trips without the taints Berth derived.
func TestNodeRoundTripLeavesDerivedTaints(t *testing.T) {
	in := &berthv1.Node{Name: "n1", Conditions: []*berthv1.NodeCondition{{
		Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_UNKNOWN,
		LastTransitionTime: timestamppb.New(timestamppb.Now().AsTime().Truncate(1e9)), Reason: "NodeStatusUnknown",
	}}}
	m, err := convert.NodeFromProto(in)
	if err != nil {
		t.Fatal(err)
	}
	derived := nodeconditions.Apply(m)
	if len(derived.DerivedTaints) != 2 {
		t.Fatalf("derived %v", derived.DerivedTaints)
	}
	if diff := cmp.Diff(in, convert.NodeToProto(derived), protocmp.Transform()); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if got := convert.NodeDerivedTaintsToProto(derived); len(got) != 2 || got[0].GetKey() != nodeconditions.TaintUnreachable {
		t.Errorf("derived on the wire: %v", got)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestNodeImagesAndContainerImage: the images of a node and the image of
// a container are refused with the field named when no kubelet would
// report them (no name, an empty or padded name, a negative size).
func TestNodeImagesAndContainerImage(t *testing.T) {
	long := strings.Repeat("x", convert.MaxImageNameLength+1)
	for _, tc := range []struct {
		name   string
		images []*berthv1.ContainerImage
		image  string // of the pod's one container
		want   string // error text; "" accepted
	}{
		{name: "ok", images: []*berthv1.ContainerImage{{Names: []string{"nginx:1.27", "docker.io/library/nginx:1.27"}, SizeBytes: 1 << 20}}, image: "nginx"},
		{name: "size 0", images: []*berthv1.ContainerImage{{Names: []string{"a"}}}},
		{name: "no names", images: []*berthv1.ContainerImage{{SizeBytes: 1}}, want: "node.images[0].names: required"},
		{name: "empty name", images: []*berthv1.ContainerImage{{Names: []string{"a", ""}}}, want: "node.images[0].names[1]: required"},
		{name: "padded name", images: []*berthv1.ContainerImage{{Names: []string{" a"}}}, want: `node.images[0].names[0]: invalid value " a": must not have leading or trailing whitespace`},
		{name: "long name", images: []*berthv1.ContainerImage{{Names: []string{long}}}, want: "node.images[0].names[0]: must be at most 4096 bytes, got 4097"},
		{name: "negative size", images: []*berthv1.ContainerImage{{Names: []string{"a"}}, {Names: []string{"b"}, SizeBytes: -1}}, want: "node.images[1].size_bytes: must be at least 0, got -1"},
		{name: "padded container image", image: "nginx ", want: `pod.containers[0].image: invalid value "nginx ": must not have leading or trailing whitespace`},
		{name: "long container image", image: long, want: "pod.containers[0].image: must be at most 4096 bytes, got 4097"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, nerr := convert.ObjectFromProto(nodeObject(func(n *berthv1.Node) { n.Images = tc.images }))
			_, perr := convert.ObjectFromProto(podObject(func(p *berthv1.Pod) { p.Containers[0].Image = tc.image }))
			got := errText(nerr) + errText(perr)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}
