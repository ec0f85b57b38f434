package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	berth "github.com/berthsched/berth/clients/go"
)

type evictOptions struct {
	dryRun bool
	grace  int64
}

func (a *app) evictCommand() *cobra.Command {
	var o evictOptions
	cmd := &cobra.Command{
		Use:   "evict NAMESPACE/NAME [--dry-run] [--grace-period N]",
		Short: "Evict a pod through berthd's eviction API (disruption budgets enforced)",
		Long: `evict asks berthd's eviction API (EvictionService.EvictPod) to evict one pod,
as kubectl's eviction does: a pod covered by a PodDisruptionBudget goes only
if the budget allows a disruption now. An eviction let go is an Evict decision
(cause API) the orchestrator carries out. A pod named without a namespace is
in "default".

Exit codes: 0 evicted (or being evicted already), 6 refused by a disruption
budget (retry later), 4 no such pod, 1 another refusal (more than one budget
covers the pod, ...).`,
		Args:              exactArgs(1, "one pod, NAMESPACE/NAME"),
		ValidArgsFunction: a.completePods(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("grace-period") && o.grace < 0 {
				return usageErrorf("--grace-period must be at least 0, got %d", o.grace)
			}
			var grace *int64
			if cmd.Flags().Changed("grace-period") {
				grace = &o.grace
			}
			return a.evict(cmd.Context(), args[0], o.dryRun, grace)
		},
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "check whether the pod may be evicted, evict nothing")
	cmd.Flags().Int64Var(&o.grace, "grace-period", 0, "seconds the pod may take to stop (default: the pod's own)")
	return cmd
}

func (a *app) evict(ctx context.Context, podName string, dryRun bool, grace *int64) error {
	ns, name, err := parsePodName(podName)
	if err != nil {
		return usageErrorf("%v", err)
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	line, err := evictOne(ctx, c, ns, name, dryRun, grace)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.out, line)
	return nil
}

// evictOne evicts one pod and says what happened in one line; a refusal
// by a budget exits 6 (exitBudget).
func evictOne(ctx context.Context, c *client, ns, name string, dryRun bool, grace *int64) (string, error) {
	return evictSaying(ctx, c, fmt.Sprintf("pod %s/%s", ns, name), ns, name, dryRun, grace)
}

// evictSaying is evictOne with the line's subject given (what).
func evictSaying(ctx context.Context, c *client, what, ns, name string, dryRun bool, grace *int64) (string, error) {
	callCtx, cancel := c.call(ctx)
	defer cancel()
	resp, err := c.Evict(callCtx, ns, name, berth.EvictOptions{DryRun: dryRun, GracePeriodSeconds: grace})
	if refused := (*berth.BudgetRefusedError)(nil); errors.As(err, &refused) {
		return "", &exitError{code: exitBudget, err: fmt.Errorf("pod %s/%s not evicted: disruption budget %s allows no disruption now (retry in %v)", ns, name, refused.Budget, refused.RetryAfter)}
	}
	if err != nil {
		return "", c.err(ctx, err, fmt.Sprintf("pod %s/%s", ns, name))
	}
	switch {
	case resp.GetAlreadyEvicted():
		return what + " is being evicted already", nil
	case dryRun:
		what += " would be evicted (dry run)"
	default:
		what += fmt.Sprintf(" evicted (revision %d)", resp.GetRevision())
	}
	if b := resp.GetBudget(); b != "" {
		what += fmt.Sprintf(", disruption budget %s allowed %d", b, resp.GetDisruptionsAllowed())
	}
	return what, nil
}
