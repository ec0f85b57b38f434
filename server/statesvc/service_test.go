package statesvc_test

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/statesvc"
)

const (
	kindNode  = berthv1.ObjectKind_OBJECT_KIND_NODE
	kindPod   = berthv1.ObjectKind_OBJECT_KIND_POD
	kindClass = berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS
	kindPDB   = berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET
	kindNS    = berthv1.ObjectKind_OBJECT_KIND_NAMESPACE
)

func TestSyncBatchErrors(t *testing.T) {
	invalid := podObj("bad", withCPU(-1))
	tests := []struct {
		name        string
		mutations   []*berthv1.Mutation
		wantApplied uint32
		wantErrors  []*berthv1.ObjectError
		wantPods    []string
	}{
		{
			name:        "one invalid pod among valid ones",
			mutations:   upserts(nodeObj("n1"), invalid, podObj("good")),
			wantApplied: 2,
			wantErrors: []*berthv1.ObjectError{{
				Index: 1, Ref: &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: "bad", Uid: "uid-bad"},
				Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "pod.containers[0].requests[cpu]", Message: "must not be negative, got -1",
			}},
			wantPods: []string{"default/good"},
		},
		{
			name:        "unknown priority class",
			mutations:   upserts(podObj("p", withClass("gold"))),
			wantApplied: 0,
			wantErrors: []*berthv1.ObjectError{{
				Index: 0, Ref: &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: "p", Uid: "uid-p"},
				Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION, FieldPath: "pod.priority_class_name",
				Message: "no PriorityClass with name gold was found; send the PriorityClass first",
			}},
		},
		{
			name:        "unknown class with a priority of its own: trusted",
			mutations:   upserts(podObj("p", withClass("gold"), withPriority(500))),
			wantApplied: 1,
			wantPods:    []string{"default/p"},
		},
		{
			name:        "unknown class on a running pod: accepted, it uses its node",
			mutations:   upserts(nodeObj("n1"), podObj("p", withClass("gold"), withNode("n1"))),
			wantApplied: 2,
			wantPods:    []string{"default/p"},
		},
		{
			name:        "unknown class on a pod replacing another: the other stays",
			mutations:   upserts(podObj("p"), podObj("p", withUID("uid-p2"), withClass("gold"))),
			wantApplied: 1,
			wantErrors: []*berthv1.ObjectError{{
				Index: 1, Ref: &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: "p", Uid: "uid-p2"},
				Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION, FieldPath: "pod.priority_class_name",
				Message: "no PriorityClass with name gold was found; send the PriorityClass first",
			}},
			wantPods: []string{"default/p"},
		},
		{
			name:        "the class gone, an update of a pod admitted with it",
			mutations:   append(upserts(classObj("gold", 100), podObj("p", withClass("gold"))), append([]*berthv1.Mutation{del(kindClass, "", "gold")}, upserts(podObj("p", withClass("gold")))...)...),
			wantApplied: 4,
			wantPods:    []string{"default/p"},
		},
		{
			name:        "the class first, then the pod",
			mutations:   upserts(classObj("gold", 100), podObj("p", withClass("gold"))),
			wantApplied: 2,
			wantPods:    []string{"default/p"},
		},
		{
			name: "dynamic resource allocation: bad objects refused naming the field, good ones applied",
			mutations: append(upserts(
				&berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{Name: "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: "device.driver =="}}}}},
				&berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{Name: "gpu"}}},
				&berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: &berthv1.ResourceClaim{Namespace: "default", Name: "c", Spec: &berthv1.ResourceClaimSpec{
					Requests: []*berthv1.DeviceRequest{{Name: "r", Exactly: &berthv1.ExactDeviceRequest{DeviceClassName: "fpga"}}},
				}}}},
				&berthv1.Object{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{Namespace: "default", Name: "t", Spec: &berthv1.ResourceClaimSpec{
					Requests: []*berthv1.DeviceRequest{{Name: "r", FirstAvailable: []*berthv1.DeviceSubRequest{{Name: "a", DeviceClassName: "gpu"}, {Name: "b", DeviceClassName: "fpga"}}}},
				}}}},
				&berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: &berthv1.ResourceSlice{
					Name: "s", Driver: "gpu.example.com", NodeName: "n1", Pool: &berthv1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
					Devices: []*berthv1.Device{{Name: "gpu-0"}, {Name: "gpu-0"}},
				}}},
				&berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: &berthv1.ResourceClaim{Namespace: "default", Name: "c", Spec: &berthv1.ResourceClaimSpec{
					Requests: []*berthv1.DeviceRequest{{Name: "r", Exactly: &berthv1.ExactDeviceRequest{DeviceClassName: "gpu"}}},
				}}}},
			), del(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, "default", "c"), del(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, "default", "c")),
			// A claim and a template naming a class not sent yet (fpga)
			// are taken, as kube-apiserver takes them: their pods wait
			// for the class (core/scheduler TestDRAClassArrivesAfterTheClaim).
			wantApplied: 5,
			wantErrors: []*berthv1.ObjectError{
				{Index: 0, Ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, Name: "gpu"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "device_class.selectors[0].cel",
					Message: "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | device.driver ==\n | ................^"},
				{Index: 4, Ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, Name: "s"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT,
					FieldPath: "resource_slice.devices[1].name", Message: `duplicate device name "gpu-0" (also spec.devices[0])`},
				{Index: 7, Ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, Namespace: "default", Name: "c"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND,
					Message: "delete ResourceClaim default/c: device object not found"},
			},
		},
		{
			name:        "deleting what is not held",
			mutations:   []*berthv1.Mutation{del(kindNode, "", "ghost"), del(kindPod, "default", "ghost"), del(kindPDB, "default", "ghost"), del(kindNS, "", "ghost"), del(kindClass, "", "ghost")},
			wantApplied: 0,
			wantErrors: []*berthv1.ObjectError{
				{Index: 0, Ref: &berthv1.ObjectRef{Kind: kindNode, Name: "ghost"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "delete node ghost: node not found"},
				{Index: 1, Ref: &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: "ghost"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "pod default/ghost: not found"},
				{Index: 2, Ref: &berthv1.ObjectRef{Kind: kindPDB, Namespace: "default", Name: "ghost"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "delete PodDisruptionBudget default/ghost: not found"},
				{Index: 3, Ref: &berthv1.ObjectRef{Kind: kindNS, Name: "ghost"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "delete namespace ghost: not found"},
				{Index: 4, Ref: &berthv1.ObjectRef{Kind: kindClass, Name: "ghost"}, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "delete PriorityClass ghost: not found"},
			},
		},
		{
			name: "malformed references and mutations",
			mutations: []*berthv1.Mutation{
				del(kindPod, "", "p"),
				{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{Name: "x"}}},
				{},
				{Op: &berthv1.Mutation_Upsert{Upsert: &berthv1.Object{}}},
				del(kindClass, "", "system-node-critical"),
			},
			wantErrors: []*berthv1.ObjectError{
				{Index: 0, Ref: &berthv1.ObjectRef{Kind: kindPod, Name: "p"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "namespace", Message: "required"},
				{Index: 1, Ref: &berthv1.ObjectRef{Name: "x"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "kind", Message: "required"},
				{Index: 2, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, Message: "the mutation is empty: exactly one of upsert and delete is required"},
				{Index: 3, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, Message: "the object has no kind: exactly one of node, pod, priority_class, pod_disruption_budget, namespace, pod_group, composite_pod_group, device_class, resource_slice, resource_claim, resource_claim_template, device_taint_rule, persistent_volume, persistent_volume_claim, storage_class, csi_node, csi_driver, csi_storage_capacity, resource_flavor, cluster_queue, cohort, local_queue, workload_priority_class and workload is required"},
				{Index: 4, Ref: &berthv1.ObjectRef{Kind: kindClass, Name: "system-node-critical"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "name",
					Message: "system-node-critical cannot be deleted: built-in PriorityClass"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, statesvc.Options{})
			_, send := e.sync(t)
			resp := send(&berthv1.SyncRequest{BatchId: 7, Mutations: tc.mutations})
			want := &berthv1.SyncResponse{BatchId: 7, Applied: tc.wantApplied, Errors: tc.wantErrors}
			if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
				t.Errorf("SyncResponse (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPods, e.podKeys()); diff != "" {
				t.Errorf("pods held (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncDeletesAndReplaces(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	_, send := e.sync(t)
	resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(nodeObj("n1"), podObj("p"), pdbObj("default", "b"), nsObj("team"))})
	if resp.GetApplied() != 4 || len(resp.GetErrors()) != 0 {
		t.Fatalf("setup: %v", resp)
	}
	// Same namespace/name, another uid: the old pod is replaced.
	resp = send(&berthv1.SyncRequest{BatchId: 2, Mutations: upserts(podObj("p", withUID("uid-p2")))})
	if resp.GetApplied() != 1 {
		t.Fatalf("replace: %v", resp)
	}
	if _, ok := e.sched.View().Pod("uid-p"); ok {
		t.Error("the pod's old uid is still held after the replacement")
	}
	if p, ok := e.sched.View().Pod("uid-p2"); !ok || p.Key() != "default/p" {
		t.Errorf("the replacement is not held: %v %v", p, ok)
	}
	// A delete naming the old uid refuses: it is not the held pod.
	wrongUID := &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{Kind: kindPod, Namespace: "default", Name: "p", Uid: "uid-p"}}}
	resp = send(&berthv1.SyncRequest{BatchId: 3, Mutations: []*berthv1.Mutation{wrongUID}})
	if got := resp.GetErrors(); len(got) != 1 || got[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION || got[0].GetFieldPath() != "uid" {
		t.Errorf("delete with a stale uid: %v", resp)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 4, Mutations: []*berthv1.Mutation{
		del(kindPod, "default", "p"), del(kindNode, "", "n1"), del(kindPDB, "default", "b"), del(kindNS, "", "team"),
	}})
	if resp.GetApplied() != 4 || len(resp.GetErrors()) != 0 {
		t.Errorf("deletes: %v", resp)
	}
	if len(e.podKeys()) != 0 || len(e.nodeNames(t)) != 0 {
		t.Errorf("left after deletes: pods %v nodes %v", e.podKeys(), e.nodeNames(t))
	}
}

func TestResync(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	ctx := t.Context()
	_, send := e.sync(t)
	send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(
		nodeObj("n1"), nodeObj("n2"), classObj("gold", 10), classObj("silver", 5),
		nsObj("a"), nsObj("b"), pdbObj("default", "keep"), pdbObj("default", "drop"),
		podObj("keep", withNode("n1")), podObj("drop", withNode("n2")), podObj("pending"),
	)})

	// A re-list of every kind, across two requests. Scheduling is held
	// while it is open. An Apply in the middle is newer than the re-list:
	// what it upserts stays.
	resp := send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n1"), classObj("gold", 10), nsObj("a"))})
	if resp.GetApplied() != 3 || resp.GetResyncDeleted() != 0 {
		t.Fatalf("begin: %v", resp)
	}
	if !e.sched.View().Held() {
		t.Errorf("scheduling not held during the resync")
	}
	if _, err := e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n3")}}); err != nil {
		t.Fatal(err)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(pdbObj("default", "keep"), podObj("keep", withNode("n1")), podObj("pending"))})
	want := &berthv1.SyncResponse{BatchId: 3, Applied: 3, ResyncDeleted: 5} // n2, silver, b, drop (budget), drop (pod)
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("end (-want +got):\n%s", diff)
	}
	if e.sched.View().Held() {
		t.Errorf("scheduling still held after RESYNC_END")
	}
	if diff := cmp.Diff([]string{"n1", "n3"}, e.nodeNames(t)); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default/keep", "default/pending"}, e.podKeys()); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	var classes []string
	for _, pc := range e.sched.View().PriorityClasses() {
		classes = append(classes, pc.Name)
	}
	if diff := cmp.Diff([]string{"gold", "system-cluster-critical", "system-node-critical"}, classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	// The budget "drop" and namespace "b" are gone: deleting them again
	// finds nothing.
	resp = send(&berthv1.SyncRequest{BatchId: 4, Mutations: []*berthv1.Mutation{del(kindPDB, "default", "drop"), del(kindNS, "", "b"), del(kindPDB, "default", "keep")}})
	if got := codesOf(resp.GetErrors()); !slices.Equal(got, []berthv1.ErrorCode{berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, berthv1.ErrorCode_ERROR_CODE_NOT_FOUND}) || resp.GetApplied() != 1 {
		t.Errorf("after resync: %v", resp)
	}

	// A resync of nodes only leaves pods alone, and one request can carry
	// the whole re-list.
	resp = send(&berthv1.SyncRequest{BatchId: 5, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{kindNode}})
	if resp.GetApplied() != 0 {
		t.Fatalf("begin nodes: %v", resp)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 6, Resync: berthv1.Resync_RESYNC_END})
	if resp.GetResyncDeleted() != 2 || len(e.nodeNames(t)) != 0 || len(e.podKeys()) != 2 {
		t.Errorf("node resync: %v, nodes %v, pods %v", resp, e.nodeNames(t), e.podKeys())
	}
}

func codesOf(errs []*berthv1.ObjectError) []berthv1.ErrorCode {
	var out []berthv1.ErrorCode
	for _, e := range errs {
		out = append(out, e.GetCode())
	}
	return out
}

func TestSyncStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		reqs []*berthv1.SyncRequest
		want codes.Code
	}{
		{name: "end without begin", reqs: []*berthv1.SyncRequest{{Resync: berthv1.Resync_RESYNC_END}}, want: codes.FailedPrecondition},
		{name: "kinds without begin", reqs: []*berthv1.SyncRequest{{ResyncKinds: []berthv1.ObjectKind{kindNode}}}, want: codes.FailedPrecondition},
		{name: "unknown marker", reqs: []*berthv1.SyncRequest{{Resync: 9}}, want: codes.InvalidArgument},
		{name: "unspecified kind", reqs: []*berthv1.SyncRequest{{Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{0}}}, want: codes.InvalidArgument},
		{name: "unknown kind", reqs: []*berthv1.SyncRequest{{Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{99}}}, want: codes.InvalidArgument},
		{name: "second end", reqs: []*berthv1.SyncRequest{{Resync: berthv1.Resync_RESYNC_BEGIN}, {Resync: berthv1.Resync_RESYNC_END}, {Resync: berthv1.Resync_RESYNC_END}}, want: codes.FailedPrecondition},
		{name: "too many mutations", reqs: []*berthv1.SyncRequest{{Mutations: upserts(nodeObj("a"), nodeObj("b"), nodeObj("c"))}}, want: codes.ResourceExhausted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, statesvc.Options{MaxMutations: 2})
			stream, _ := e.sync(t)
			for _, r := range tc.reqs {
				if err := stream.Send(r); err != nil && err != io.EOF {
					t.Fatal(err)
				}
			}
			var err error
			for err == nil {
				_, err = stream.Recv()
			}
			if got := status.Code(err); got != tc.want {
				t.Errorf("stream ended with %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSyncCleanEnd(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	stream, send := e.sync(t)
	send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n1"))})
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != io.EOF {
		t.Fatalf("Recv after CloseSend = %v, want EOF", err)
	}
	// The abandoned resync deleted nothing, kept what it upserted, and
	// no longer holds scheduling.
	if diff := cmp.Diff([]string{"n1"}, e.nodeNames(t)); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if e.sched.View().Held() {
		t.Errorf("scheduling still held after the stream of an open resync ended")
	}
}

// A resync keeps what another stream upserts while it is open, and
// objects it names in refused upserts; it deletes only what nobody sent
// since RESYNC_BEGIN. Each resync holds scheduling until its own end.
func TestResyncKeepsConcurrentUpserts(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	ctx := t.Context()
	_, send := e.sync(t)
	send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(nodeObj("n1"), nodeObj("n2"), nodeObj("old"), podObj("run", withNode("n1")), podObj("gone"))})

	_, other := e.sync(t)
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n1"))})
	other(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{kindNS}})
	if _, err := e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n-new"), podObj("fresh")}}); err != nil {
		t.Fatal(err)
	}
	other(&berthv1.SyncRequest{BatchId: 2, Mutations: upserts(nodeObj("n2"))})
	// The running pod re-listed without its node: refused (a bound pod
	// does not become pending again), but it is listed, so it stays.
	resp := send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(podObj("run"))})
	if len(resp.GetErrors()) != 1 || resp.GetErrors()[0].GetFieldPath() != "pod.node_name" || resp.GetErrors()[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION {
		t.Errorf("re-listing a running pod without node_name: %v, want FAILED_PRECONDITION on pod.node_name", resp.GetErrors())
	}
	if resp.GetResyncDeleted() != 2 { // node old, pod gone
		t.Errorf("resync deleted %d, want 2: %v", resp.GetResyncDeleted(), resp)
	}
	if diff := cmp.Diff([]string{"n-new", "n1", "n2"}, slices.Sorted(slices.Values(e.nodeNames(t)))); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default/fresh", "default/run"}, e.podKeys()); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if p, _ := e.sched.View().Pod("uid-run"); p == nil || p.NodeName != "n1" {
		t.Errorf("run is %v, want still bound to n1", p)
	}
	if !e.sched.View().Held() {
		t.Errorf("scheduling not held while the other stream's resync is open")
	}
	other(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END})
	if e.sched.View().Held() {
		t.Errorf("scheduling held after every resync ended")
	}
}

func TestApplyAndDelete(t *testing.T) {
	e := newEnv(t, statesvc.Options{MaxMutations: 3})
	ctx := t.Context()
	resp, err := e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n1"), podObj("p", withNS("Bad"))}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetApplied() != 1 || len(resp.GetErrors()) != 1 || resp.GetErrors()[0].GetFieldPath() != "pod.namespace" || resp.GetErrors()[0].GetIndex() != 1 {
		t.Errorf("Apply = %v", resp)
	}
	dresp, err := e.client.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: kindNode, Name: "n1"}, {Kind: kindNode, Name: "n1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if dresp.GetDeleted() != 1 || len(dresp.GetErrors()) != 1 || dresp.GetErrors()[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_NOT_FOUND || dresp.GetErrors()[0].GetIndex() != 1 {
		t.Errorf("Delete = %v", dresp)
	}
	_, err = e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("a"), nodeObj("b"), nodeObj("c"), nodeObj("d")}})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("Apply over the limit = %v, want ResourceExhausted", err)
	}
}

func TestReportBindResult(t *testing.T) {
	ref := func(name string) *berthv1.PodRef {
		return &berthv1.PodRef{Namespace: "default", Name: name, Uid: "uid-" + name}
	}
	confirmed, failed := berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED, berthv1.BindOutcome_BIND_OUTCOME_FAILED
	tests := []struct {
		name      string
		req       func(rev uint64) *berthv1.ReportBindResultRequest
		want      codes.Code
		wantMsg   string
		wantPhase scheduler.PodPhase // of pod p afterwards
	}{
		{name: "uid missing", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "p"}, Node: "n1", Revision: rev, Outcome: confirmed}
		}, want: codes.InvalidArgument, wantMsg: "pod.uid: required", wantPhase: scheduler.PhaseBinding},
		{name: "node missing", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Revision: rev, Outcome: confirmed}
		}, want: codes.InvalidArgument, wantMsg: "node: required", wantPhase: scheduler.PhaseBinding},
		{name: "node not a name", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: strings.Repeat("N", 5000), Revision: rev, Outcome: confirmed}
		}, want: codes.InvalidArgument, wantMsg: "node: invalid value", wantPhase: scheduler.PhaseBinding},
		{name: "reason too long", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Revision: rev, Outcome: failed, Reason: strings.Repeat("r", 2<<20)}
		}, want: codes.InvalidArgument, wantMsg: "reason: must be at most 1024 bytes", wantPhase: scheduler.PhaseBinding},
		{name: "uid too long", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "p", Uid: strings.Repeat("u", 4097)}, Node: "n1", Revision: rev, Outcome: confirmed}
		}, want: codes.InvalidArgument, wantMsg: "pod.uid: must be at most 256 bytes", wantPhase: scheduler.PhaseBinding},
		{name: "revision missing", req: func(uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Outcome: confirmed}
		}, want: codes.InvalidArgument, wantMsg: "revision: required", wantPhase: scheduler.PhaseBinding},
		{name: "outcome missing", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Revision: rev}
		}, want: codes.InvalidArgument, wantMsg: "outcome: required", wantPhase: scheduler.PhaseBinding},
		{name: "unknown pod", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("ghost"), Node: "n1", Revision: rev, Outcome: confirmed}
		}, want: codes.NotFound, wantPhase: scheduler.PhaseBinding},
		{name: "uid of another pod", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "ghost", Uid: "uid-p"}, Node: "n1", Revision: rev, Outcome: confirmed}
		}, want: codes.NotFound, wantPhase: scheduler.PhaseBinding},
		{name: "another node", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n2", Revision: rev, Outcome: confirmed}
		}, want: codes.FailedPrecondition, wantPhase: scheduler.PhaseBinding},
		{name: "another revision", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Revision: rev + 1, Outcome: confirmed}
		}, want: codes.FailedPrecondition, wantMsg: "revision: ", wantPhase: scheduler.PhaseBinding},
		{name: "confirmed", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Revision: rev, Outcome: confirmed}
		}, want: codes.OK, wantPhase: scheduler.PhaseBound},
		{name: "failed", req: func(rev uint64) *berthv1.ReportBindResultRequest {
			return &berthv1.ReportBindResultRequest{Pod: ref("p"), Node: "n1", Revision: rev, Outcome: failed, Reason: "image pull"}
		}, want: codes.OK, wantPhase: scheduler.PhasePending},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, statesvc.Options{})
			ctx := t.Context()
			if _, err := e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n1"), nodeObj("n2"), podObj("p", withCPU(100))}}); err != nil {
				t.Fatal(err)
			}
			att, err := e.sched.ScheduleOne(ctx)
			if err != nil || att.Result != scheduler.ResultScheduled || att.Node != "n1" {
				t.Fatalf("ScheduleOne = %+v, %v", att, err)
			}
			rev, _ := e.sink.BindRevision("uid-p")
			_, err = e.client.ReportBindResult(ctx, tc.req(rev))
			if status.Code(err) != tc.want {
				t.Fatalf("ReportBindResult = %v, want %v", err, tc.want)
			}
			if err != nil && tc.wantMsg != "" && !strings.Contains(status.Convert(err).Message(), tc.wantMsg) {
				t.Errorf("message %q does not mention %q", status.Convert(err).Message(), tc.wantMsg)
			}
			ex, err := e.sched.View().ExplainUID("uid-p")
			if err != nil {
				t.Fatal(err)
			}
			if ex.Phase != tc.wantPhase {
				t.Errorf("phase = %s, want %s", ex.Phase, tc.wantPhase)
			}
			if tc.wantPhase == scheduler.PhaseBinding {
				return
			}
			// Reporting the same result again is harmless.
			if _, err := e.client.ReportBindResult(ctx, tc.req(rev)); err != nil {
				t.Errorf("reporting again: %v", err)
			}
		})
	}
}

func TestPodArrivingBoundConfirms(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	ctx := t.Context()
	_, send := e.sync(t)
	send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(nodeObj("n1"), podObj("p"))})
	if att, err := e.sched.ScheduleOne(ctx); err != nil || att.Node != "n1" {
		t.Fatalf("ScheduleOne = %+v, %v", att, err)
	}
	resp := send(&berthv1.SyncRequest{BatchId: 2, Mutations: upserts(podObj("p", withNode("n1")))})
	if resp.GetApplied() != 1 {
		t.Fatalf("%v", resp)
	}
	ex, err := e.sched.View().ExplainUID("uid-p")
	if err != nil || ex.Phase != scheduler.PhaseBound {
		t.Fatalf("after the bound pod arrived: %v %v", ex.Phase, err)
	}
	// The bind is settled: a FAILED report now is refused.
	rev, _ := e.sink.BindRevision("uid-p")
	_, err = e.client.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{
		Pod: &berthv1.PodRef{Namespace: "default", Name: "p", Uid: "uid-p"}, Node: "n1", Revision: rev, Outcome: berthv1.BindOutcome_BIND_OUTCOME_FAILED,
	})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("FAILED after confirmation = %v, want FailedPrecondition", err)
	}
}

// TestPodsResynced: the hook runs once a resync that re-listed pods ended,
// after the pods not re-sent were deleted; not for resyncs of other kinds.
func TestPodsResynced(t *testing.T) {
	tests := []struct {
		name  string
		kinds []berthv1.ObjectKind
		want  [][]string // pods held at each call
	}{
		{name: "every kind", want: [][]string{{"default/keep"}}},
		{name: "pods only", kinds: []berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_POD}, want: [][]string{{"default/keep"}}},
		{name: "nodes only", kinds: []berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_NODE}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls [][]string
			var e *env
			e = newEnv(t, statesvc.Options{PodsResynced: func(context.Context) { calls = append(calls, e.podKeys()) }})
			_, send := e.sync(t)
			send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(nodeObj("n1"), podObj("keep", withNode("n1")), podObj("gone", withNode("n1")))})
			send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: tc.kinds, Mutations: upserts(nodeObj("n1"), podObj("keep", withNode("n1")))})
			send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END})
			if diff := cmp.Diff(tc.want, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// Pod groups go through Sync like budgets: a change of spec is refused
// with the field named, a delete works, and a re-list of the kind deletes
// the groups not re-sent.
func TestPodGroups(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	_, send := e.sync(t)
	group := func(name string, min int32) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{Namespace: "default", Name: name, MinCount: min}}}
	}
	kindGroup := berthv1.ObjectKind_OBJECT_KIND_POD_GROUP
	resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(group("a", 2), group("b", 2), group("c", 1), group("a", 3), group("d", 0))})
	wantErrs := []*berthv1.ObjectError{
		{Index: 3, Ref: &berthv1.ObjectRef{Kind: kindGroup, Namespace: "default", Name: "a"}, Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION,
			FieldPath: "pod_group.min_count", Message: "pod group default/a: min_count is 2, cannot change to 3: a pod group's spec is immutable (delete the group and create it again)"},
		{Index: 4, Ref: &berthv1.ObjectRef{Kind: kindGroup, Namespace: "default", Name: "d"}, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT,
			FieldPath: "pod_group.min_count", Message: "must be between 1 and 150000, got 0"},
	}
	if diff := cmp.Diff(wantErrs, resp.GetErrors(), protocmp.Transform()); diff != "" || resp.GetApplied() != 3 {
		t.Errorf("upserts: applied %d, errors (-want +got):\n%s", resp.GetApplied(), diff)
	}
	resp = send(&berthv1.SyncRequest{BatchId: 2, Mutations: []*berthv1.Mutation{del(kindGroup, "default", "c")}})
	if resp.GetApplied() != 1 || len(resp.GetErrors()) != 0 {
		t.Errorf("delete: %v", resp)
	}
	send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{kindGroup}, Mutations: upserts(group("a", 2))})
	resp = send(&berthv1.SyncRequest{BatchId: 4, Resync: berthv1.Resync_RESYNC_END})
	if resp.GetResyncDeleted() != 1 {
		t.Errorf("resync: %v", resp)
	}
	var held []string
	for _, g := range e.sched.View().PodGroups() {
		held = append(held, g.Key())
	}
	if diff := cmp.Diff([]string{"default/a"}, held); diff != "" {
		t.Errorf("groups held (-want +got):\n%s", diff)
	}
}

// A full re-list covers DeviceTaintRules: one not re-sent is deleted, one
// re-sent stays.
func TestResyncDeviceTaintRules(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	rule := func(name string) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{
			Name: name, DeviceSelector: &berthv1.DeviceTaintSelector{},
			Taint: &berthv1.DeviceTaint{Key: "example.com/maintenance", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE},
		}}}
	}
	_, send := e.sync(t)
	if resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(rule("keep"), rule("drop"))}); resp.GetApplied() != 2 {
		t.Fatalf("upserts: %v", resp)
	}
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(rule("keep"))})
	if resp := send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END}); resp.GetResyncDeleted() != 1 {
		t.Errorf("end: %v, want the rule drop deleted", resp)
	}
	var names []string
	for _, r := range e.sched.View().DeviceTaintRules() {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"keep"}, names); diff != "" {
		t.Errorf("rules after the re-list (-want +got):\n%s", diff)
	}
}

// Without the CompositePodGroup gate (the default) a CompositePodGroup is
// refused with FAILED_PRECONDITION and a PodGroup's parent is dropped, as
// kube 1.37's API server does.
func TestCompositePodGroupsGateOff(t *testing.T) {
	e := newEnv(t, statesvc.Options{})
	_, send := e.sync(t)
	composite := &berthv1.Object{Kind: &berthv1.Object_CompositePodGroup{CompositePodGroup: &berthv1.CompositePodGroup{Namespace: "default", Name: "job", MinGroupCount: 1}}}
	child := &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{Namespace: "default", Name: "a", MinCount: 2, ParentCompositePodGroupName: "job"}}}
	resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(composite, child)})
	wantErrs := []*berthv1.ObjectError{
		{Index: 0, Ref: &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP, Namespace: "default", Name: "job"},
			Code:    berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION,
			Message: "composite pod group default/job: CompositePodGroup requires the CompositePodGroup feature gate (alpha, with TopologyAwareWorkloadScheduling): kube 1.37 serves the kind only with it"},
	}
	if diff := cmp.Diff(wantErrs, resp.GetErrors(), protocmp.Transform()); diff != "" || resp.GetApplied() != 1 {
		t.Errorf("upserts: applied %d, errors (-want +got):\n%s", resp.GetApplied(), diff)
	}
	groups := e.sched.View().PodGroups()
	if len(groups) != 1 || groups[0].Parent != "" {
		t.Errorf("groups held %+v, want default/a without its parent", groups)
	}
}
