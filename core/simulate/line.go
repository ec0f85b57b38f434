package simulate

import (
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/scheduler"
)

// Line is one attempt in the trace format; it marshals to exactly what
// kubeoracle prints (field names and order, empty fields left out, node
// lists sorted; encoding/json sorts map keys).
type Line struct {
	Pod              string                      `json:"pod"`
	Result           string                      `json:"result"`
	Node             string                      `json:"node,omitempty"`
	Claims           map[string]ClaimLine        `json:"claims,omitempty"`
	Feasible         []string                    `json:"feasible,omitempty"`
	Scores           map[string]int64            `json:"scores,omitempty"`
	PluginScores     map[string]map[string]int64 `json:"pluginScores,omitempty"`
	TopNodes         []string                    `json:"topNodes,omitempty"`
	TieBreak         string                      `json:"tieBreak,omitempty"`
	ViaNominatedNode bool                        `json:"viaNominatedNode,omitempty"`
	ScoresReportOnly bool                        `json:"scoresReportOnly,omitempty"`
	Victims          []string                    `json:"victims,omitempty"`
	Deallocated      []string                    `json:"deallocated,omitempty"`
	Message          string                      `json:"message,omitempty"`
	Reasons          map[string][]string         `json:"reasons,omitempty"`
	Unresolvable     []string                    `json:"unresolvable,omitempty"`
	Plugin           string                      `json:"plugin,omitempty"`
}

// ClaimLine is one claim entry of a bound pod: the ResourceClaim it used
// (namespace/name) and its devices as driver/pool/device, in the
// allocation's order.
type ClaimLine struct {
	Claim   string   `json:"claim"`
	Devices []string `json:"devices,omitempty"`
}

// lineFor reports an attempt. nodes are all the cluster's nodes: an
// unschedulable line gives every node's reasons.
func lineFor(att *scheduler.Attempt, victims, nodes []string) Line {
	l := Line{Pod: att.Pod.Key()}
	switch att.Result {
	case scheduler.ResultScheduled:
		if !att.BindStatus.IsSuccess() {
			// A binding-cycle failure names the node, as kubeoracle's.
			l.Result, l.Node, l.Message = ResultError, att.Node, att.BindStatus.Message()
			return l
		}
		l.Result, l.Node, l.ViaNominatedNode = ResultBound, att.Node, att.ViaNominatedNode
		l.Feasible = sorted(att.Feasible)
		l.Reasons = explicitReasons(att.Diagnosis.NodeToStatus)
		l.Scores, l.PluginScores = scoreMaps(att.Scores)
		l.ScoresReportOnly = att.ScoresReportOnly
		l.TopNodes = att.TopNodes
		if len(att.TopNodes) > 1 {
			l.TieBreak = TieBreakSmallestName
		}
	case scheduler.ResultUnschedulable:
		l.Result, l.Message = ResultUnschedulable, att.Message
		switch {
		case att.NominatedNode != "":
			l.Result, l.Node, l.Victims = ResultNominated, att.NominatedNode, victims
		case att.FitError != nil && len(att.Feasible) > 0:
			// Rejected by Reserve or Permit on the chosen node.
			l.Reasons = explicitReasons(att.FitError.Diagnosis.NodeToStatus)
		case att.FitError != nil:
			l.Reasons, l.Unresolvable = allReasons(att.Diagnosis.NodeToStatus, nodes)
		}
	case scheduler.ResultSkipped:
		l.Result, l.Message = ResultSkipped, att.Message
	default:
		l.Result, l.Message = ResultError, att.Message
	}
	return l
}

// explicitReasons gives the reasons of the nodes with their own status.
func explicitReasons(m *framework.NodeToStatus) map[string][]string {
	if m == nil {
		return nil
	}
	out := map[string][]string{}
	for _, n := range m.Nodes() {
		if r := m.Get(n).Reasons(); len(r) > 0 {
			out[n] = r
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// allReasons gives every node's reasons (nodes without their own status
// share the absent status) and the nodes preemption cannot help.
func allReasons(m *framework.NodeToStatus, nodes []string) (map[string][]string, []string) {
	if m == nil {
		return nil, nil
	}
	out := map[string][]string{}
	var unresolvable []string
	for _, n := range nodes {
		st := m.Get(n)
		if r := st.Reasons(); len(r) > 0 {
			out[n] = r
		}
		if st.Code() == framework.UnschedulableAndUnresolvable {
			unresolvable = append(unresolvable, n)
		}
	}
	slices.Sort(unresolvable)
	if len(out) == 0 {
		out = nil
	}
	return out, unresolvable
}

func scoreMaps(scores []framework.NodePluginScores) (map[string]int64, map[string]map[string]int64) {
	if scores == nil {
		return nil, nil
	}
	total := make(map[string]int64, len(scores))
	perPlugin := make(map[string]map[string]int64, len(scores))
	for _, ns := range scores {
		total[ns.Name] = ns.TotalScore
		m := make(map[string]int64, len(ns.Scores))
		for _, ps := range ns.Scores {
			m[ps.Name] = ps.Score
		}
		perPlugin[ns.Name] = m
	}
	return total, perPlugin
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
