package statesvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/statesvc"
)

func defaultClass(name string, value int32) *berthv1.Object {
	o := classObj(name, value)
	o.GetPriorityClass().GlobalDefault = true
	return o
}

// TestRequestRefusesWhatKubeNeverHolds: within one Apply or Sync batch, a
// second pod of one uid under another name and a second global default
// class are refused (the first applied), as the Kubernetes API server
// never holds both; before, both were applied.
func TestRequestRefusesWhatKubeNeverHolds(t *testing.T) {
	type refusal struct {
		Index int
		Field string
	}
	tests := []struct {
		name    string
		objects []*berthv1.Object
		want    []refusal
	}{
		{name: "two pods of one uid", objects: []*berthv1.Object{podObj("a", withUID("u")), podObj("b", withUID("u"))},
			want: []refusal{{1, "pod.uid"}}},
		{name: "one pod sent twice", objects: []*berthv1.Object{podObj("a", withUID("u")), podObj("a", withUID("u"))}},
		{name: "two global defaults", objects: []*berthv1.Object{defaultClass("d1", 10), classObj("c", 5), defaultClass("d2", 20)},
			want: []refusal{{2, "priority_class.global_default"}}},
		{name: "one default sent twice", objects: []*berthv1.Object{defaultClass("d1", 10), defaultClass("d1", 11)}},
	}
	for _, tc := range tests {
		for _, via := range []string{"Apply", "Sync"} {
			t.Run(tc.name+" via "+via, func(t *testing.T) {
				e := newEnv(t, statesvc.Options{})
				var errs []*berthv1.ObjectError
				var applied uint32
				if via == "Apply" {
					resp, err := e.client.Apply(t.Context(), &berthv1.ApplyRequest{Objects: tc.objects})
					if err != nil {
						t.Fatal(err)
					}
					errs, applied = resp.GetErrors(), resp.GetApplied()
				} else {
					_, send := e.sync(t)
					resp := send(&berthv1.SyncRequest{Mutations: upserts(tc.objects...)})
					errs, applied = resp.GetErrors(), resp.GetApplied()
				}
				var got []refusal
				for _, oe := range errs {
					if oe.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT {
						t.Errorf("object %d: %v, want INVALID_ARGUMENT", oe.GetIndex(), oe)
					}
					got = append(got, refusal{int(oe.GetIndex()), oe.GetFieldPath()})
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("refusals (-want +got):\n%s", diff)
				}
				if int(applied) != len(tc.objects)-len(tc.want) {
					t.Errorf("applied %d of %d", applied, len(tc.objects))
				}
			})
		}
	}
}
