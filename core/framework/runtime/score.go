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
		plan := f.newScorePlan(skip, sig)
		plan.markUniform(state, pod)
		state.ScorePlan = plan
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
	if buf.TotalsOnly && plan.sig != 0 && plan.allLocal() && f.ResultsRemembered(state) {
		if out, ok := f.scoreRemembered(ctx, state, pod, nodes, plan, buf); ok {
			return out, nil
		}
		// A plugin failed or scored out of range: the general way below
		// reports it as kube does.
	}
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
		f.scoreNodes(ctx, state, pod, nodes, plan, carriedFor(buf, len(nodes)), raw, fail)
		if s := failed(); s != nil {
			return nil, s
		}
	}
	if !normalizeScores(ctx, state, pod, steps, raw, fail) {
		return nil, failed()
	}
	out, ok := weightScores(nodes, steps, raw, buf, fail)
	if !ok {
		return nil, failed()
	}
	return out, nil
}

// scoreFailure reports a plugin's failure to RunScorePluginsInto, which
// keeps the first one and stops the rest of the work.
type scoreFailure func(plugin, format string, a ...any)

// scoreNodes fills raw[p][n] with plugin p's score for node n, from the
// memo where the plugin is node-local and the pod's signature known. It
// scores in order on this goroutine when every plugin is node-local and
// results are remembered, else in parallel over the nodes; a failing
// plugin is reported to fail and stops scoring that node.
func (f *Framework) scoreNodes(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo, plan *scorePlan, carried []framework.CarriedScores, raw []framework.NodeScoreList, fail scoreFailure) {
	steps := plan.steps
	scoreNode := func(n int) {
		ni := nodes[n]
		var c *framework.CarriedScores
		if carried != nil && plan.sig != 0 && carried[n].Carries(&f.memo.owner, plan.sig) {
			c = &carried[n]
		}
		var name string
		if c != nil {
			name = c.Name
		} else {
			name = ni.Name()
		}
		var e *framework.MemoEntry
		for p, step := range steps {
			if step.uniform {
				raw[p][n] = framework.NodeScore{Name: name, Score: step.uniformScore}
				continue
			}
			if c != nil && step.local && c.Done&(1<<step.index) != 0 {
				raw[p][n] = framework.NodeScore{Name: name, Score: c.Scores[step.index]}
				continue
			}
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
			// Only node-local scores are remembered, and only they have a
			// slot: a later plugin past MemoScoreSlots is not local.
			if e != nil && step.local {
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
}

// normalizeScores runs each plugin's NormalizeScore over its raw scores.
// It reports false, having told fail, at the first failure.
func normalizeScores(ctx context.Context, state *framework.CycleState, pod *model.Pod, steps []scoreStep, raw []framework.NodeScoreList, fail scoreFailure) bool {
	for p, step := range steps {
		ext := step.pl.ScoreExtensions()
		if ext == nil {
			continue
		}
		if st := ext.NormalizeScore(ctx, state, pod, raw[p]); !st.IsSuccess() {
			fail(step.pl.Name(), "running Normalize on Score plugins: plugin %q failed with: %w", step.pl.Name(), st.AsError())
			return false
		}
	}
	return true
}

// weightScores checks every normalized score lies in [MinNodeScore,
// MaxNodeScore] and builds the result in buf: per node, each plugin's
// score times its weight (unless buf.TotalsOnly) and their sum. It
// reports false, having told fail, at the first score out of range.
func weightScores(nodes []*framework.NodeInfo, steps []scoreStep, raw []framework.NodeScoreList, buf *framework.ScoreBuffers, fail scoreFailure) ([]framework.NodePluginScores, bool) {
	out, backing := buf.Out(len(nodes), len(steps))
	for n := range nodes {
		lo, hi := n*len(steps), (n+1)*len(steps)
		ns := framework.NodePluginScores{Name: nodes[n].Name(), Scores: backing[lo:hi:hi]}
		if buf.TotalsOnly {
			ns.Scores = nil
		}
		for p, step := range steps {
			s := raw[p][n].Score
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				fail(step.pl.Name(), "applying score defaultWeights on Score plugins: plugin %q returns an invalid score %v, it should in the range of [%v, %v] after normalizing",
					step.pl.Name(), s, framework.MinNodeScore, framework.MaxNodeScore)
				return nil, false
			}
			if ns.Scores != nil {
				ns.Scores[p] = framework.PluginScore{Name: step.pl.Name(), Score: s * step.weight}
			}
			ns.TotalScore += s * step.weight
		}
		out[n] = ns
	}
	return out, true
}

// scoreRemembered is RunScorePluginsInto for totals only, when every
// plugin is node-local and the memo is warm: nodes are scored in order on
// this goroutine, mostly from the memo, and only the scores of plugins that
// normalize are kept per node; the others go straight into the totals.
// It reports false, having changed nothing but buf and the memo, when a
// plugin failed or a score was out of range.
func (f *Framework) scoreRemembered(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo, plan *scorePlan, buf *framework.ScoreBuffers) ([]framework.NodePluginScores, bool) {
	// What each node needs is decided once, not per node: which plugins
	// normalize (their raw scores are kept), and the weighted sum of the
	// uniform scores that need no normalizing (the same on every node).
	normalizing := 0
	var base int64
	perNode := make([]scoreStep, 0, len(plan.steps))
	for _, step := range plan.steps {
		switch {
		case step.normalizes:
			normalizing++
		case step.uniform:
			if s := step.uniformScore; s > framework.MaxNodeScore || s < framework.MinNodeScore {
				return nil, false
			}
			base += step.uniformScore * step.weight
			continue
		}
		perNode = append(perNode, step)
	}
	raw := buf.Raw(normalizing, len(nodes))
	out, _ := buf.Out(len(nodes), 0)
	carried := carriedFor(buf, len(nodes))
	for n, ni := range nodes {
		// From the filter pass's copy when there is one, so the node is
		// visited only for a score not remembered yet.
		var c *framework.CarriedScores
		var name string
		if carried != nil && carried[n].Carries(&f.memo.owner, plan.sig) {
			c = &carried[n]
			name = c.Name
		} else {
			name = ni.Name()
		}
		var e *framework.MemoEntry
		total := base
		k := 0
		for _, step := range perNode {
			var s int64
			switch {
			case step.uniform:
				s = step.uniformScore
			case c != nil && c.Done&(1<<step.index) != 0:
				s = c.Scores[step.index]
			default:
				if e == nil {
					e = ni.Memo(&f.memo.owner, plan.sig)
				}
				if e.ScoreDone&(1<<step.index) != 0 {
					s = e.Scores[step.index]
					break
				}
				var st *framework.Status
				if s, st = step.pl.Score(ctx, state, pod, ni); !st.IsSuccess() {
					return nil, false
				}
				e.Scores[step.index] = s
				e.ScoreDone |= 1 << step.index
			}
			if step.normalizes {
				raw[k][n] = framework.NodeScore{Name: name, Score: s}
				k++
				continue
			}
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				return nil, false
			}
			total += s * step.weight
		}
		out[n] = framework.NodePluginScores{Name: name, TotalScore: total}
	}
	k := 0
	for _, step := range plan.steps {
		if !step.normalizes {
			continue
		}
		if st := step.pl.ScoreExtensions().NormalizeScore(ctx, state, pod, raw[k]); !st.IsSuccess() {
			return nil, false
		}
		for n := range raw[k] {
			s := raw[k][n].Score
			if s > framework.MaxNodeScore || s < framework.MinNodeScore {
				return nil, false
			}
			out[n].TotalScore += s * step.weight
		}
		k++
	}
	return out, true
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
