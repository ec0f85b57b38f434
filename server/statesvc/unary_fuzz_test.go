package statesvc_test

import (
	"context"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/statesvc"
)

// newFuzzService is a service over a real scheduler holding nodes n1 and
// n2 and pod default/p (uid-p), bound to n1 by a Bind awaiting its outcome;
// it returns the Bind's revision.
func newFuzzService(t *testing.T, maxMutations int) (*statesvc.Service, *scheduler.Scheduler, uint64) {
	t.Helper()
	ctx := t.Context()
	sk := &sink{}
	sched := newScheduler(t, sk)
	svc := statesvc.New(sides{sched, sched.View()}, statesvc.Options{MaxMutations: maxMutations, BindReports: sk})
	resp, err := svc.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{nodeObj("n1"), nodeObj("n2"), podObj("p", withCPU(100))}})
	if err != nil || len(resp.GetErrors()) > 0 {
		t.Fatalf("Apply: %v %v", resp, err)
	}
	if att, err := sched.ScheduleOne(ctx); err != nil || att.Node != "n1" {
		t.Fatalf("ScheduleOne = %+v, %v", att, err)
	}
	rev, _ := sk.BindRevision("uid-p")
	return svc, sched, rev
}

// checkStatus fails unless err is nil or a status with one of codes; an
// INVALID_ARGUMENT must name its field in a google.rpc.BadRequest.
func checkStatus(t *testing.T, err error, allowed ...codes.Code) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a gRPC status", err, err)
	}
	if err == nil {
		return
	}
	found := false
	for _, c := range allowed {
		found = found || st.Code() == c
	}
	if !found {
		t.Fatalf("status %v, want one of %v", st, allowed)
	}
	if st.Code() != codes.InvalidArgument {
		return
	}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 && br.GetFieldViolations()[0].GetField() != "" {
			return
		}
	}
	t.Fatalf("INVALID_ARGUMENT without a field: %v", st)
}

// FuzzReportBindResult sends any report about the outstanding Bind of
// default/p to n1. It is accepted exactly when it names that pod, node and
// revision with a known outcome, and then settles the bind (CONFIRMED
// binds the pod, FAILED sends it back to pending); anything else is
// INVALID_ARGUMENT naming the field, NOT_FOUND or FAILED_PRECONDITION, and
// leaves the bind awaiting its outcome.
func FuzzReportBindResult(f *testing.F) {
	f.Add("default", "p", "uid-p", "n1", uint64(1), int32(1), "")
	f.Add("default", "p", "uid-p", "n1", uint64(1), int32(2), "image pull")
	f.Add("default", "p", "uid-p", "n2", uint64(1), int32(1), "")
	f.Add("default", "p", "uid-p", "n1", uint64(2), int32(1), "")
	f.Add("default", "ghost", "uid-p", "n1", uint64(1), int32(9), "")
	f.Add("", "", "", "", uint64(0), int32(0), "")
	f.Fuzz(func(t *testing.T, ns, name, uid, node string, revision uint64, outcome int32, reason string) {
		req := &berthv1.ReportBindResultRequest{
			Pod: &berthv1.PodRef{Namespace: ns, Name: name, Uid: uid}, Node: node, Revision: revision,
			Outcome: berthv1.BindOutcome(outcome), Reason: reason,
		}
		if _, err := proto.Marshal(req); err != nil {
			return // not valid UTF-8: never arrives
		}
		svc, sched, rev := newFuzzService(t, 0)
		_, err := svc.ReportBindResult(t.Context(), req)
		checkStatus(t, err, codes.InvalidArgument, codes.NotFound, codes.FailedPrecondition)
		valid := ns == "default" && name == "p" && uid == "uid-p" && node == "n1" && revision == rev &&
			(req.Outcome == berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED || req.Outcome == berthv1.BindOutcome_BIND_OUTCOME_FAILED)
		if (err == nil) != valid {
			t.Fatalf("ReportBindResult(%v) = %v; the bind is to n1 at revision %d", req, err, rev)
		}
		ex, exErr := sched.View().ExplainUID("uid-p")
		if exErr != nil {
			t.Fatal(exErr)
		}
		want := scheduler.PhaseBinding
		switch {
		case err == nil && req.Outcome == berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED:
			want = scheduler.PhaseBound
		case err == nil:
			want = scheduler.PhasePending
		}
		if ex.Phase != want {
			t.Fatalf("after %v (%v): phase %s, want %s", req, err, ex.Phase, want)
		}
	})
}

// FuzzApplyDelete sends any wire-decoded ApplyRequest or DeleteRequest.
// The call fails as a whole only with RESOURCE_EXHAUSTED (too many
// objects); otherwise every object is either applied or refused in its own
// error, in order, naming the object as ObjectRefOf reads it, with a code a
// caller can act on.
func FuzzApplyDelete(f *testing.F) {
	apply := func(objs ...*berthv1.Object) []byte {
		b, _ := proto.Marshal(&berthv1.ApplyRequest{Objects: objs})
		return b
	}
	f.Add(apply(nodeObj("n3"), podObj("q", withCPU(10)), podObj("p", withUID("uid-other")), classObj("high", 10)), false)
	f.Add(apply(podObj("bad", withCPU(-1)), &berthv1.Object{}, pdbObj("default", "b"), nsObj("team")), false)
	del, _ := proto.Marshal(&berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{
		{Kind: kindPod, Namespace: "default", Name: "p", Uid: "uid-x"}, {Kind: kindNode, Name: "n2"},
		{Kind: kindClass, Name: "system-node-critical"}, {Kind: 99}, {Kind: kindPod, Name: "p"},
	}})
	f.Add(del, true)
	okCodes := []berthv1.ErrorCode{berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION}
	f.Fuzz(func(t *testing.T, data []byte, isDelete bool) {
		ctx := context.Background()
		svc, _, _ := newFuzzService(t, 16)
		var n, applied int
		var errs []*berthv1.ObjectError
		var refOf func(i int) *berthv1.ObjectRef
		var err error
		if isDelete {
			req := new(berthv1.DeleteRequest)
			if proto.Unmarshal(data, req) != nil {
				return
			}
			var resp *berthv1.DeleteResponse
			resp, err = svc.Delete(ctx, req)
			n, applied, errs = len(req.GetRefs()), int(resp.GetDeleted()), resp.GetErrors()
			refOf = func(i int) *berthv1.ObjectRef { return req.GetRefs()[i] }
		} else {
			req := new(berthv1.ApplyRequest)
			if proto.Unmarshal(data, req) != nil {
				return
			}
			var resp *berthv1.ApplyResponse
			resp, err = svc.Apply(ctx, req)
			n, applied, errs = len(req.GetObjects()), int(resp.GetApplied()), resp.GetErrors()
			refOf = func(i int) *berthv1.ObjectRef { return convert.ObjectRefOf(req.GetObjects()[i]) }
		}
		if err != nil {
			checkStatus(t, err, codes.ResourceExhausted)
			if n <= 16 {
				t.Fatalf("%d objects refused as too many: %v", n, err)
			}
			return
		}
		if n > 16 || applied+len(errs) != n {
			t.Fatalf("%d objects: %d applied, %d errors", n, applied, len(errs))
		}
		for i, e := range errs {
			if int(e.GetIndex()) >= n || (i > 0 && e.GetIndex() <= errs[i-1].GetIndex()) {
				t.Fatalf("error indexes out of order or range: %v", errs)
			}
			if !proto.Equal(e.GetRef(), refOf(int(e.GetIndex()))) {
				t.Fatalf("error %d names %v, the object is %v", i, e.GetRef(), refOf(int(e.GetIndex())))
			}
			known := false
			for _, c := range okCodes {
				known = known || e.GetCode() == c
			}
			if !known || e.GetMessage() == "" {
				t.Fatalf("object %d refused with %v: %q", e.GetIndex(), e.GetCode(), e.GetMessage())
			}
		}
	})
}
