package main

import (
	"context"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/statesvc"
)

// nopSink takes the scheduler's decisions and drops them.
type nopSink struct{}

func (nopSink) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// TestAgainstRealServices applies manifests through the real StateService,
// lets the real scheduler try the pods, and explains the result through the
// real AdminService.
func TestAgainstRealServices(t *testing.T) {
	ctx := t.Context()
	sched, addr := realServices(t)

	file := filepath.Join(t.TempDir(), "cluster.yaml")
	writeFile(t, file, `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: fits}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, resources: {requests: {cpu: "8"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: ghost-class}
spec: {priorityClassName: nope, containers: [{name: c}]}
`)
	got := berthctl(t, nil, "", "--server", addr, "apply", "-f", file)
	if got.code != exitFailed || got.stdout != "3 applied, 1 refused\n" ||
		!strings.Contains(got.stderr, file+": document 4: Pod default/ghost-class refused: ") {
		t.Fatalf("apply: %+v", got)
	}
	for range 2 {
		if _, err := sched.ScheduleOne(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "default/huge")
	for _, want := range []string{"Queue:          unschedulable", "Attempts:       1", "0/1 nodes are available: 1 Insufficient cpu.", "n1    Insufficient cpu"} {
		if got.code != exitOK || !strings.Contains(got.stdout, want) {
			t.Errorf("explain lacks %q: %+v", want, got)
		}
	}
	got = berthctl(t, nil, "", "--server", addr, "get", "pending")
	// "fits" got a Bind that nobody confirmed: it is still pending, binding.
	if got.code != exitOK || !regexp.MustCompile(`huge +unschedulable`).MatchString(got.stdout) || !regexp.MustCompile(`fits +binding .* n1 `).MatchString(got.stdout) {
		t.Errorf("get pending: %+v", got)
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "default/nobody")
	if got.code != exitNotFound || got.stderr != "berthctl: pod default/nobody not found\n" {
		t.Errorf("explain missing pod: %+v", got)
	}
	got = berthctl(t, nil, "", "--server", addr, "delete", "pod", "huge")
	if got.code != exitOK || got.stdout != "Pod default/huge deleted\n" {
		t.Errorf("delete: %+v", got)
	}
	if _, ok := sched.View().Pod("pod-default-huge"); ok {
		t.Errorf("pod still held after delete")
	}
}

// realServices serves the real StateService and AdminService over a
// deterministic scheduler whose binds go nowhere; it returns the
// scheduler and the address.
func realServices(t *testing.T) (*scheduler.Scheduler, string) {
	t.Helper()
	reg := registry.InTree()
	sched, err := scheduler.New(t.Context(), scheduler.Options{
		Config: config.Default(), Registry: reg, Decisions: nopSink{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	berthv1.RegisterStateServiceServer(srv, statesvc.New(schedulerSides{sched, sched.View()}, statesvc.Options{}))
	berthv1.RegisterAdminServiceServer(srv, adminsvc.New(sched.View(), adminsvc.Options{Registry: reg}))
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return sched, lis.Addr().String()
}

// berthctl apply sends the pod groups of kube's and scheduler-plugins'
// manifests, warning of 1.36's spelling; explain shows a member waiting
// for its group.
func TestApplyPodGroups(t *testing.T) {
	sched, addr := realServices(t)
	file := filepath.Join(t.TempDir(), "groups.yaml")
	writeFile(t, file, `apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: v1
kind: Pod
metadata: {name: w0}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: l0, labels: {scheduling.x-k8s.io/pod-group: legacy}}
spec: {containers: [{name: c}]}
`)
	got := berthctl(t, nil, "", "--server", addr, "apply", "-f", file)
	if got.code != exitOK || got.stdout != "3 applied\n" {
		t.Fatalf("apply: %+v", got)
	}
	// 1.36's spelling is applied, with a warning naming 1.37's.
	if want := "berthctl: warning: " + file + ": document 1 (PodGroup default/train): scheduling.k8s.io/v1alpha2 PodGroup is Kubernetes 1.36's spelling, removed in 1.37: write scheduling.k8s.io/v1beta1"; !strings.HasPrefix(got.stderr, want) || strings.Count(got.stderr, "\n") != 1 {
		t.Errorf("apply stderr %q, want one line starting %q", got.stderr, want)
	}
	if gs := sched.View().PodGroups(); len(gs) != 1 || gs[0].Key() != "default/train" || gs[0].MinCount != 2 {
		t.Errorf("groups held: %v", gs)
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "default/l0")
	for _, want := range []string{"Queue:          gated", "Waiting:        waiting for pod group default/legacy: it does not exist",
		"Pod group:      legacy: does not exist (the pod waits for it)"} {
		if got.code != exitOK || !strings.Contains(got.stdout, want) {
			t.Errorf("explain lacks %q: %+v", want, got)
		}
	}
	got = berthctl(t, nil, "", "--server", addr, "explain", "default/w0")
	if want := "Pod group:      train: min_count 2, 1 members, 0 placed"; got.code != exitOK || !strings.Contains(got.stdout, want) {
		t.Errorf("explain lacks %q: %+v", want, got)
	}
}

// schedulerSides is the scheduler's write and read sides as the one
// statesvc.Cluster berthd gives the service.
type schedulerSides struct {
	*scheduler.Scheduler
	scheduler.View
}

// CheckAdmission runs the admission of the scheduler's pod kind, as
// berthd's object store does.
func (s schedulerSides) CheckAdmission(pod *model.Pod) error {
	_, err := s.Kinds().Admit(pod)
	return err
}
