package model_test

import (
	"testing"

	"github.com/berthsched/berth/core/model"
)

func TestLabelSelector(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front"}
	tests := []struct {
		name    string
		sel     *model.LabelSelector
		want    bool
		wantErr bool
	}{
		{name: "nil matches nothing", sel: nil, want: false},
		{name: "empty matches everything", sel: &model.LabelSelector{}, want: true},
		{name: "matchLabels hit", sel: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, want: true},
		{name: "matchLabels miss", sel: &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, want: false},
		{name: "In", sel: expr("tier", model.LabelSelectorOpIn, "back", "front"), want: true},
		{name: "NotIn with absent key", sel: expr("zone", model.LabelSelectorOpNotIn, "a"), want: true},
		{name: "NotIn hit", sel: expr("app", model.LabelSelectorOpNotIn, "web"), want: false},
		{name: "Exists", sel: expr("app", model.LabelSelectorOpExists), want: true},
		{name: "DoesNotExist", sel: expr("app", model.LabelSelectorOpDoesNotExist), want: false},
		{name: "In without values is invalid", sel: expr("app", model.LabelSelectorOpIn), wantErr: true},
		{name: "Exists with values is invalid", sel: expr("app", model.LabelSelectorOpExists, "x"), wantErr: true},
		{name: "unknown operator is invalid", sel: expr("app", "Near", "x"), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.sel.Compile()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Compile error = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got := s.Matches(labels); got != tc.want {
				t.Errorf("Matches = %v, want %v (selector %s)", got, tc.want, s)
			}
		})
	}
}

func TestSelectorAddInNotIn(t *testing.T) {
	base := model.SelectorFromSet(map[string]string{"app": "web"})
	withIn := base.AddIn("version", "v1")
	if withIn.Matches(map[string]string{"app": "web", "version": "v2"}) {
		t.Error("AddIn: v2 should not match version in (v1)")
	}
	if !withIn.Matches(map[string]string{"app": "web", "version": "v1"}) {
		t.Error("AddIn: v1 should match")
	}
	withNotIn := base.AddNotIn("version", "v1")
	if withNotIn.Matches(map[string]string{"app": "web", "version": "v1"}) {
		t.Error("AddNotIn: v1 should not match")
	}
	if !base.Matches(map[string]string{"app": "web", "version": "v9"}) {
		t.Error("AddIn/AddNotIn changed the original selector")
	}
	if got, want := withIn.String(), "app=web,version=v1"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if model.Nothing().AddIn("a", "b").Matches(map[string]string{"a": "b"}) {
		t.Error("Nothing().AddIn must still match nothing")
	}
}

func expr(key string, op model.LabelSelectorOperator, values ...string) *model.LabelSelector {
	return &model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func TestNodeSelectorTerm(t *testing.T) {
	node := &model.Node{Name: "n1", Labels: map[string]string{"disk": "ssd", "cores": "16"}}
	req := func(key string, op model.NodeSelectorOperator, values ...string) model.NodeSelectorRequirement {
		return model.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name string
		term model.NodeSelectorTerm
		want bool
	}{
		{name: "empty term matches nothing", term: model.NodeSelectorTerm{}, want: false},
		{name: "In", term: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{req("disk", model.NodeSelectorOpIn, "ssd")}}, want: true},
		{name: "Gt true", term: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{req("cores", model.NodeSelectorOpGt, "8")}}, want: true},
		{name: "Lt false", term: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{req("cores", model.NodeSelectorOpLt, "8")}}, want: false},
		{name: "Gt on non-integer label", term: model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{req("disk", model.NodeSelectorOpGt, "1")}}, want: false},
		{name: "field In name", term: model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{req(model.NodeFieldName, model.NodeSelectorOpIn, "n1")}}, want: true},
		{name: "field NotIn name", term: model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{req(model.NodeFieldName, model.NodeSelectorOpNotIn, "n1")}}, want: false},
		{name: "expressions and fields are ANDed", term: model.NodeSelectorTerm{
			MatchExpressions: []model.NodeSelectorRequirement{req("disk", model.NodeSelectorOpDoesNotExist)},
			MatchFields:      []model.NodeSelectorRequirement{req(model.NodeFieldName, model.NodeSelectorOpIn, "n1")},
		}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.term.Matches(node); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
	bad := model.NodeSelectorTerm{MatchFields: []model.NodeSelectorRequirement{req("metadata.uid", model.NodeSelectorOpIn, "x")}}
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted a matchFields key other than metadata.name")
	}
	badGt := model.NodeSelectorTerm{MatchExpressions: []model.NodeSelectorRequirement{req("cores", model.NodeSelectorOpGt, "many")}}
	if err := badGt.Validate(); err == nil {
		t.Error("Validate accepted Gt with a non-integer value")
	}
}

func TestTolerations(t *testing.T) {
	taint := model.Taint{Key: "gpu", Value: "true", Effect: model.TaintEffectNoSchedule}
	tests := []struct {
		name string
		tol  model.Toleration
		want bool
	}{
		{name: "equal match", tol: model.Toleration{Key: "gpu", Value: "true", Effect: model.TaintEffectNoSchedule}, want: true},
		{name: "empty operator is Equal", tol: model.Toleration{Key: "gpu", Value: "false"}, want: false},
		{name: "exists any value", tol: model.Toleration{Key: "gpu", Operator: model.TolerationOpExists}, want: true},
		{name: "exists empty key tolerates all", tol: model.Toleration{Operator: model.TolerationOpExists}, want: true},
		{name: "effect mismatch", tol: model.Toleration{Key: "gpu", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute}, want: false},
		{name: "key mismatch", tol: model.Toleration{Key: "cpu", Operator: model.TolerationOpExists}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tol.Tolerates(&taint); got != tc.want {
				t.Errorf("Tolerates = %v, want %v", got, tc.want)
			}
		})
	}
	taints := []model.Taint{{Key: "soft", Effect: model.TaintEffectPreferNoSchedule}, taint}
	onlyHard := func(t *model.Taint) bool { return t.Effect != model.TaintEffectPreferNoSchedule }
	got, found := model.FirstUntolerated(taints, nil, onlyHard)
	if !found || got.Key != "gpu" || got.String() != "{gpu: true}" {
		t.Errorf("FirstUntolerated = %v %v, want {gpu: true}", got, found)
	}
}

func TestSelectorAnd(t *testing.T) {
	web := model.SelectorFromSet(map[string]string{"app": "web"})
	front := (&model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: "tier", Operator: model.LabelSelectorOpIn, Values: []string{"front", "edge"}}}}).MustCompile()
	tests := []struct {
		name   string
		sel    model.Selector
		labels map[string]string
		want   bool
	}{
		{"both hold", web.And(front), map[string]string{"app": "web", "tier": "edge"}, true},
		{"one fails", web.And(front), map[string]string{"app": "web", "tier": "back"}, false},
		{"everything is neutral", model.Everything().And(web), map[string]string{"app": "web"}, true},
		{"nothing wins", web.And(model.Nothing()), map[string]string{"app": "web"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sel.Matches(tc.labels); got != tc.want {
				t.Errorf("%s matches %v = %v, want %v", tc.sel, tc.labels, got, tc.want)
			}
		})
	}
	if s := web.And(front).String(); s != "app=web,tier in (edge,front)" {
		t.Errorf("String() = %q", s)
	}
}
