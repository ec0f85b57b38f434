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
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/statesvc"
)

// nopSink takes the scheduler's decisions and drops them.
type nopSink struct{}

func (nopSink) Bind(context.Context, *model.Pod, string) error                      { return nil }
func (nopSink) Evict(context.Context, *model.Pod, string, *model.Pod, string) error { return nil }
func (nopSink) Nominate(context.Context, *model.Pod, string) error                  { return nil }
func (nopSink) ClearNomination(context.Context, *model.Pod, string) error           { return nil }

// TestAgainstRealServices applies manifests through the real StateService,
// lets the real scheduler try the pods, and explains the result through the
// real AdminService.
func TestAgainstRealServices(t *testing.T) {
	ctx := t.Context()
	reg := registry.InTree()
	sched, err := scheduler.New(ctx, scheduler.Options{
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
	berthv1.RegisterStateServiceServer(srv, statesvc.New(struct {
		*scheduler.Scheduler
		scheduler.View
	}{sched, sched.View()}, statesvc.Options{}))
	berthv1.RegisterAdminServiceServer(srv, adminsvc.New(sched.View(), adminsvc.Options{Registry: reg}))
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	addr := lis.Addr().String()

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
