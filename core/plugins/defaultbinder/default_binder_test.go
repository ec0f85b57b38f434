package defaultbinder_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/defaultbinder"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

// sink records binds and fails them with err.
type sink struct {
	binds []string
	err   error
}

func (f *sink) Bind(_ context.Context, pod *model.Pod, nodeName string) error {
	f.binds = append(f.binds, pod.Key()+"->"+nodeName)
	return f.err
}

func TestBind(t *testing.T) {
	errDown := errors.New("log unavailable")
	tests := []struct {
		name     string
		err      error
		wantCode framework.Code
	}{
		{name: "bound", wantCode: framework.Success},
		{name: "sink fails", err: errDown, wantCode: framework.Error},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &sink{err: tc.err}
			pl := plugintest.New[framework.BindPlugin](t, defaultbinder.New, "", &plugintest.Handle{Sink: s})
			st := pl.Bind(context.Background(), framework.NewCycleState(), mt.MakePod("web").Obj(), "n1")
			if st.Code() != tc.wantCode {
				t.Fatalf("Bind = %v, want code %v", st, tc.wantCode)
			}
			if tc.err != nil && !errors.Is(st.AsError(), tc.err) {
				t.Errorf("Bind error %v does not wrap %v", st.AsError(), tc.err)
			}
			if diff := cmp.Diff([]string{"default/web->n1"}, s.binds); diff != "" {
				t.Errorf("binds (-want +got):\n%s", diff)
			}
		})
	}
}

// Submit hands each decision of the plan to the fake's method for it.
func (f *sink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Bind:
			err = f.Bind(ctx, it.Pod, it.Node)
		}
		if err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}
