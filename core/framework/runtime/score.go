package runtime

import (
	"context"
	"fmt"
	"sync"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunPreScorePlugins runs the PreScore plugins with the feasible nodes.
// Skip excludes the plugin's Score for this pod (state.SkipScorePlugins);
// any other status than Success or Skip stops and becomes an Error.
func (f *Framework) RunPreScorePlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (status *framework.Status) {
	start := f.now()
	var skip map[string]struct{} // nil until a plugin skips
	defer func() {
		state.SkipScorePlugins = skip
		var sig uint64
		if fp, ok := state.FilterPlan.(*filterPlan); ok {
			sig = fp.sig
		}
		state.ScorePlan = f.newScorePlan(skip, sig)
		f.observePoint(PointPreScore, start, status.Code())
	}()
	for _, pl := range f.preScore {
		pstart := f.now()
		s := pl.PreScore(ctx, state, pod, nodes)
		f.observePlugin(PointPreScore, pl.Name(), pstart, s.Code())
		switch {
		case s.IsSkip():
			if skip == nil {
				skip = make(map[string]struct{})
			}
			skip[pl.Name()] = struct{}{}
		case !s.IsSuccess():
			return framework.AsStatus(fmt.Errorf("running PreScore plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunScorePlugins scores the nodes with every Score plugin not skipped by
// its PreScore, in parallel over nodes; then each plugin normalizes its
// scores (NormalizeScore); then every score must lie in
// [MinNodeScore, MaxNodeScore] and is multiplied by the plugin's weight.
// The result has one entry per node, in the order of nodes, with the
// weighted score of each plugin (in plugin order) and their sum. A failure
// anywhere is an Error naming the plugin.
func (f *Framework) RunScorePlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) ([]framework.NodePluginScores, *framework.Status) {
	return f.RunScorePluginsInto(ctx, state, pod, nodes, nil)
}

// RunScorePluginsInto is RunScorePlugins working in buf (nil: fresh
// memory): a caller scoring one pod at a time reuses buf across calls, and
// the result lives in buf until its next use. Node-local plugins' raw
// scores are remembered per node version and pod signature (plan.go); when
// every plugin is node-local and the signature is known, the nodes are
// scored in order on the calling goroutine.
func (f *Framework) RunScorePluginsInto(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo, buf *framework.ScoreBuffers) (_ []framework.NodePluginScores, status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointScore, start, status.Code()) }()
	if buf == nil {
		buf = &framework.ScoreBuffers{}
	}
	plan := f.scorePlanOf(state)
	steps := plan.steps
	// raw[p][n] is plugin p's score for node n.
	raw := buf.Raw(len(steps), len(nodes))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first firstError
	fail := func(plugin, format string, a ...any) {
		first.set(plugin, fmt.Errorf(format, a...), cancel)
	}
	// failed reports the first failure, or the caller's cancellation
	// (which stops the parallel work early).
	failed := func() *framework.Status {
		if s := first.status(); s != nil {
			return s
		}
		if err := ctx.Err(); err != nil {
			return framework.AsStatus(fmt.Errorf("running Score plugins: %w", err))
		}
		return nil
	}

	if len(steps) > 0 {
		scoreNode := func(n int) {
			ni := nodes[n]
			name := ni.Name()
			var e *framework.MemoEntry
			for p, step := range steps {
				if step.local && plan.sig != 0 {
					if e == nil {
						e = ni.Memo(&f.memo.owner, plan.sig)
					}
					if e.ScoreDone&(1<<step.index) != 0 {
						raw[p][n] = framework.NodeScore{Name: name, Score: e.Scores[step.index]}
						continue
					}
				}
				s, st := step.pl.Score(ctx, state, pod, ni)
				if !st.IsSuccess() {
					fail(step.pl.Name(), "running Score plugins: plugin %q failed with: %w", step.pl.Name(), st.AsError())
					return
				}
				raw[p][n] = framework.NodeScore{Name: name, Score: s}
				if e != nil {
					e.Scores[step.index] = s
					e.ScoreDone |= 1 << step.index
				}
			}
		}
		if plan.allLocal() && f.ResultsRemembered(state) {
			for n := range nodes {
				scoreNode(n)
			}
		} else {
			f.parallelizer.Until(ctx, len(nodes), scoreNode)
		}
		if s := failed(); s != nil {
			return nil, s
		}
	}

	for p, step := range steps {
		ext := step.pl.ScoreExtensions()
		if ext == nil {
			continue
		}
		if st := ext.NormalizeScore(ctx, state, pod, raw[p]); !st.IsSuccess() {
			fail(step.pl.Name(), "running Normalize on Score plugins: plugin %q failed with: %w", step.pl.Name(), st.AsError())
			return nil, failed()
		}
	}

	out, backing := buf.Out(len(nodes), len(steps))
	for n := range nodes {
		lo, hi := n*len(steps), (n+1)*len(steps)
		ns := framework.NodePluginScores{Name: nodes[n].Name(), Scores: backing[lo:hi:hi]}
		for p, step := range steps {
			s := raw[p][n].Score
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				fail(step.pl.Name(), "applying score defaultWeights on Score plugins: plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
					step.pl.Name(), s, framework.MinNodeScore, framework.MaxNodeScore)
				return nil, failed()
			}
			ns.Scores[p] = framework.PluginScore{Name: step.pl.Name(), Score: s * step.weight}
			ns.TotalScore += s * step.weight
		}
		out[n] = ns
	}
	return out, nil
}

// firstError keeps the first error reported by parallel work, with the
// plugin at fault, and cancels the rest of the work.
type firstError struct {
	mu     sync.Mutex
	err    error
	plugin string
}

func (e *firstError) set(plugin string, err error, cancel context.CancelFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err, e.plugin = err, plugin
		cancel()
	}
}

// status returns the error as an Error status naming the plugin, nil if
// there was none.
func (e *firstError) status() *framework.Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		return nil
	}
	return framework.AsStatus(e.err).WithPlugin(e.plugin)
}
