package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
)

func TestReserveUnreserve(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []*framework.Status
		want      *framework.Status
		wantCalls []string
	}{
		{
			name:      "all reserve, unreserve in reverse order",
			statuses:  []*framework.Status{nil, nil, nil},
			wantCalls: []string{"Reserve/R0", "Reserve/R1", "Reserve/R2", "Unreserve/R2", "Unreserve/R1", "Unreserve/R0"},
		},
		{
			name:      "a rejection stops and names the plugin",
			statuses:  []*framework.Status{nil, framework.NewStatus(framework.Unschedulable, "taken"), nil},
			want:      status(framework.Unschedulable, "R1", "taken"),
			wantCalls: []string{"Reserve/R0", "Reserve/R1", "Unreserve/R2", "Unreserve/R1", "Unreserve/R0"},
		},
		{
			name:      "an error is wrapped",
			statuses:  []*framework.Status{framework.AsStatus(errors.New("boom"))},
			want:      framework.NewStatus(framework.Error, `running Reserve plugin "R0": boom`),
			wantCalls: []string{"Reserve/R0", "Unreserve/R0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var names []string
			for i, s := range tc.statuses {
				name := fmt.Sprintf("R%d", i)
				tp.add(name, reservePermitKind).reserve = func() *framework.Status { return s }
				names = append(names, name)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.Reserve: plugins(names...)}))
			ctx, state, pod := context.Background(), framework.NewCycleState(), podNamed("p")
			if d := statusDiff(tc.want, f.RunReservePluginsReserve(ctx, state, pod, "n1")); d != "" {
				t.Error(d)
			}
			f.RunReservePluginsUnreserve(ctx, state, pod, "n1")
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBindingPoints(t *testing.T) {
	skip := framework.NewStatus(framework.Skip)
	tests := []struct {
		name        string
		preBind     []*framework.Status
		bind        []*framework.Status
		wantPreBind *framework.Status
		wantBind    *framework.Status
		wantCalls   []string
	}{
		{
			name:      "first binder that does not skip binds",
			preBind:   []*framework.Status{nil, nil},
			bind:      []*framework.Status{skip, nil, nil},
			wantCalls: []string{"PreBind/B0", "PreBind/B1", "Bind/B0", "Bind/B1", "PostBind/B0", "PostBind/B1", "PostBind/B2"},
		},
		{
			name:      "every binder skips",
			bind:      []*framework.Status{skip, skip},
			wantBind:  framework.NewStatus(framework.Skip),
			wantCalls: []string{"Bind/B0", "Bind/B1", "PostBind/B0", "PostBind/B1"},
		},
		{
			name:        "prebind rejection names the plugin",
			preBind:     []*framework.Status{framework.NewStatus(framework.Unschedulable, "not yet"), nil},
			bind:        []*framework.Status{nil},
			wantPreBind: status(framework.Unschedulable, "B0", "not yet"),
			wantCalls:   []string{"PreBind/B0", "Bind/B0", "PostBind/B0", "PostBind/B1"},
		},
		{
			name:        "prebind error is wrapped",
			preBind:     []*framework.Status{framework.AsStatus(errors.New("boom"))},
			bind:        []*framework.Status{nil},
			wantPreBind: framework.NewStatus(framework.Error, `running PreBind plugin "B0": boom`),
			wantCalls:   []string{"PreBind/B0", "Bind/B0", "PostBind/B0"},
		},
		{
			name:      "bind error is wrapped",
			bind:      []*framework.Status{framework.AsStatus(errors.New("sink down")), nil},
			wantBind:  framework.NewStatus(framework.Error, `running Bind plugin "B0": sink down`),
			wantCalls: []string{"Bind/B0", "PostBind/B0", "PostBind/B1"},
		},
		{
			name:      "bind rejection names the plugin",
			bind:      []*framework.Status{framework.NewStatus(framework.Unschedulable, "gone")},
			wantBind:  status(framework.Unschedulable, "B0", "gone"),
			wantCalls: []string{"Bind/B0", "PostBind/B0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.add("Sort", sortKind)
			n := max(len(tc.preBind), len(tc.bind))
			var names []string
			for i := 0; i < n; i++ {
				name := fmt.Sprintf("B%d", i)
				fk := tp.add(name, allKind)
				if i < len(tc.preBind) {
					s := tc.preBind[i]
					fk.preBind = func() *framework.Status { return s }
				}
				if i < len(tc.bind) {
					s := tc.bind[i]
					fk.bind = func() *framework.Status { return s }
				}
				names = append(names, name)
			}
			p := profile(map[config.ExtensionPoint][]config.Plugin{
				config.PreBind:  plugins(names[:len(tc.preBind)]...),
				config.PostBind: plugins(names...),
			})
			p.Plugins.Bind.Enabled = plugins(names[:len(tc.bind)]...)
			f := mustNew(t, tp, p)
			ctx, state, pod := context.Background(), framework.NewCycleState(), podNamed("p")
			if d := statusDiff(tc.wantPreBind, f.RunPreBindPlugins(ctx, state, pod, "n1")); d != "" {
				t.Errorf("PreBind: %s", d)
			}
			if d := statusDiff(tc.wantBind, f.RunBindPlugins(ctx, state, pod, "n1")); d != "" {
				t.Errorf("Bind: %s", d)
			}
			f.RunPostBindPlugins(ctx, state, pod, "n1")
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
