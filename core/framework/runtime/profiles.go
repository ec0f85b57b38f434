package runtime

import (
	"bytes"
	"context"
	"fmt"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
)

// Profiles maps a schedulerName to the framework serving it.
type Profiles map[string]*Framework

// NewProfiles builds the framework of every profile of cfg. All frameworks
// share one waiting-pods map and use cfg's parallelism; opts come after
// those defaults and may override them. As in kube, every profile must use
// the same queue sort plugin with the same args, since all share one
// queue.
func NewProfiles(ctx context.Context, registry Registry, cfg *config.Config, opts ...Option) (Profiles, error) {
	opts = append([]Option{WithWaitingPods(NewWaitingPods()), WithParallelism(int(cfg.Parallelism))}, opts...)
	out := make(Profiles, len(cfg.Profiles))
	var sortName string
	var sortArgs []byte
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		if p.SchedulerName == "" {
			return nil, fmt.Errorf("profiles[%d]: a scheduler name is needed", i)
		}
		if _, ok := out[p.SchedulerName]; ok {
			return nil, fmt.Errorf("duplicate profile with scheduler name %q", p.SchedulerName)
		}
		f, err := New(ctx, registry, *p, opts...)
		if err != nil {
			return nil, err
		}
		name := f.queueSort[0].Name()
		args := p.Args(name)
		switch {
		case i == 0:
			sortName, sortArgs = name, args
		case name != sortName:
			return nil, fmt.Errorf("different queue sort plugins for profile %q: %q, first: %q", p.SchedulerName, name, sortName)
		case !bytes.Equal(args, sortArgs):
			return nil, fmt.Errorf("different queue sort plugin args for profile %q", p.SchedulerName)
		}
		out[p.SchedulerName] = f
	}
	return out, nil
}

// QueueSortFunc returns the queue order shared by all profiles (NewProfiles
// checked they agree); nil when there is no profile.
func (ps Profiles) QueueSortFunc() framework.LessFunc {
	for _, f := range ps {
		return f.QueueSortFunc()
	}
	return nil
}
