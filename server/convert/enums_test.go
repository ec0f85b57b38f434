package convert

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// TestEnumsCoverProto checks each enum table against its proto enum: one
// model value per proto value, in order, so a value added to a .proto
// without its model counterpart fails here.
func TestEnumsCoverProto(t *testing.T) {
	tests := []struct {
		desc  protoreflect.EnumDescriptor
		names []string
	}{
		{berthv1.TaintEffect(0).Descriptor(), strs(taintEffects())},
		{berthv1.TolerationOperator(0).Descriptor(), strs(tolerationOperators())},
		{berthv1.PreemptionPolicy(0).Descriptor(), strs(preemptionPolicies())},
		{berthv1.Protocol(0).Descriptor(), strs(protocols())},
		{berthv1.LabelSelectorOperator(0).Descriptor(), strs(labelSelectorOperators())},
		{berthv1.NodeSelectorOperator(0).Descriptor(), strs(nodeSelectorOperators())},
		{berthv1.UnsatisfiableConstraintAction(0).Descriptor(), strs(unsatisfiableActions())},
		{berthv1.NodeInclusionPolicy(0).Descriptor(), strs(inclusionPolicies())},
	}
	for _, tc := range tests {
		t.Run(string(tc.desc.Name()), func(t *testing.T) {
			values := tc.desc.Values()
			if values.Len() != len(tc.names) {
				t.Fatalf("%d proto values, %d model values", values.Len(), len(tc.names))
			}
			for i := range values.Len() {
				if int(values.Get(i).Number()) != i {
					t.Errorf("proto value %s is numbered %d, want %d", values.Get(i).Name(), values.Get(i).Number(), i)
				}
				if (i == 0) != (tc.names[i] == "") {
					t.Errorf("model value %d is %q", i, tc.names[i])
				}
			}
		})
	}
}

func strs[P ~int32, M ~string](e enumNames[P, M]) []string {
	out := make([]string, len(e))
	for i, m := range e {
		out[i] = string(m)
	}
	return out
}
