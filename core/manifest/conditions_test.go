package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

func TestNodeConditionsImported(t *testing.T) {
	c, err := Decode("nodes.yaml", []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  conditions:
  - {type: Ready, status: "False", reason: KubeletNotReady}
  - {type: MemoryPressure, status: "True"}
  - {type: CustomKubeletThing, status: "True"}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.NodeCondition{
		{Type: model.NodeReady, Status: model.ConditionFalse, Reason: "KubeletNotReady"},
		{Type: model.NodeMemoryPressure, Status: model.ConditionTrue},
	}
	if diff := cmp.Diff(want, c.Nodes[0].Conditions); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	_, err = Decode("bad.yaml", []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status: {conditions: [{type: Ready, status: Maybe}]}
`))
	if err == nil || !strings.Contains(err.Error(), "status.conditions[0].status") {
		t.Errorf("bad status: %v", err)
	}
}
