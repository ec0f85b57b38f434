package parity_test

import (
	"testing"

	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/simulate"
)

// TestPreemptionMemoChangesNothing checks that remembering preemption's dry
// runs and the verdicts on nodes with nominated pods added (see
// framework.Handle.LocalMemo and core/preemption's memo.go) gives exactly
// the trace of recomputing them every time, as kube-scheduler does: same
// candidates, victims, budget violations, chosen nodes, nominations and
// messages. The random clusters are heavy in preemption (priorities
// negative and positive, budgets of every form, pods sharing start times,
// victims already terminating, pods already nominated), and every pending
// pod gets look-alike copies, so most dry runs could reuse an earlier
// preemptor's on nodes unchanged since. Four shapes leave topology spread
// and inter-pod affinity out (NodeLocal), so the memo serves every pod;
// the last has some, for which nothing is remembered.
func TestPreemptionMemoChangesNothing(t *testing.T) {
	cases := []switchedCase{
		{parity.GenOptions{Nodes: 10, RunningPods: 40, PendingPods: 15, Preemption: true, Varied: true, NodeLocal: true}, 100},
		{parity.GenOptions{Nodes: 30, RunningPods: 120, PendingPods: 20, Preemption: true, Varied: true, NodeLocal: true}, 100},
		{parity.GenOptions{Nodes: 60, RunningPods: 200, PendingPods: 25, Preemption: true, NodeLocal: true}, 100},
		{parity.GenOptions{Nodes: 120, RunningPods: 300, PendingPods: 25, Preemption: true, Varied: true, NodeLocal: true}, 30},
		{parity.GenOptions{Nodes: 40, RunningPods: 100, PendingPods: 20, Preemption: true, Varied: true}, 100},
	}
	replaySwitched(t, cases, 11000, "the preemption memo changed the trace (-recomputed +remembered)",
		func(o *simulate.Options) { o.NoPreemptionMemo = true })
}
