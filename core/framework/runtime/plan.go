package runtime

import (
	"sync"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Plans and the result memo.
//
// RunPreFilterPlugins turns the pod's Skip set into a filterPlan (the
// Filter plugins to run, in order) and RunPreScorePlugins into a scorePlan,
// so the per-node work looks no name up in a map. When some of the plugins
// to run are node-local (framework.SignPlugin), the plan also carries the
// pod's signature number: the node-local verdicts and raw scores are then
// remembered on each NodeInfo (NodeInfo.Memo) and reused by later pods with
// the same signature while the node is unchanged. Other plugins always run.
// Reuse returns exactly what running the plugins would, because a
// node-local plugin's results depend only on the signed pod fields and on
// the node's NodeInfo, whose Generation changes with any change to it.

// filterPlan is what RunFilterPlugins runs for one pod.
type filterPlan struct {
	fw    *Framework
	steps []filterStep
	// sig numbers the pod's signature; 0: nothing is remembered.
	sig uint64
	// warm: the signature was seen in an earlier cycle, so the memo likely
	// holds most nodes' verdicts.
	warm bool
	// allLocal: every step is node-local (see LocalMemo).
	allLocal bool
}

type filterStep struct {
	index int // in Framework.filter
	pl    framework.FilterPlugin
	local bool
}

// scorePlan is what RunScorePlugins runs for one pod.
type scorePlan struct {
	fw    *Framework
	steps []scoreStep
	sig   uint64
}

type scoreStep struct {
	index  int // in Framework.score
	pl     framework.ScorePlugin
	weight int64
	local  bool
	// normalizes: the plugin has ScoreExtensions.
	normalizes bool
	// uniform: the plugin said every node gets uniformScore for this pod
	// (framework.UniformScorer), so Score is not called per node.
	uniform      bool
	uniformScore int64
}

// memo numbers signatures for one Framework. Numbers are never reused, so a
// node's entry for a forgotten signature can never be mistaken for a new
// one's.
type memo struct {
	owner framework.MemoOwner

	mu   sync.Mutex
	sigs map[string]uint64
	last uint64
	buf  framework.Signature

	// signers are the node-local plugins at Filter or Score, each once, in
	// a fixed order; localFilter and localScore flag them by index.
	signers     []framework.SignPlugin
	localFilter []bool
	localScore  []bool
}

// maxSignatures bounds the table; past it, the table starts over (new
// numbers only), so a stream of all-different pods cannot grow it without
// end.
const maxSignatures = 1 << 14

// newMemo finds the node-local plugins among filters and scores; with
// enabled false, none is treated as such and nothing is remembered.
func newMemo(filters []framework.FilterPlugin, scores []framework.ScorePlugin, enabled bool) *memo {
	m := &memo{
		sigs:        make(map[string]uint64),
		localFilter: make([]bool, len(filters)),
		localScore:  make([]bool, len(scores)),
	}
	seen := make(map[string]bool)
	add := func(p framework.Plugin) bool {
		sp, ok := p.(framework.SignPlugin)
		if !ok || !enabled {
			return false
		}
		if !seen[p.Name()] {
			seen[p.Name()] = true
			m.signers = append(m.signers, sp)
		}
		return true
	}
	for i, pl := range filters {
		m.localFilter[i] = add(pl)
	}
	for i, pl := range scores {
		m.localScore[i] = i < framework.MemoScoreSlots && add(pl)
	}
	return m
}

// sign returns the number of the pod's signature under the given filter
// Skip set, and whether it was known before. 0 means the profile has no
// node-local plugin.
func (m *memo) sign(pod *model.Pod, skipFilter map[string]struct{}) (uint64, bool) {
	if len(m.signers) == 0 {
		return 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buf.Reset()
	for _, sp := range m.signers {
		_, skip := skipFilter[sp.Name()]
		m.buf.Tag(sp.Name())
		m.buf.Bool(skip)
		sp.SignPod(pod, &m.buf)
	}
	if n, ok := m.sigs[string(m.buf.Bytes())]; ok {
		return n, true
	}
	if len(m.sigs) >= maxSignatures {
		clear(m.sigs)
	}
	m.last++
	m.sigs[string(m.buf.Bytes())] = m.last
	return m.last, false
}

// newFilterPlan is the plan for a pod whose PreFilter skipped skip.
func (f *Framework) newFilterPlan(pod *model.Pod, skip map[string]struct{}) *filterPlan {
	p := &filterPlan{fw: f, steps: make([]filterStep, 0, len(f.filter))}
	anyLocal := false
	p.allLocal = true
	for i, pl := range f.filter {
		if skipped(skip, pl.Name()) {
			continue
		}
		local := f.memo.localFilter[i]
		anyLocal = anyLocal || local
		p.allLocal = p.allLocal && local
		p.steps = append(p.steps, filterStep{index: i, pl: pl, local: local})
	}
	anyLocal = anyLocal || hasLocal(f.memo.localScore)
	if anyLocal && pod != nil {
		p.sig, p.warm = f.memo.sign(pod, skip)
	}
	return p
}

func hasLocal(flags []bool) bool {
	for _, l := range flags {
		if l {
			return true
		}
	}
	return false
}

// filterPlanOf returns the state's plan, or one built from its Skip set
// for callers that filled the state by hand (without memo).
func (f *Framework) filterPlanOf(state *framework.CycleState) *filterPlan {
	// A state serves one profile, but tests share states between
	// frameworks.
	if p, ok := state.FilterPlan.(*filterPlan); ok && p.fw == f {
		return p
	}
	return f.newFilterPlan(nil, state.SkipFilterPlugins)
}

// newScorePlan is the plan for a pod whose PreScore skipped skip; sig is
// the filter plan's signature.
func (f *Framework) newScorePlan(skip map[string]struct{}, sig uint64) *scorePlan {
	p := &scorePlan{fw: f, steps: make([]scoreStep, 0, len(f.score)), sig: sig}
	for i, pl := range f.score {
		if skipped(skip, pl.Name()) {
			continue
		}
		p.steps = append(p.steps, scoreStep{index: i, pl: pl, weight: f.scoreWeights[i], local: f.memo.localScore[i],
			normalizes: pl.ScoreExtensions() != nil})
	}
	return p
}

// markUniform asks the plan's UniformScorers whether every node gets the
// same score for the pod. Only with the result memo on: turning the memo
// off (the switch the differential tests flip) scores every node.
func (p *scorePlan) markUniform(state *framework.CycleState, pod *model.Pod) {
	if p.fw.noResultMemo || pod == nil {
		return
	}
	for i := range p.steps {
		step := &p.steps[i]
		if u, ok := step.pl.(framework.UniformScorer); ok {
			step.uniformScore, step.uniform = u.UniformScore(state, pod)
		}
	}
}

func (f *Framework) scorePlanOf(state *framework.CycleState) *scorePlan {
	if p, ok := state.ScorePlan.(*scorePlan); ok && p.fw == f {
		return p
	}
	return f.newScorePlan(state.SkipScorePlugins, 0)
}

// LocalMemo implements framework.Handle: nodeInfo's memo entry for the
// state's pod when its filter plan is all node-local and signed.
func (f *Framework) LocalMemo(state *framework.CycleState, nodeInfo *framework.NodeInfo) *framework.MemoEntry {
	if f.noPreemptionMemo || state == nil {
		return nil
	}
	p, ok := state.FilterPlan.(*filterPlan)
	if !ok || p.fw != f || p.sig == 0 || !p.allLocal {
		return nil
	}
	return nodeInfo.Memo(&f.memo.owner, p.sig)
}

// ResultsRemembered reports whether the node-local results of earlier pods
// signed like this one are remembered, so that filtering mostly reads the
// memo: cheaper in order on one goroutine than spread over many.
func (f *Framework) ResultsRemembered(state *framework.CycleState) bool {
	p, ok := state.FilterPlan.(*filterPlan)
	return ok && p.warm && p.sig != 0
}

func (p *scorePlan) allLocal() bool {
	for _, s := range p.steps {
		if !s.local && !s.uniform {
			return false
		}
	}
	return true
}

// RejectedDomains asks the Filter plugins the pod runs (those its PreFilter
// did not skip) which domains they reject whole.
func (f *Framework) RejectedDomains(state *framework.CycleState) []framework.RejectedDomains {
	if f.noIndexes {
		return nil
	}
	var out []framework.RejectedDomains
	for _, step := range f.filterPlanOf(state).steps {
		if r, ok := step.pl.(framework.DomainRejecter); ok {
			for _, d := range r.RejectedDomains(state) {
				d.Plugin = step.pl.Name()
				out = append(out, d)
			}
		}
	}
	return out
}
