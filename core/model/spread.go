package model

// UnsatisfiableConstraintAction says what to do when a spread constraint
// cannot be met.
type UnsatisfiableConstraintAction string

const (
	DoNotSchedule  UnsatisfiableConstraintAction = "DoNotSchedule"  // a filter
	ScheduleAnyway UnsatisfiableConstraintAction = "ScheduleAnyway" // a score
)

// NodeInclusionPolicy says whether node affinity or taints decide which nodes
// count when computing skew.
type NodeInclusionPolicy string

const (
	NodeInclusionPolicyHonor  NodeInclusionPolicy = "Honor"
	NodeInclusionPolicyIgnore NodeInclusionPolicy = "Ignore"
)

// TopologySpreadConstraint asks for matching pods to be spread evenly across
// the domains of TopologyKey.
type TopologySpreadConstraint struct {
	MaxSkew           int32
	TopologyKey       string
	WhenUnsatisfiable UnsatisfiableConstraintAction
	LabelSelector     *LabelSelector
	MinDomains        *int32 // DoNotSchedule only; nil means 1
	// NodeAffinityPolicy defaults to Honor, NodeTaintsPolicy to Ignore.
	NodeAffinityPolicy *NodeInclusionPolicy
	NodeTaintsPolicy   *NodeInclusionPolicy
	MatchLabelKeys     []string
}
