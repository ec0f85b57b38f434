package convert

import (
	"maps"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/simulate"
)

// simulateResults pairs the trace's results with the wire's.
func simulateResults() map[string]berthv1.SimulateResult {
	return map[string]berthv1.SimulateResult{
		simulate.ResultBound:         berthv1.SimulateResult_SIMULATE_RESULT_BOUND,
		simulate.ResultNominated:     berthv1.SimulateResult_SIMULATE_RESULT_NOMINATED,
		simulate.ResultUnschedulable: berthv1.SimulateResult_SIMULATE_RESULT_UNSCHEDULABLE,
		simulate.ResultGated:         berthv1.SimulateResult_SIMULATE_RESULT_GATED,
		simulate.ResultSkipped:       berthv1.SimulateResult_SIMULATE_RESULT_SKIPPED,
		simulate.ResultError:         berthv1.SimulateResult_SIMULATE_RESULT_ERROR,
		simulate.ResultDeallocated:   berthv1.SimulateResult_SIMULATE_RESULT_DEALLOCATED,
	}
}

// SimulateAttemptToProto is the wire form of a simulated attempt. nodes
// are the simulated cluster's nodes: each gets a verdict, as does every
// node the attempt names, sorted by name. SimulateLineFromProto gives the
// attempt's Line back, field for field.
func SimulateAttemptToProto(a simulate.Attempt, nodes []string) *berthv1.SimulateAttempt {
	l := a.Line
	out := &berthv1.SimulateAttempt{
		Pod:              PodRefOf(a.Pod),
		Result:           simulateResults()[l.Result],
		Node:             l.Node,
		Message:          l.Message,
		TopNodes:         slices.Clone(l.TopNodes),
		TieBreak:         l.TieBreak,
		ViaNominatedNode: l.ViaNominatedNode,
		ScoresReportOnly: l.ScoresReportOnly,
		Plugin:           l.Plugin,
		Deallocated:      slices.Clone(l.Deallocated),
	}
	for _, entry := range slices.Sorted(maps.Keys(l.Claims)) {
		c := l.Claims[entry]
		out.Claims = append(out.Claims, &berthv1.SimulateClaim{Entry: entry, Claim: c.Claim, Devices: slices.Clone(c.Devices)})
	}
	for _, v := range a.Victims {
		out.Victims = append(out.Victims, PodRefOf(v))
	}
	if l.Result == simulate.ResultGated || l.Result == simulate.ResultSkipped || l.Result == simulate.ResultError {
		return out // not tried: no verdicts
	}
	names := slices.Concat(nodes, l.Feasible, l.Unresolvable, slices.Collect(maps.Keys(l.Reasons)), slices.Collect(maps.Keys(l.Scores)))
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		v := &berthv1.NodeVerdict{
			Node:         n,
			Feasible:     slices.Contains(l.Feasible, n),
			Reasons:      slices.Clone(l.Reasons[n]),
			Unresolvable: slices.Contains(l.Unresolvable, n),
		}
		if total, ok := l.Scores[n]; ok {
			v.Scored, v.TotalScore, v.PluginScores = true, total, maps.Clone(l.PluginScores[n])
		}
		out.Nodes = append(out.Nodes, v)
	}
	return out
}

// SimulateLineFromProto is the trace line of a wire attempt, as berthctl
// simulate prints it: the Line SimulateAttemptToProto was given.
func SimulateLineFromProto(in *berthv1.SimulateAttempt) simulate.Line {
	l := simulate.Line{
		Pod:              podKey(in.GetPod()),
		Node:             in.GetNode(),
		Message:          in.GetMessage(),
		TopNodes:         slices.Clone(in.GetTopNodes()),
		TieBreak:         in.GetTieBreak(),
		ViaNominatedNode: in.GetViaNominatedNode(),
		ScoresReportOnly: in.GetScoresReportOnly(),
		Plugin:           in.GetPlugin(),
		Deallocated:      slices.Clone(in.GetDeallocated()),
	}
	for _, c := range in.GetClaims() {
		l.Claims = setKey(l.Claims, c.GetEntry(), simulate.ClaimLine{Claim: c.GetClaim(), Devices: slices.Clone(c.GetDevices())})
	}
	for r, wire := range simulateResults() {
		if wire == in.GetResult() {
			l.Result = r
		}
	}
	for _, v := range in.GetVictims() {
		l.Victims = append(l.Victims, podKey(v))
	}
	for _, v := range in.GetNodes() {
		n := v.GetNode()
		if v.GetFeasible() {
			l.Feasible = append(l.Feasible, n)
		}
		if v.GetUnresolvable() {
			l.Unresolvable = append(l.Unresolvable, n)
		}
		if len(v.GetReasons()) > 0 {
			l.Reasons = setKey(l.Reasons, n, slices.Clone(v.GetReasons()))
		}
		if v.GetScored() {
			l.Scores = setKey(l.Scores, n, v.GetTotalScore())
			scores := make(map[string]int64, len(v.GetPluginScores()))
			maps.Copy(scores, v.GetPluginScores())
			l.PluginScores = setKey(l.PluginScores, n, scores)
		}
	}
	return l
}

func podKey(r *berthv1.PodRef) string { return r.GetNamespace() + "/" + r.GetName() }

// setKey sets m[k] = v, making m if nil.
func setKey[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}
