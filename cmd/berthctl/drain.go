package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func (a *app) cordonCommand(cordon bool) *cobra.Command {
	use, short := "cordon NODE", "Mark a node unschedulable"
	if !cordon {
		use, short = "uncordon NODE", "Mark a node schedulable again"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + ` in berthd: the node as berthd holds it (ListNodes) is
upserted through StateService.Apply with unschedulable changed.

berthd does not own nodes; the orchestrator does. Its next upsert of the node
replaces what cordon wrote: an orchestrator that keeps a node's unschedulable
flag of its own must be told too, or it undoes the cordon.`,
		Args:              exactArgs(1, "one node"),
		ValidArgsFunction: a.completeNodes,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.conn.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			msg, err := setUnschedulable(cmd.Context(), c, args[0], cordon)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.out, msg)
			return nil
		},
	}
}

// setUnschedulable upserts the node with unschedulable set to cordon.
func setUnschedulable(ctx context.Context, c *client, name string, cordon bool) (string, error) {
	callCtx, cancel := c.call(ctx)
	defer cancel()
	var node *berthv1.NodeUsage
	for token := ""; node == nil; {
		resp, err := c.admin.ListNodes(callCtx, &berthv1.ListNodesRequest{PageToken: token})
		if err != nil {
			return "", c.err(ctx, err, "")
		}
		for _, n := range resp.GetNodes() {
			if n.GetName() == name {
				node = n
			}
		}
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if node == nil {
		return "", &exitError{code: exitNotFound, err: fmt.Errorf("node %s not found", name)}
	}
	word := map[bool]string{true: "cordoned", false: "uncordoned"}[cordon]
	if node.GetUnschedulable() == cordon {
		return fmt.Sprintf("node %s already %s", name, word), nil
	}
	obj := &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: node.GetName(), Labels: node.GetLabels(), Taints: node.GetTaints(),
		Allocatable: node.GetAllocatable(), Unschedulable: cordon, Conditions: node.GetConditions(),
		Images: node.GetImages(),
	}}}
	if err := c.Apply(callCtx, obj); err != nil {
		return "", c.err(ctx, err, "node "+name)
	}
	return fmt.Sprintf("node %s %s", name, word), nil
}

type drainOptions struct {
	timeout          time.Duration
	ignoreDaemonSets bool
	dryRun           bool
	grace            int64
}

func (a *app) drainCommand() *cobra.Command {
	var o drainOptions
	cmd := &cobra.Command{
		Use:   "drain NODE [--timeout D] [--ignore-daemonsets] [--dry-run] [--grace-period N]",
		Short: "Cordon a node, then evict its pods through the eviction API",
		Long: `drain cordons the node (see cordon), then evicts every pod on it through
berthd's eviction API (EvictionService), as kubectl drain does: a pod whose
disruption budget refuses is retried, with backoff (1 s, doubling up to
30 s), until it goes or --timeout passes. Each pod
gets a progress line. Pods being deleted already are skipped.

The node's pods include those binding to it: Berth decided to bind them there
and the orchestrator has not confirmed the bind yet. They are headed for the
node, so they are evicted too, without waiting for the bind's outcome: not
running yet, they go without charging a disruption budget (as kube evicts a
pod that has not started), and they stay terminating whether the bind is then
confirmed or fails. Their lines say "is binding to NODE". After the
evictions the node is listed again, and again while that finds pods not seen
before: a scheduling cycle begun before the cordon may still bind a pod there.

Pods managed by a DaemonSet (their controlling owner, as the orchestrator
sent it, is a DaemonSet; for a pod sent without owners, one carrying the
toleration the DaemonSet controller adds) stop the drain before anything is
evicted unless --ignore-daemonsets is given, which leaves them.
--dry-run cordons nothing and evicts nothing: it says what would be done.

Exit codes: 0 every pod evicted; 6 some pod still refused by its disruption
budget when --timeout passed (the pods not tried for lack of time are listed);
4 no such node; 1 any other failure (DaemonSet pods without
--ignore-daemonsets, an eviction refused for another reason, --timeout passed
without a refusal by a budget).`,
		Args:              exactArgs(1, "one node"),
		ValidArgsFunction: a.completeNodes,
		RunE: func(cmd *cobra.Command, args []string) error {
			var grace *int64
			if cmd.Flags().Changed("grace-period") {
				if o.grace < 0 {
					return usageErrorf("--grace-period must be at least 0, got %d", o.grace)
				}
				grace = &o.grace
			}
			return a.drain(cmd.Context(), args[0], &o, grace)
		},
	}
	fs := cmd.Flags()
	fs.DurationVar(&o.timeout, "timeout", 0, "give up after this long (0: never)")
	fs.BoolVar(&o.ignoreDaemonSets, "ignore-daemonsets", false, "leave DaemonSet pods instead of refusing to drain")
	fs.BoolVar(&o.dryRun, "dry-run", false, "say what would be done, change nothing")
	fs.Int64Var(&o.grace, "grace-period", 0, "seconds each pod may take to stop (default: the pod's own)")
	return cmd
}

func (a *app) drain(ctx context.Context, node string, o *drainOptions, grace *int64) error {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if !o.dryRun {
		msg, err := setUnschedulable(ctx, c, node, true)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.out, msg)
	}
	// A pod may still be bound to the node by a scheduling cycle that
	// began before the cordon: the node is listed again after each round
	// of evictions, until a list brings no pod it has not seen.
	var t drainTally
	seen := map[string]bool{}
	for {
		todo, err := a.drainList(ctx, c, node, o, seen)
		if err != nil {
			return err
		}
		if len(todo) == 0 {
			break
		}
		a.evictAll(ctx, c, node, todo, o.dryRun, grace, &t)
		if o.dryRun || ctx.Err() != nil {
			break
		}
	}
	switch {
	case t.failed > 0 || t.late > 0 && t.refused == 0:
		return failedf("node %s: %d of %d pods not evicted", node, t.failed+t.refused+t.late, t.tried)
	case t.refused > 0:
		return &exitError{code: exitBudget, err: fmt.Errorf("node %s: %d of %d pods not evicted, %d refused by their disruption budgets until --timeout passed", node, t.refused+t.late, t.tried, t.refused)}
	}
	if !o.dryRun {
		fmt.Fprintf(a.out, "node %s drained\n", node)
	}
	return nil
}

// drainTally counts a drain's pods to evict and those not evicted, by why.
type drainTally struct{ tried, refused, failed, late int }

// drainList lists the node's pods not in seen, adds them to it, prints a
// line for each one left alone and returns those to evict. DaemonSet pods
// without --ignore-daemonsets are an error.
func (a *app) drainList(ctx context.Context, c *client, node string, o *drainOptions, seen map[string]bool) ([]*berthv1.NodePod, error) {
	callCtx, cancel := c.call(ctx)
	list, err := c.Eviction.ListNodePods(callCtx, &berthv1.ListNodePodsRequest{Node: node})
	cancel()
	if err != nil {
		return nil, c.err(ctx, err, "node "+node)
	}
	var todo []*berthv1.NodePod
	var daemons []string
	for _, p := range list.GetPods() {
		key := podKey(p.GetPod())
		id := key + " " + p.GetPod().GetUid()
		if seen[id] {
			continue
		}
		seen[id] = true
		switch {
		case p.GetTerminating():
			fmt.Fprintf(a.out, "pod %s is being deleted already\n", key)
		case p.GetDaemonSet() && o.ignoreDaemonSets:
			fmt.Fprintf(a.out, "pod %s ignored (DaemonSet)\n", key)
		case p.GetDaemonSet():
			daemons = append(daemons, key)
		default:
			todo = append(todo, p)
		}
	}
	if len(daemons) > 0 {
		return nil, failedf("node %s has DaemonSet pods (%v); pass --ignore-daemonsets to leave them", node, daemons)
	}
	return todo, nil
}

// evictAll evicts the pods in turn, counting in t those not evicted.
func (a *app) evictAll(ctx context.Context, c *client, node string, todo []*berthv1.NodePod, dryRun bool, grace *int64, t *drainTally) {
	t.tried += len(todo)
	for _, p := range todo {
		if ctx.Err() != nil {
			t.late++
			fmt.Fprintf(a.out, "pod %s not tried: --timeout passed\n", podKey(p.GetPod()))
			continue
		}
		switch err := a.evictUntil(ctx, c, node, p, dryRun, grace); {
		case err == nil:
		case exitCode(err) == exitBudget:
			t.refused++
			fmt.Fprintln(a.err, "berthctl:", err)
		case ctx.Err() != nil:
			t.late++
			fmt.Fprintf(a.out, "pod %s not evicted: --timeout passed\n", podKey(p.GetPod()))
		default:
			t.failed++
			fmt.Fprintln(a.err, "berthctl:", err)
		}
	}
}

// maxDrainBackoff caps the wait between two tries of a refused eviction.
const maxDrainBackoff = 30 * time.Second

// evictUntil evicts one pod of node, retrying refusals by its budget with
// backoff until ctx ends; it prints a line per outcome.
func (a *app) evictUntil(ctx context.Context, c *client, node string, np *berthv1.NodePod, dryRun bool, grace *int64) error {
	p := np.GetPod()
	what := "pod " + podKey(p)
	if np.GetBinding() {
		what += " is binding to " + node + ":"
	}
	wait := time.Second
	for {
		line, err := evictSaying(ctx, c, what, p.GetNamespace(), p.GetName(), dryRun, grace)
		if err == nil {
			fmt.Fprintln(a.out, line)
			return nil
		}
		if exitCode(err) != exitBudget {
			return err
		}
		fmt.Fprintf(a.out, "pod %s/%s refused by its disruption budget; retrying in %v\n", p.GetNamespace(), p.GetName(), wait)
		select {
		case <-ctx.Done():
			return &exitError{code: exitBudget, err: fmt.Errorf("%w (gave up: %v)", err, context.Cause(ctx))}
		case <-time.After(wait):
		}
		wait = min(2*wait, maxDrainBackoff)
	}
}
