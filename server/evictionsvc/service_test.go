package evictionsvc_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/evictionsvc"
)

// cluster holds one pod bound to n1.
type cluster struct{}

var bound = &model.Pod{UID: "u1", Namespace: "default", Name: "p1", NodeName: "n1"}

func (cluster) Find(ns, name string) (*model.Pod, bool) {
	return bound, ns == bound.Namespace && name == bound.Name
}
func (cluster) Pod(uid string) (*model.Pod, bool)      { return bound, uid == bound.UID }
func (cluster) Pods() []*model.Pod                     { return []*model.Pod{bound} }
func (cluster) Budgets(*model.Pod) []disruption.Budget { return nil }

// TestListNodePodsNode: the node must be a node name; a 1 MiB one was
// answered OK (with nothing) before.
func TestListNodePodsNode(t *testing.T) {
	svc := evictionsvc.New(cluster{}, nil, func(string) bool { return false })
	tests := []struct {
		name     string
		node     string
		wantCode codes.Code
		wantPods int
	}{
		{name: "a node", node: "n1", wantCode: codes.OK, wantPods: 1},
		{name: "missing", node: "", wantCode: codes.InvalidArgument},
		{name: "1 MiB", node: strings.Repeat("n", 1<<20), wantCode: codes.InvalidArgument},
		{name: "not a name", node: "N_1", wantCode: codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := svc.ListNodePods(t.Context(), &berthv1.ListNodePodsRequest{Node: tc.node})
			if status.Code(err) != tc.wantCode || len(resp.GetPods()) != tc.wantPods {
				t.Errorf("ListNodePods = %d pods, %.200v; want %d, %v", len(resp.GetPods()), err, tc.wantPods, tc.wantCode)
			}
			if tc.wantCode == codes.InvalidArgument && !strings.HasPrefix(status.Convert(err).Message(), "node") {
				t.Errorf("message %.200q does not name the field node", status.Convert(err).Message())
			}
		})
	}
}
