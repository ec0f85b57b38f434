package evictionsvc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/evictionsvc"
)

// cluster holds pods by uid, sorted as the scheduler's view lists them.
type cluster []*model.Pod

func (c cluster) Find(ns, name string) (*model.Pod, bool) {
	for _, p := range c {
		if p.Namespace == ns && p.Name == name {
			return p, true
		}
	}
	return nil, false
}

func (c cluster) Pod(uid string) (*model.Pod, bool) {
	for _, p := range c {
		if p.UID == uid {
			return p, true
		}
	}
	return nil, false
}
func (c cluster) Pods() []*model.Pod                   { return c }
func (cluster) Budgets(*model.Pod) []disruption.Budget { return nil }

// binds is the book's outstanding binds: pod uid -> node.
type binds map[string]string

func (b binds) BindingTo(uid string) (string, bool) {
	n, ok := b[uid]
	return n, ok
}

// evictor records the evictions written.
type evictor struct{ written []framework.Eviction }

func (e *evictor) EvictAt(_ context.Context, ev framework.Eviction) (uint64, error) {
	e.written = append(e.written, ev)
	return uint64(len(e.written)), nil
}

func notEvicted(string) bool { return false }

var bound = &model.Pod{UID: "u1", Namespace: "default", Name: "p1", NodeName: "n1"}

// TestListNodePodsNode: the node must be a node name; a 1 MiB one was
// answered OK (with nothing) before.
func TestListNodePodsNode(t *testing.T) {
	svc := evictionsvc.New(cluster{bound}, nil, notEvicted, binds{})
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

// A node's pods are those bound to it and those binding to it (a Bind to
// it awaiting its outcome: the scheduler's pod has no node yet); binding
// ones were missing before, so a drain neither said nor evicted them.
func TestListNodePodsBinding(t *testing.T) {
	pods := cluster{
		{UID: "u-bound", Namespace: "a", Name: "bound", NodeName: "n1"},
		{UID: "u-binding", Namespace: "a", Name: "binding"},
		{UID: "u-elsewhere", Namespace: "a", Name: "binding-elsewhere"},
		{UID: "u-pending", Namespace: "a", Name: "pending"},
		// Held on its node by a bind restored after a restart.
		{UID: "u-held", Namespace: "a", Name: "held", NodeName: "n1"},
		{UID: "u-other", Namespace: "a", Name: "other", NodeName: "n2"},
		{UID: "u-evicted", Namespace: "b", Name: "binding-evicted", Terminating: true},
	}
	book := binds{"u-binding": "n1", "u-elsewhere": "n2", "u-held": "n1", "u-evicted": "n1"}
	svc := evictionsvc.New(pods, nil, notEvicted, book)
	ref := func(ns, name, uid string) *berthv1.PodRef {
		return &berthv1.PodRef{Namespace: ns, Name: name, Uid: uid}
	}
	for _, tc := range []struct {
		node string
		want []*berthv1.NodePod
	}{
		{"n1", []*berthv1.NodePod{
			{Pod: ref("a", "binding", "u-binding"), Binding: true},
			{Pod: ref("a", "bound", "u-bound")},
			{Pod: ref("a", "held", "u-held"), Binding: true},
			{Pod: ref("b", "binding-evicted", "u-evicted"), Binding: true, Terminating: true},
		}},
		{"n2", []*berthv1.NodePod{
			{Pod: ref("a", "binding-elsewhere", "u-elsewhere"), Binding: true},
			{Pod: ref("a", "other", "u-other")},
		}},
		{"n3", nil},
	} {
		t.Run(tc.node, func(t *testing.T) {
			resp, err := svc.ListNodePods(t.Context(), &berthv1.ListNodePodsRequest{Node: tc.node})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, resp.GetPods(), protocmp.Transform()); diff != "" {
				t.Errorf("ListNodePods(%s) (-want +got):\n%s", tc.node, diff)
			}
		})
	}
}

// Evicting a binding pod writes an Evict naming the node it is binding to
// (it named none before: the scheduler's pod has no node until the bind
// is confirmed); a bound pod's names its node, a pending pod's none.
func TestEvictPodNamesTheNode(t *testing.T) {
	pods := cluster{
		{UID: "u-bound", Namespace: "a", Name: "bound", NodeName: "n1"},
		{UID: "u-binding", Namespace: "a", Name: "binding"},
		{UID: "u-pending", Namespace: "a", Name: "pending"},
	}
	for _, tc := range []struct {
		pod, wantNode string
	}{
		{"bound", "n1"},
		{"binding", "n2"},
		{"pending", ""},
	} {
		t.Run(tc.pod, func(t *testing.T) {
			ev := &evictor{}
			svc := evictionsvc.New(pods, ev, notEvicted, binds{"u-binding": "n2"})
			req := &berthv1.EvictPodRequest{Pod: &berthv1.PodRef{Namespace: "a", Name: tc.pod}, DryRun: true}
			if resp, err := svc.EvictPod(t.Context(), req); err != nil || resp.GetRevision() != 0 || len(ev.written) != 0 {
				t.Fatalf("dry run: %v %v, wrote %d", resp, err, len(ev.written))
			}
			req.DryRun = false
			resp, err := svc.EvictPod(t.Context(), req)
			if err != nil || resp.GetRevision() != 1 || resp.GetBudget() != "" {
				t.Fatalf("EvictPod = %v, %v", resp, err)
			}
			if len(ev.written) != 1 || ev.written[0].Node != tc.wantNode || ev.written[0].Victim.Name != tc.pod || ev.written[0].Cause != framework.EvictAPI {
				t.Errorf("evictions written %+v, want one of %s on node %q", ev.written, tc.pod, tc.wantNode)
			}
		})
	}
}

// NodePod.daemon_set follows the pod's controlling owner when the
// orchestrator sent owners (it was the toleration alone before), and the
// DaemonSet controller's toleration otherwise.
func TestListNodePodsDaemonSet(t *testing.T) {
	dsToleration := []model.Toleration{{Key: model.TaintNodeUnschedulable, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoSchedule}}
	owned := func(owners ...model.OwnerReference) *model.PodRuntime { return &model.PodRuntime{Owners: owners} }
	for _, tc := range []struct {
		name string
		pod  model.Pod
		want bool
	}{
		{"controlled by a DaemonSet", model.Pod{Runtime: owned(model.OwnerReference{Kind: "DaemonSet", Name: "agent", Controller: true})}, true},
		{"controlled by a DaemonSet, no toleration sent", model.Pod{Runtime: owned(model.OwnerReference{Kind: "ReplicaSet", Name: "x"}, model.OwnerReference{Kind: "DaemonSet", Name: "agent", Controller: true})}, true},
		{"owned by a DaemonSet that does not control it", model.Pod{Runtime: owned(model.OwnerReference{Kind: "DaemonSet", Name: "agent"})}, false},
		{"controlled by a ReplicaSet, with the toleration", model.Pod{Tolerations: dsToleration, Runtime: owned(model.OwnerReference{Kind: "ReplicaSet", Name: "web", Controller: true})}, false},
		{"no owners sent, the toleration", model.Pod{Tolerations: dsToleration, Runtime: &model.PodRuntime{}}, true},
		{"no runtime, the toleration", model.Pod{Tolerations: dsToleration}, true},
		{"no runtime, no toleration", model.Pod{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pod
			p.UID, p.Namespace, p.Name, p.NodeName = "u", "default", "p", "n1"
			svc := evictionsvc.New(cluster{&p}, nil, notEvicted, binds{})
			resp, err := svc.ListNodePods(t.Context(), &berthv1.ListNodePodsRequest{Node: "n1"})
			if err != nil || len(resp.GetPods()) != 1 {
				t.Fatalf("ListNodePods = %v, %v", resp, err)
			}
			if got := resp.GetPods()[0].GetDaemonSet(); got != tc.want {
				t.Errorf("daemon_set = %v, want %v", got, tc.want)
			}
		})
	}
}
