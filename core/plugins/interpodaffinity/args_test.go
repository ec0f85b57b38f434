package interpodaffinity_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
)

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		want      interpodaffinity.Args
		wantField string
		wantErr   string
	}{
		{name: "nil gives defaults", want: interpodaffinity.Args{HardPodAffinityWeight: 1}},
		{name: "typed document", raw: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"InterPodAffinityArgs"}`, want: interpodaffinity.Args{HardPodAffinityWeight: 1}},
		{name: "values", raw: `{"hardPodAffinityWeight":0,"ignorePreferredTermsOfExistingPods":true}`,
			want: interpodaffinity.Args{HardPodAffinityWeight: 0, IgnorePreferredTermsOfExistingPods: true}},
		{name: "largest weight", raw: `{"hardPodAffinityWeight":100}`, want: interpodaffinity.Args{HardPodAffinityWeight: 100}},
		{name: "weight too large", raw: `{"hardPodAffinityWeight":101}`, wantField: "hardPodAffinityWeight", wantErr: "not in valid range [0, 100]"},
		{name: "negative weight", raw: `{"hardPodAffinityWeight":-1}`, wantField: "hardPodAffinityWeight", wantErr: "not in valid range [0, 100]"},
		{name: "unknown field", raw: `{"hardPodAffinityWieght":3}`, wantField: "hardPodAffinityWieght", wantErr: "unknown field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := interpodaffinity.DecodeArgs([]byte(tc.raw))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("DecodeArgs: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
				return
			}
			var ae *helper.ArgsError
			if !errors.As(err, &ae) || ae.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want an ArgsError on %q containing %q", err, tc.wantField, tc.wantErr)
			}
		})
	}
}

func TestNewNeedsHandle(t *testing.T) {
	if _, err := interpodaffinity.New(t.Context(), nil, nil); err == nil {
		t.Error("New with a nil handle succeeded")
	}
}
