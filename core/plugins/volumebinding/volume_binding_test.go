package volumebinding

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

func TestNewChecksArgs(t *testing.T) {
	for _, tc := range []struct {
		name, args, wantErr string
	}{
		{name: "none"},
		{name: "kube's defaults", args: `{"bindTimeoutSeconds":600,"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}`},
		{name: "negative timeout", args: `{"bindTimeoutSeconds":-1}`, wantErr: "bindTimeoutSeconds: -1"},
		{name: "utilization out of range", args: `{"shape":[{"utilization":101,"score":1}]}`, wantErr: "shape[0].utilization: 101"},
		{name: "score out of range", args: `{"shape":[{"utilization":0,"score":11}]}`, wantErr: "shape[0].score: 11"},
		{name: "utilizations not increasing", args: `{"shape":[{"utilization":50,"score":1},{"utilization":50,"score":2}]}`, wantErr: "shape[1].utilization: 50: utilization values must be sorted"},
		{name: "not an object", args: `[1]`, wantErr: "VolumeBinding args"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(context.Background(), json.RawMessage(tc.args), nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestScoreWithoutClaims: a pod without volume claims (every pod Berth
// knows) scores 0 on any node, as kube 1.37's with StorageCapacityScoring.
func TestScoreWithoutClaims(t *testing.T) {
	pl := &VolumeBinding{}
	node := framework.NewNodeInfo(&model.Node{Name: "n1"})
	score, st := pl.Score(context.Background(), framework.NewCycleState(), &model.Pod{Name: "p", Namespace: "default"}, node)
	if !st.IsSuccess() || score != 0 {
		t.Fatalf("Score = %d, %v; want 0, success", score, st)
	}
}
