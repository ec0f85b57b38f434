package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
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
}

func (a *app) deleteCommand() *cobra.Command {
	var o deleteOptions
	cmd := &cobra.Command{
		Use:   "delete (-f FILE... | pod NAMESPACE/NAME | node NAME | priorityclass NAME | pdb NAMESPACE/NAME | namespace NAME)",
		Short: "Delete objects from berthd, by manifest or by name",
		Long: `delete removes objects from berthd through StateService.Delete: those of the
manifests given with -f (namespaces only when written as Namespace documents),
or one object named on the command line. A pod or disruption budget named
without a namespace is in "default".

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
	var targets []sourcedObject
	switch {
	case len(o.files) > 0 && len(args) > 0:
		return usageErrorf("delete takes -f or KIND NAME, not both")
	case len(o.files) > 0:
		objs, _, err := a.readObjects(o.files, false)
		if err != nil {
			return err
		}
		// Dependents first: pods before the classes and namespaces they name.
		slices.Reverse(objs)
		targets = objs
	default:
		ref, err := parseKindName(args)
		if err != nil {
			return err
		}
		targets = []sourcedObject{{obj: refObject(ref)}}
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	deleted, notFound := 0, 0
	var refused []string
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
			return c.err(ctx, err, "")
		}
		deleted += int(resp.GetDeleted())
		for _, e := range resp.GetErrors() {
			if e.GetCode() == berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
				notFound++
				if o.ignoreNotFound {
					continue
				}
			}
			refused = append(refused, describeRefusal(batch, e))
		}
	}
	if len(targets) == 1 {
		// One object: one line, on stdout when deleted, as the error if not.
		name := describeRef(targets[0].obj.Ref())
		switch {
		case len(refused) == 0 && deleted == 1:
			fmt.Fprintf(a.out, "%s deleted\n", name)
			return nil
		case len(refused) == 0: // not found, ignored
			fmt.Fprintf(a.out, "%s not found (ignored)\n", name)
			return nil
		case notFound == 1:
			return &exitError{code: exitNotFound, err: fmt.Errorf("%s not found", name)}
		}
		return failedf("%s", strings.Replace(refused[0], " refused", " not deleted", 1))
	}
	for _, r := range refused {
		fmt.Fprintln(a.err, "berthctl:", strings.Replace(r, " refused", " not deleted", 1))
	}
	fmt.Fprintf(a.out, "%d deleted", deleted)
	if notFound > 0 {
		fmt.Fprintf(a.out, ", %d not found", notFound)
	}
	fmt.Fprintln(a.out)
	switch {
	case len(refused) == 0:
		return nil
	case len(refused) == notFound:
		return &exitError{code: exitNotFound, err: fmt.Errorf("%d of %d objects not found", notFound, len(targets))}
	}
	return failedf("%d of %d objects not deleted", len(refused), len(targets))
}

// parseKindName reads "KIND NAME" or "KIND NAMESPACE/NAME".
func parseKindName(args []string) (convert.Ref, error) {
	if len(args) != 2 {
		return convert.Ref{}, usageErrorf("delete needs -f FILE or KIND NAME (for example: delete pod default/web, delete node n1)")
	}
	kind, ok := deleteKinds[strings.ToLower(args[0])]
	if !ok {
		return convert.Ref{}, usageErrorf("unknown kind %q: use pod, node, priorityclass, pdb or namespace", args[0])
	}
	r := convert.Ref{Kind: kind, Name: args[1]}
	if convert.Namespaced(kind) {
		ns, name, err := parsePodName(args[1])
		if err != nil {
			return convert.Ref{}, err
		}
		r.Namespace, r.Name = ns, name
	} else if strings.Contains(args[1], "/") {
		return convert.Ref{}, usageErrorf("a %s has no namespace: %q", strings.ToLower(args[0]), args[1])
	}
	if _, err := convert.RefFromProto(r.Proto()); err != nil {
		return convert.Ref{}, usageErrorf("%s %q: %v", args[0], args[1], err)
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
	}
	return convert.Object{Namespace: &model.Namespace{Name: r.Name}}
}
