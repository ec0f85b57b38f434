package prefernodelabel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/framework"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/examples/custom-plugin/prefernodelabel"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string // "" for success
	}{
		{"valid", `{"key":"example.com/tier","values":["fast","ssd"]}`, ""},
		{"no args", ``, "key: required"},
		{"no key", `{"values":["fast"]}`, "key: required"},
		{"no values", `{"key":"tier"}`, "values: at least one value"},
		{"empty value", `{"key":"tier","values":["fast",""]}`, "values[1]: must not be empty"},
		{"too many values", `{"key":"tier","values":[` + strings.Repeat(`"v",`, prefernodelabel.MaxValues) + `"v"]}`, "values: 65 values, at most 64"},
		{"unknown field", `{"key":"tier","values":["fast"],"weight":3}`, `unknown field "weight"`},
		{"wrong type", `{"key":1,"values":["fast"]}`, "cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := prefernodelabel.New(t.Context(), json.RawMessage(tt.args), nil)
			if tt.wantErr == "" {
				if err != nil || p.Name() != prefernodelabel.Name {
					t.Fatalf("New = %v, %v; want the plugin", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "PreferNodeLabel args: ") {
				t.Fatalf("New error = %v, want PreferNodeLabel args: ...%s", err, tt.wantErr)
			}
		})
	}
}

func TestNodeScore(t *testing.T) {
	args := prefernodelabel.Args{Key: "example.com/tier", Values: []string{"fast", "ssd"}}
	tests := []struct {
		name   string
		labels map[string]string
		want   int64
	}{
		{"preferred value", map[string]string{"example.com/tier": "fast"}, framework.MaxNodeScore},
		{"second preferred value", map[string]string{"example.com/tier": "ssd"}, framework.MaxNodeScore},
		{"other value", map[string]string{"example.com/tier": "slow"}, 0},
		{"value under another key", map[string]string{"tier": "fast"}, 0},
		{"no labels", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := mt.MakeNode("n1").Obj()
			node.Labels = tt.labels
			if got := prefernodelabel.NodeScore(args, node); got != tt.want {
				t.Errorf("NodeScore = %d, want %d", got, tt.want)
			}
		})
	}
	if got := prefernodelabel.NodeScore(args, nil); got != 0 {
		t.Errorf("NodeScore(nil node) = %d, want 0", got)
	}
}
