package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// confirmCommand and failCommand play the orchestrator's part after a
// Bind decision: berthd holds the pod as binding until it hears what
// became of the bind.
func (a *app) confirmCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "confirm NAMESPACE/NAME",
		Short: "Tell berthd a pod it bound now runs on its node (ReportBindResult CONFIRMED)",
		Long: `confirm reports that the orchestrator placed a binding pod on the node of
its Bind decision (StateService.ReportBindResult, outcome CONFIRMED): the pod
becomes bound. Until then berthd lists the pod as binding and counts it on
the node. An orchestrator usually confirms by re-sending the pod with its
node set; confirm is the same for one pod by hand.

confirm looks the pod up (AdminService.Explain) for its uid, its node and the
revision of its Bind decision. A pod already bound is reported and confirm
exits 0; a pod that is not binding exits 1, one berthd does not hold 4.`,
		Args:              exactArgs(1, "one pod, NAMESPACE/NAME"),
		ValidArgsFunction: a.completePods(berthv1.QueueState_QUEUE_STATE_BINDING),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.reportBind(cmd.Context(), args[0], berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED, "")
		},
	}
	return cmd
}

func (a *app) failCommand() *cobra.Command {
	var message string
	cmd := &cobra.Command{
		Use:   "fail NAMESPACE/NAME --message TEXT",
		Short: "Tell berthd a pod it bound could not be placed (ReportBindResult FAILED)",
		Long: `fail reports that the orchestrator could not place a binding pod on the node
of its Bind decision (StateService.ReportBindResult, outcome FAILED): berthd
frees the node's room and queues the pod again, with backoff. --message says
why; explain shows it as the last bind failure.

fail looks the pod up (AdminService.Explain) for its uid, its node and the
revision of its Bind decision. A pod that is not binding (a confirmed bind
cannot be failed: delete the pod instead) exits 1, one berthd does not
hold 4.`,
		Args:              exactArgs(1, "one pod, NAMESPACE/NAME"),
		ValidArgsFunction: a.completePods(berthv1.QueueState_QUEUE_STATE_BINDING),
		RunE: func(cmd *cobra.Command, args []string) error {
			if message == "" {
				return usageErrorf("fail needs --message: why the pod could not be placed")
			}
			return a.reportBind(cmd.Context(), args[0], berthv1.BindOutcome_BIND_OUTCOME_FAILED, message)
		},
	}
	cmd.Flags().StringVar(&message, "message", "", "why the pod could not be placed, for people (required)")
	return cmd
}

// reportBind settles the outstanding Bind of a pod named by the user.
func (a *app) reportBind(ctx context.Context, podName string, outcome berthv1.BindOutcome, reason string) error {
	c, ex, err := a.explainPod(ctx, podName)
	if err != nil {
		return err
	}
	defer c.Close()
	what := "pod " + podKey(ex.GetPod())
	confirm := outcome == berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED
	switch st := ex.GetState(); {
	case st == berthv1.QueueState_QUEUE_STATE_BOUND && confirm:
		fmt.Fprintf(a.out, "%s is already bound to %s\n", what, ex.GetNode())
		return nil
	case st == berthv1.QueueState_QUEUE_STATE_BOUND:
		return failedf("%s is bound to %s, its bind confirmed: too late to fail it (delete the pod to stop it)", what, ex.GetNode())
	case st != berthv1.QueueState_QUEUE_STATE_BINDING:
		return failedf("%s has no bind awaiting an outcome: it is %s (see berthctl explain %s)", what, stateName(st), podKey(ex.GetPod()))
	}
	rev := ex.GetBindRevision()
	if rev == 0 {
		// berthd no longer knows the revision (compacted away after a
		// restart) and then accepts any: the pod and node identify the bind.
		rev = 1
	}
	callCtx, cancel := c.call(ctx)
	defer cancel()
	_, err = c.state.ReportBindResult(callCtx, &berthv1.ReportBindResultRequest{
		Pod: ex.GetPod(), Node: ex.GetNode(), Revision: rev, Outcome: outcome, Reason: reason,
	})
	if err != nil {
		return c.err(ctx, err, what)
	}
	if confirm {
		fmt.Fprintf(a.out, "%s confirmed on %s (bind revision %d)\n", what, ex.GetNode(), ex.GetBindRevision())
		return nil
	}
	fmt.Fprintf(a.out, "%s: bind to %s (revision %d) reported failed; berthd queues the pod again after a backoff\n", what, ex.GetNode(), ex.GetBindRevision())
	return nil
}
