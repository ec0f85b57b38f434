package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/server/convert"
)

type deleteOptions struct {
	files          []string
	batchSize      int
	ignoreNotFound bool
}

// deleteKinds are the kinds "delete KIND NAME" takes, with their aliases.
var deleteKinds = map[string]berthv1.ObjectKind{
	"pod": berthv1.ObjectKind_OBJECT_KIND_POD, "pods": berthv1.ObjectKind_OBJECT_KIND_POD,
	"node": berthv1.ObjectKind_OBJECT_KIND_NODE, "nodes": berthv1.ObjectKind_OBJECT_KIND_NODE,
	"priorityclass": berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, "pc": berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS,
	"poddisruptionbudget": berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, "pdb": berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET,
	"namespace": berthv1.ObjectKind_OBJECT_KIND_NAMESPACE, "ns": berthv1.ObjectKind_OBJECT_KIND_NAMESPACE,
	"devicetaintrule": berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE, "devicetaintrules": berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE,
}

// deleteKindOf is the kind delete's KIND names: deleteKinds' or a
// queueing kind's (get's names).
func deleteKindOf(name string) (berthv1.ObjectKind, bool) {
	name = strings.ToLower(name)
	if k, ok := deleteKinds[name]; ok {
		return k, true
	}
	k, ok := queueKinds[name]
	return k, ok
}

func (a *app) deleteCommand() *cobra.Command {
	var o deleteOptions
	cmd := &cobra.Command{
		Use:   "delete (-f FILE... | pod NAMESPACE/NAME... | node NAME... | priorityclass NAME... | pdb NAMESPACE/NAME... | namespace NAME... | devicetaintrule NAME... | resourceflavor NAME... | clusterqueue NAME... | cohort NAME... | localqueue NAMESPACE/NAME... | workloadpriorityclass NAME... | workload NAMESPACE/NAME...)",
		Short: "Delete objects from berthd, by manifest or by name",
		Long: `delete removes objects from berthd through StateService.Delete: those of the
manifests given with -f (namespaces only when written as Namespace documents),
or the objects of one kind named on the command line. A pod, disruption
budget, local queue or workload named without a namespace is in "default".
Kueue's kinds take get's names (clusterqueue, cq, localqueue, lq, ...); a
workload is an explicit one (a Workload sent as such): those of pods go with
their pods.

An object berthd does not hold is reported and berthctl exits 4, unless
--ignore-not-found is given; any other refusal exits 1.`,
		ValidArgsFunction: a.completeDelete,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.delete(cmd.Context(), &o, args)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.files, "filename", "f", nil, "manifest file, directory or - for standard input; repeatable")
	fs.IntVar(&o.batchSize, "batch-size", defaultBatchSize, "objects per Delete call")
	fs.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "treat objects berthd does not hold as deleted")
	return cmd
}

func (a *app) delete(ctx context.Context, o *deleteOptions, args []string) error {
	if o.batchSize <= 0 {
		return usageErrorf("--batch-size must be positive, got %d", o.batchSize)
	}
	targets, err := a.deleteTargets(o, args)
	if err != nil {
		return err
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := deleteInBatches(ctx, c, o, targets)
	if err != nil {
		return err
	}
	if len(targets) == 1 {
		return a.reportDeletedOne(targets[0], res)
	}
	return a.reportDeleted(targets, res)
}

// deleteTargets are the objects to delete: those of the manifests, or the
// ones named by KIND NAME....
func (a *app) deleteTargets(o *deleteOptions, args []string) ([]sourcedObject, error) {
	switch {
	case len(o.files) > 0 && len(args) > 0:
		return nil, usageErrorf("delete takes -f or KIND NAME, not both")
	case len(o.files) > 0:
		objs, _, err := a.readObjects(o.files, false)
		if err != nil {
			return nil, err
		}
		// Dependents first: pods before the classes and namespaces they name.
		slices.Reverse(objs)
		return objs, nil
	}
	refs, err := parseKindNames(args)
	if err != nil {
		return nil, err
	}
	targets := make([]sourcedObject, len(refs))
	for i, r := range refs {
		targets[i] = sourcedObject{obj: refObject(r)}
	}
	return targets, nil
}

// deleteResult counts what berthd did with the targets; refused describes
// each refusal reported (not-found ones only without --ignore-not-found).
type deleteResult struct {
	deleted, notFound int
	refused           []string
}

// deleteInBatches sends the targets' references to berthd, --batch-size
// at a time.
func deleteInBatches(ctx context.Context, c *client, o *deleteOptions, targets []sourcedObject) (deleteResult, error) {
	var res deleteResult
	for start := 0; start < len(targets); start += o.batchSize {
		batch := targets[start:min(start+o.batchSize, len(targets))]
		req := &berthv1.DeleteRequest{}
		for _, t := range batch {
			r := t.obj.Ref()
			r.UID = "" // by name, as kubectl does: the server's copy may have another uid
			req.Refs = append(req.Refs, r.Proto())
		}
		callCtx, cancel := c.call(ctx)
		resp, err := c.state.Delete(callCtx, req)
		cancel()
		if err != nil {
			return res, c.err(ctx, err, "")
		}
		res.deleted += int(resp.GetDeleted())
		for _, e := range resp.GetErrors() {
			if e.GetCode() == berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
				res.notFound++
				if o.ignoreNotFound {
					continue
				}
			}
			res.refused = append(res.refused, describeRefusal(batch, e))
		}
	}
	return res, nil
}

// reportDeletedOne reports the deletion of one object: one line, on
// stdout when deleted, as the error if not.
func (a *app) reportDeletedOne(target sourcedObject, res deleteResult) error {
	name := describeRef(target.obj.Ref())
	switch {
	case len(res.refused) == 0 && res.deleted == 1:
		fmt.Fprintf(a.out, "%s deleted\n", name)
		return nil
	case len(res.refused) == 0: // not found, ignored
		fmt.Fprintf(a.out, "%s not found (ignored)\n", name)
		return nil
	case res.notFound == 1:
		return &exitError{code: exitNotFound, err: fmt.Errorf("%s not found", name)}
	}
	return failedf("%s", strings.Replace(res.refused[0], " refused", " not deleted", 1))
}

// reportDeleted reports the deletion of several objects: each refusal on
// stderr, then the counts on stdout.
func (a *app) reportDeleted(targets []sourcedObject, res deleteResult) error {
	for _, r := range res.refused {
		fmt.Fprintln(a.err, "berthctl:", strings.Replace(r, " refused", " not deleted", 1))
	}
	fmt.Fprintf(a.out, "%d deleted", res.deleted)
	if res.notFound > 0 {
		fmt.Fprintf(a.out, ", %d not found", res.notFound)
	}
	fmt.Fprintln(a.out)
	switch {
	case len(res.refused) == 0:
		return nil
	case len(res.refused) == res.notFound:
		return &exitError{code: exitNotFound, err: fmt.Errorf("%d of %d objects not found", res.notFound, len(targets))}
	}
	return failedf("%d of %d objects not deleted", len(res.refused), len(targets))
}

// parseKindNames reads "KIND NAME..." or "KIND NAMESPACE/NAME...": one
// kind, then one or more objects of it.
func parseKindNames(args []string) ([]convert.Ref, error) {
	if len(args) < 2 {
		return nil, usageErrorf("delete needs -f FILE or KIND NAME... (for example: delete pod default/web, delete node n1 n2)")
	}
	kind, ok := deleteKindOf(args[0])
	if !ok {
		return nil, usageErrorf("unknown kind %q: use pod, node, priorityclass, pdb, namespace, devicetaintrule, resourceflavor, clusterqueue, cohort, "+
			"localqueue, workloadpriorityclass or workload", args[0])
	}
	refs := make([]convert.Ref, 0, len(args)-1)
	for _, arg := range args[1:] {
		r, err := parseRef(kind, args[0], arg)
		if err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, nil
}

// parseRef reads one NAME or NAMESPACE/NAME of kind, spelt kindArg.
func parseRef(kind berthv1.ObjectKind, kindArg, arg string) (convert.Ref, error) {
	r := convert.Ref{Kind: kind, Name: arg}
	if convert.Namespaced(kind) {
		ns, name, err := parsePodName(arg)
		if err != nil {
			return convert.Ref{}, err
		}
		r.Namespace, r.Name = ns, name
	} else if strings.Contains(arg, "/") {
		return convert.Ref{}, usageErrorf("a %s has no namespace: %q", strings.ToLower(kindArg), arg)
	}
	if _, err := convert.RefFromProto(r.Proto()); err != nil {
		return convert.Ref{}, usageErrorf("%s %q: %v", kindArg, arg, err)
	}
	return r, nil
}

// parsePodName reads "namespace/name" or "name" (namespace "default").
func parsePodName(s string) (namespace, name string, err error) {
	ns, n, found := strings.Cut(s, "/")
	if !found {
		ns, n = "default", s
	}
	if ns == "" || n == "" || strings.Contains(n, "/") {
		return "", "", usageErrorf("%q is not NAMESPACE/NAME", s)
	}
	return ns, n, nil
}

// refObject is an object holding only a reference's identity, so a
// delete by name goes the way of a delete by manifest.
func refObject(r convert.Ref) convert.Object {
	switch r.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return convert.Object{Pod: &model.Pod{Namespace: r.Namespace, Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return convert.Object{Node: &model.Node{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return convert.Object{PriorityClass: &model.PriorityClass{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return convert.Object{PDB: &model.PodDisruptionBudget{Namespace: r.Namespace, Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:
		return convert.Object{DeviceTaintRule: &dra.DeviceTaintRule{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:
		return convert.Object{Queueing: &quota.ResourceFlavor{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:
		return convert.Object{Queueing: &quota.ClusterQueue{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_COHORT:
		return convert.Object{Queueing: &quota.Cohort{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:
		return convert.Object{Queueing: &quota.LocalQueue{Namespace: r.Namespace, Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS:
		return convert.Object{Queueing: &quota.WorkloadPriorityClass{Name: r.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		return convert.Object{Queueing: &quota.Workload{Namespace: r.Namespace, Name: r.Name}}
	}
	return convert.Object{Namespace: &model.Namespace{Name: r.Name}}
}
