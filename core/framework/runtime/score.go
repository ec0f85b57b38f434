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
func (f *Framework) RunScorePlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (_ []framework.NodePluginScores, status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointScore, start, status.Code()) }()

	plugins := make([]framework.ScorePlugin, 0, len(f.score))
	weights := make([]int64, 0, len(f.score))
	for i, pl := range f.score {
		if !skipped(state.SkipScorePlugins, pl.Name()) {
			plugins = append(plugins, pl)
			weights = append(weights, f.scoreWeights[i])
		}
	}
	// scores[p][n] is plugin p's score for node n.
	scores := make([]framework.NodeScoreList, len(plugins))
	for p := range plugins {
		scores[p] = make(framework.NodeScoreList, len(nodes))
	}
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

	if len(plugins) > 0 {
		f.parallelizer.Until(ctx, len(nodes), func(n int) {
			name := nodes[n].Name()
			for p, pl := range plugins {
				s, st := pl.Score(ctx, state, pod, nodes[n])
				if !st.IsSuccess() {
					fail(pl.Name(), "running Score plugins: plugin %q failed with: %w", pl.Name(), st.AsError())
					return
				}
				scores[p][n] = framework.NodeScore{Name: name, Score: s}
			}
		})
		if s := failed(); s != nil {
			return nil, s
		}
	}

	f.parallelizer.Until(ctx, len(plugins), func(p int) {
		ext := plugins[p].ScoreExtensions()
		if ext == nil {
			return
		}
		if st := ext.NormalizeScore(ctx, state, pod, scores[p]); !st.IsSuccess() {
			fail(plugins[p].Name(), "running Normalize on Score plugins: plugin %q failed with: %w", plugins[p].Name(), st.AsError())
		}
	})
	if s := failed(); s != nil {
		return nil, s
	}

	out := make([]framework.NodePluginScores, len(nodes))
	// One backing array for every node's per-plugin scores.
	backing := make([]framework.PluginScore, len(nodes)*len(plugins))
	f.parallelizer.Until(ctx, len(nodes), func(n int) {
		lo, hi := n*len(plugins), (n+1)*len(plugins)
		ns := framework.NodePluginScores{Name: nodes[n].Name(), Scores: backing[lo:hi:hi]}
		for p, pl := range plugins {
			s := scores[p][n].Score
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				fail(pl.Name(), "applying score defaultWeights on Score plugins: plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
					pl.Name(), s, framework.MinNodeScore, framework.MaxNodeScore)
				return
			}
			ns.Scores[p] = framework.PluginScore{Name: pl.Name(), Score: s * weights[p]}
			ns.TotalScore += s * weights[p]
		}
		out[n] = ns
	})
	if s := failed(); s != nil {
		return nil, s
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
