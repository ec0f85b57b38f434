package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
)

// discard is a decision sink for a scheduler that never schedules.
type discard struct{}

func (discard) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// FuzzLoad reads any bytes as a KubeSchedulerConfiguration, as berthd's
// --scheduler-config does. Every problem reported is a *config.FieldError
// of one of the documented kinds; an accepted configuration validates,
// loads the same way twice, renders as JSON, and builds a scheduler with
// Berth's plugins (so berthd starts with it) unless a profile lacks its
// QueueSort or Bind plugin, which only building the profile tells.
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","percentageOfNodesToScore":101}`))
	f.Add([]byte("apiVersion: v1\nkind: Pod\n"))
	kinds := []error{config.ErrDecode, config.ErrUnknownPlugin, config.ErrNotImplemented, config.ErrInvalid, config.ErrDuplicate, config.ErrRequired}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Load(data)
		if err != nil {
			for _, e := range leaves(err) {
				var fe *config.FieldError
				if !errors.As(e, &fe) {
					t.Fatalf("error %v (%T) is not a *config.FieldError", e, e)
				}
				known := false
				for _, k := range kinds {
					known = known || errors.Is(fe, k)
				}
				if !known {
					t.Fatalf("error %v has an undocumented kind %v", fe, fe.Kind)
				}
			}
			return
		}
		if err := config.Validate(cfg); err != nil {
			t.Fatalf("Load accepted a configuration Validate refuses: %v", err)
		}
		again, err := config.Load(data)
		if err != nil {
			t.Fatalf("a second Load failed: %v", err)
		}
		first, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("an accepted configuration does not render: %v", err)
		}
		second, _ := json.Marshal(again)
		if diff := cmp.Diff(string(first), string(second)); diff != "" {
			t.Fatalf("Load is not deterministic (-first +second):\n%s", diff)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, err = scheduler.New(ctx, scheduler.Options{Config: cfg, Registry: registry.InTree(), Decisions: discard{}})
		// As in kube-scheduler, a profile left without its one QueueSort or
		// without a Bind plugin (all disabled) is found when its framework is
		// built, at berthd's start, with the profile named; nothing else may
		// be refused there (found by FuzzLoad: testdata/fuzz/FuzzLoad).
		if err != nil && !strings.Contains(err.Error(), "queue sort plugin required") && !strings.Contains(err.Error(), "bind plugin is needed") {
			t.Fatalf("Load accepted a configuration the scheduler refuses: %v", err)
		}
	})
}

// leaves flattens joined errors.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}
