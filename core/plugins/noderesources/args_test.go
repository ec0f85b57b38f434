package noderesources_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/noderesources"
)

func TestDecodeFitArgs(t *testing.T) {
	cpuMem := []noderesources.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
	tests := []struct {
		name       string
		raw        string
		want       *noderesources.FitArgs
		wantFields []string
	}{
		{name: "defaults", want: &noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: noderesources.LeastAllocated, Resources: cpuMem}}},
		{
			name: "weights default to 1",
			raw:  `{"kind":"NodeResourcesFitArgs","scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":3},{"name":"example.com/gpu"}]}}`,
			want: &noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: noderesources.MostAllocated,
				Resources: []noderesources.ResourceSpec{{Name: "cpu", Weight: 3}, {Name: "example.com/gpu", Weight: 1}}}},
		},
		{
			name: "strategy without resources gets cpu and memory",
			raw:  `{"ignoredResourceGroups":["example.com"],"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}}}`,
			want: &noderesources.FitArgs{IgnoredResourceGroups: []string{"example.com"}, ScoringStrategy: &noderesources.ScoringStrategy{
				Type: noderesources.RequestedToCapacityRatio, Resources: cpuMem,
				RequestedToCapacityRatio: &noderesources.RequestedToCapacityRatioParam{Shape: []noderesources.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}}}},
		},
		{name: "type is not defaulted", raw: `{"scoringStrategy":{}}`, wantFields: []string{"scoringStrategy.type"}},
		{name: "unknown type", raw: `{"scoringStrategy":{"type":"Random"}}`, wantFields: []string{"scoringStrategy.type"}},
		{name: "weight out of range", raw: `{"scoringStrategy":{"type":"LeastAllocated","resources":[{"name":"cpu","weight":101},{"name":"memory","weight":-1}]}}`,
			wantFields: []string{"scoringStrategy.resources[0].weight", "scoringStrategy.resources[1].weight"}},
		{name: "shape required", raw: `{"scoringStrategy":{"type":"RequestedToCapacityRatio"}}`, wantFields: []string{"scoringStrategy.requestedToCapacityRatio"}},
		{name: "empty shape", raw: `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{}}}`,
			wantFields: []string{"scoringStrategy.requestedToCapacityRatio.shape"}},
		{name: "shape out of order and range", raw: `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":50,"score":1},{"utilization":50,"score":11},{"utilization":101,"score":1}]}}}`,
			wantFields: []string{"scoringStrategy.requestedToCapacityRatio.shape[1].utilization", "scoringStrategy.requestedToCapacityRatio.shape[1].score", "scoringStrategy.requestedToCapacityRatio.shape[2].utilization"}},
		{name: "shape with another strategy", raw: `{"scoringStrategy":{"type":"LeastAllocated","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0}]}}}`,
			wantFields: []string{"scoringStrategy.requestedToCapacityRatio"}},
		{name: "bad ignored names", raw: `{"ignoredResources":["bad name"],"ignoredResourceGroups":["example.com/gpu"]}`,
			wantFields: []string{"ignoredResources[0]", "ignoredResourceGroups[0]"}},
		{name: "unknown field", raw: `{"scoringstrategy":{}}`, wantFields: []string{"scoringstrategy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := noderesources.DecodeFitArgs([]byte(tc.raw))
			if diff := cmp.Diff(tc.wantFields, errorFields(t, err)); diff != "" {
				t.Fatalf("error %v: fields (-want +got):\n%s", err, diff)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDecodeBalancedAllocationArgs(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       *noderesources.BalancedAllocationArgs
		wantFields []string
	}{
		{name: "defaults", want: &noderesources.BalancedAllocationArgs{Resources: []noderesources.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}},
		{name: "weight defaults to 1", raw: `{"resources":[{"name":"cpu"},{"name":"example.com/gpu","weight":1}]}`,
			want: &noderesources.BalancedAllocationArgs{Resources: []noderesources.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "example.com/gpu", Weight: 1}}}},
		{name: "weight must be 1", raw: `{"resources":[{"name":"cpu","weight":2}]}`, wantFields: []string{"resources[0].weight"}},
		{name: "duplicate", raw: `{"resources":[{"name":"cpu"},{"name":"cpu"}]}`, wantFields: []string{"resources[1].name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := noderesources.DecodeBalancedAllocationArgs([]byte(tc.raw))
			if diff := cmp.Diff(tc.wantFields, errorFields(t, err)); diff != "" {
				t.Fatalf("error %v: fields (-want +got):\n%s", err, diff)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// errorFields returns the fields named by the ArgsErrors joined in err.
func errorFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	var fields []string
	for _, e := range errs {
		var ae *helper.ArgsError
		if !errors.As(e, &ae) {
			t.Fatalf("%v is not an ArgsError", e)
		}
		fields = append(fields, ae.Field)
	}
	return fields
}
