package quota

// DefaultClusterQueue fills the fields of cq left empty with Kueue's
// defaults (BestEffortFIFO, stop policy None, fungibility MayStopSearch
// when it can borrow and TryNextFlavor when it can preempt, every
// preemption policy Never), as Kueue's defaulting webhook does before
// validation. The fair-sharing weight is not touched: 0 is a weight, so
// the caller sets 1 when none was given.
func DefaultClusterQueue(cq *ClusterQueue) {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&cq.QueueingStrategy, BestEffortFIFO)
	def(&cq.StopPolicy, StopPolicyNone)
	def(&cq.FlavorFungibility.WhenCanBorrow, FungibilityMayStopSearch)
	def(&cq.FlavorFungibility.WhenCanPreempt, FungibilityTryNextFlavor)
	def(&cq.Preemption.WithinClusterQueue, PolicyNever)
	def(&cq.Preemption.ReclaimWithinCohort, PolicyNever)
	def(&cq.Preemption.BorrowWithinCohort.Policy, PolicyNever)
}
