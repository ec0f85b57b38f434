package helper_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		reverse bool
		in      []int64
		want    []int64
	}{
		{name: "scaled to the highest", in: []int64{0, 7, 20, 87}, want: []int64{0, 8, 22, 100}},
		{name: "reversed", reverse: true, in: []int64{0, 1, 2}, want: []int64{100, 50, 0}},
		{name: "all zero", in: []int64{0, 0}, want: []int64{0, 0}},
		{name: "all zero reversed", reverse: true, in: []int64{0, 0}, want: []int64{100, 100}},
		{name: "empty", in: nil, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scores := make(framework.NodeScoreList, len(tc.in))
			for i, s := range tc.in {
				scores[i].Score = s
			}
			helper.DefaultNormalizeScore(framework.MaxNodeScore, tc.reverse, scores)
			var got []int64
			for _, s := range scores {
				got = append(got, s.Score)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	type args struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	tests := []struct {
		name      string
		raw       string
		want      args
		wantField string // "" with wantErr: the error names no field
		wantErr   string
	}{
		{name: "nil keeps defaults", raw: "", want: args{Name: "default"}},
		{name: "null keeps defaults", raw: " null ", want: args{Name: "default"}},
		{name: "fields", raw: `{"name":"x","count":2}`, want: args{Name: "x", Count: 2}},
		{name: "unknown field", raw: `{"name":"x","colour":"red"}`, wantField: "colour", wantErr: `unknown field "colour"`},
		{name: "case matters", raw: `{"Name":"x"}`, wantField: "Name", wantErr: `unknown field "Name"`},
		{name: "duplicate field", raw: `{"name":"x","name":"y"}`, wantField: "name", wantErr: `duplicate field "name"`},
		{name: "wrong type", raw: `{"count":"two"}`, wantErr: "cannot unmarshal string"},
		{name: "not json", raw: `{`, wantErr: "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := args{Name: "default"}
			err := helper.DecodeArgs("Demo", json.RawMessage(tc.raw), &got)
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
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an ArgsError", err)
			}
			if ae.Plugin != "Demo" || ae.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %q (plugin %q, field %q), want field %q and %q", err, ae.Plugin, ae.Field, tc.wantField, tc.wantErr)
			}
		})
	}
}

func TestResourceNames(t *testing.T) {
	tests := []struct {
		name             string
		extended, scalar bool
	}{
		{name: "cpu"},
		{name: "memory"},
		{name: "pods"},
		{name: "ephemeral-storage"},
		{name: "foo"},
		{name: "example.com/gpu", extended: true, scalar: true},
		{name: "nvidia.com/gpu", extended: true, scalar: true},
		{name: "hugepages-2Mi", scalar: true},
		{name: "attachable-volumes-csi-x", scalar: true},
		{name: "kubernetes.io/something", scalar: true},
		{name: "requests.example.com/gpu"},
		{name: "example.com/bad name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := helper.IsExtendedResourceName(tc.name); got != tc.extended {
				t.Errorf("IsExtendedResourceName = %v, want %v", got, tc.extended)
			}
			if got := helper.IsScalarResourceName(tc.name); got != tc.scalar {
				t.Errorf("IsScalarResourceName = %v, want %v", got, tc.scalar)
			}
		})
	}
}

func TestAs(t *testing.T) {
	n := &model.Node{Name: "n"}
	tests := []struct {
		name             string
		oldObj, newObj   any
		wantOld, wantNew *model.Node
		wantErr          bool
	}{
		{name: "add", newObj: n, wantNew: n},
		{name: "delete", oldObj: n, wantOld: n},
		{name: "update", oldObj: n, newObj: n, wantOld: n, wantNew: n},
		{name: "wrong type", oldObj: &model.Pod{}, newObj: n, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gotOld, gotNew, err := helper.As[*model.Node](tc.oldObj, tc.newObj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && (gotOld != tc.wantOld || gotNew != tc.wantNew) {
				t.Errorf("As = %v, %v; want %v, %v", gotOld, gotNew, tc.wantOld, tc.wantNew)
			}
		})
	}
}
