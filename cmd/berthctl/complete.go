package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// completionTimeout bounds the calls completion makes to berthd: a shell
// waits for them at every Tab.
const completionTimeout = time.Second

// getKinds are what get lists, with a description for the shells that show
// one.
var getKinds = []cobra.Completion{
	cobra.CompletionWithDesc("pods", "every pod, bound ones too, with its state"),
	cobra.CompletionWithDesc("pending", "pods not bound yet"),
	cobra.CompletionWithDesc("nodes", "nodes and what their pods use"),
	cobra.CompletionWithDesc("nominations", "nominations in force"),
	cobra.CompletionWithDesc("queue", "pods in each queue state"),
	cobra.CompletionWithDesc("claims", "resource claims and their device allocations"),
	cobra.CompletionWithDesc("deviceclasses", "device classes"),
	cobra.CompletionWithDesc("resourceslices", "resource slices (devices per node)"),
	cobra.CompletionWithDesc("devicetaintrules", "device taint rules"),
	cobra.CompletionWithDesc("pv", "persistent volumes"),
	cobra.CompletionWithDesc("pvc", "persistent volume claims"),
	cobra.CompletionWithDesc("storageclasses", "storage classes"),
	cobra.CompletionWithDesc("csinodes", "CSI drivers per node and their attach limits"),
	cobra.CompletionWithDesc("csidrivers", "CSI drivers"),
	cobra.CompletionWithDesc("csistoragecapacities", "CSI storage capacities"),
	cobra.CompletionWithDesc("resourceflavors", "Kueue resource flavors"),
	cobra.CompletionWithDesc("clusterqueues", "Kueue cluster queues, with usage against quota"),
	cobra.CompletionWithDesc("cohorts", "Kueue cohorts"),
	cobra.CompletionWithDesc("localqueues", "Kueue local queues"),
	cobra.CompletionWithDesc("workloadpriorityclasses", "Kueue workload priority classes"),
	cobra.CompletionWithDesc("workloads", "Kueue workloads and where they stand"),
}

// deleteKindNames are the kinds delete takes by name (their aliases are
// left out of completion).
var deleteKindNames = []cobra.Completion{"pod", "node", "priorityclass", "pdb", "namespace", "devicetaintrule",
	"resourceflavor", "clusterqueue", "cohort", "localqueue", "workloadpriorityclass", "workload"}

func completeGetKinds(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return getKinds, cobra.ShellCompDirectiveNoFileComp
}

// completeDelete completes "delete KIND NAME...": the kind, then the names of
// berthd's pods or nodes.
func (a *app) completeDelete(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	switch {
	case len(args) == 0:
		return deleteKindNames, cobra.ShellCompDirectiveNoFileComp
	}
	kind, _ := deleteKindOf(args[0])
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return a.completePods()(cmd, nil, toComplete)
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return a.completeNames(cmd, toComplete, listNodeNames)
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// completeNodes completes one node argument with the names of berthd's
// nodes (cordon, uncordon, drain).
func (a *app) completeNodes(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.completeNames(cmd, toComplete, listNodeNames)
}

// completePods completes one pod argument with the NAMESPACE/NAME of
// berthd's pods, bound ones included, only those in states when given.
func (a *app) completePods(states ...berthv1.QueueState) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.completeNames(cmd, toComplete, func(ctx context.Context, c *client) ([]string, error) {
			return listPodNames(ctx, c, states)
		})
	}
}

// completeNames asks berthd for names and keeps those starting with
// toComplete. Any failure (berthd unreachable, slow, refusing) completes
// nothing, silently: completion must not print errors into the shell.
func (a *app) completeNames(cmd *cobra.Command, toComplete string, list func(context.Context, *client) ([]string, error)) ([]cobra.Completion, cobra.ShellCompDirective) {
	const none = cobra.ShellCompDirectiveNoFileComp
	if a.conn.validate(cmd) != nil {
		return nil, none
	}
	a.conn.timeout = min(a.conn.timeout, completionTimeout)
	c, err := a.conn.dial()
	if err != nil {
		return nil, none
	}
	defer c.Close()
	names, err := list(cmd.Context(), c)
	if err != nil {
		return nil, none
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, none
}

// listPodNames lists the pods of ListPods, as NAMESPACE/NAME; those of
// ListPending from a berthd without ListPods.
func listPodNames(ctx context.Context, c *client, states []berthv1.QueueState) ([]string, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	var names []string
	for token := ""; ; {
		resp, err := c.admin.ListPods(ctx, &berthv1.ListPodsRequest{PageSize: listPageSize, PageToken: token, States: states})
		if status.Code(err) == codes.Unimplemented {
			return listPendingNames(ctx, c, states)
		}
		if err != nil {
			return nil, err
		}
		for _, p := range resp.GetPods() {
			names = append(names, podKey(p.GetPod()))
		}
		if token = resp.GetNextPageToken(); token == "" {
			return names, nil
		}
	}
}

// listPendingNames lists the pods of ListPending, as NAMESPACE/NAME.
func listPendingNames(ctx context.Context, c *client, states []berthv1.QueueState) ([]string, error) {
	var names []string
	for token := ""; ; {
		resp, err := c.admin.ListPending(ctx, &berthv1.ListPendingRequest{PageSize: listPageSize, PageToken: token, States: states})
		if err != nil {
			return nil, err
		}
		for _, p := range resp.GetPods() {
			names = append(names, podKey(p.GetPod()))
		}
		if token = resp.GetNextPageToken(); token == "" {
			return names, nil
		}
	}
}

// listNodeNames lists the nodes of ListNodes.
func listNodeNames(ctx context.Context, c *client) ([]string, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	var names []string
	for token := ""; ; {
		resp, err := c.admin.ListNodes(ctx, &berthv1.ListNodesRequest{PageSize: listPageSize, PageToken: token})
		if err != nil {
			return nil, err
		}
		for _, n := range resp.GetNodes() {
			names = append(names, n.GetName())
		}
		if token = resp.GetNextPageToken(); token == "" {
			return names, nil
		}
	}
}
