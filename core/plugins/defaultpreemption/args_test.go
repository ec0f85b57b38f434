package defaultpreemption_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/plugins/defaultpreemption"
	"github.com/berthsched/berth/core/plugins/helper"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		pct, abs   int32
		wantFields []string // fields named by the errors; nil means valid
	}{
		{name: "nil gives kube's defaults", raw: "", pct: 10, abs: 100},
		{name: "null gives the defaults", raw: "null", pct: 10, abs: 100},
		{name: "with TypeMeta", raw: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DefaultPreemptionArgs","minCandidateNodesPercentage":50}`, pct: 50, abs: 100},
		{name: "both set", raw: `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":5}`, pct: 0, abs: 5},
		{name: "percentage above 100", raw: `{"minCandidateNodesPercentage":101}`, wantFields: []string{"minCandidateNodesPercentage"}},
		{name: "negative percentage", raw: `{"minCandidateNodesPercentage":-1}`, wantFields: []string{"minCandidateNodesPercentage"}},
		{name: "negative absolute", raw: `{"minCandidateNodesAbsolute":-1}`, wantFields: []string{"minCandidateNodesAbsolute"}},
		{name: "both zero", raw: `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0}`,
			wantFields: []string{"minCandidateNodesPercentage", "minCandidateNodesAbsolute"}},
		{name: "unknown field", raw: `{"minCandidateNodes":3}`, wantFields: []string{"minCandidateNodes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, err := defaultpreemption.DecodeArgs(json.RawMessage(tc.raw))
			if tc.wantFields != nil {
				if diff := cmp.Diff(tc.wantFields, errorFields(t, err)); diff != "" {
					t.Errorf("error fields (-want +got):\n%s\nerror: %v", diff, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [2]int32{*args.MinCandidateNodesPercentage, *args.MinCandidateNodesAbsolute}
			if want := [2]int32{tc.pct, tc.abs}; got != want {
				t.Errorf("args %v, want %v", got, want)
			}
		})
	}
}

// errorFields returns the fields named by the ArgsErrors joined in err.
func errorFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []string
	for _, e := range errs {
		var ae *helper.ArgsError
		if !errors.As(e, &ae) {
			t.Fatalf("%v is not an ArgsError", e)
		}
		out = append(out, ae.Field)
	}
	return out
}
