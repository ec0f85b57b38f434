package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/server/convert"
)

// defaultBatchSize is how many mutations one Sync request or Delete call
// carries.
const defaultBatchSize = 500

type applyOptions struct {
	files     []string
	prune     bool
	batchSize int
}

func (a *app) applyCommand() *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:   "apply -f FILE... [--prune]",
		Short: "Create or replace the objects of Kubernetes manifests in berthd",
		Long: `apply reads Kubernetes manifests (as simulate does) and upserts their objects
into berthd through StateService.Sync, in batches. Objects berthd refuses are
listed on standard error with the file and document they come from, and
berthctl exits 1; the others are applied all the same.

Namespaces that pods only imply (not written as Namespace documents) are not
sent, so berthd's own copy of them is not overwritten. Documents that do not
affect scheduling are listed on standard error ("ignored: ..."), and so is a
KubeSchedulerConfiguration: berthd takes its configuration from
--scheduler-config when it starts, not through apply.

With --prune the manifests are the whole truth: they are sent as a full
re-list (resync markers), the implied namespaces included, and berthd deletes
every object it holds that is not in them. If any object is refused, the
re-list is abandoned and nothing is deleted.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.apply(cmd.Context(), &o)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.files, "filename", "f", nil, "manifest file, directory or - for standard input; repeatable")
	fs.BoolVar(&o.prune, "prune", false, "delete from berthd every object not in the manifests (full resync)")
	fs.IntVar(&o.batchSize, "batch-size", defaultBatchSize, "objects per Sync request")
	return cmd
}

// sourcedObject is an object of the manifests and where it was written.
type sourcedObject struct {
	obj    convert.Object
	origin string // "file: document N", or "" when only implied
}

// readObjects reads the -f files into objects with their origins; the
// documents that do not count, and those written in an outdated API, are
// reported on standard error.
func (a *app) readObjects(files []string, withImpliedNamespaces bool) ([]sourcedObject, *manifest.Cluster, error) {
	paths, err := manifestPaths(files)
	if err != nil {
		return nil, nil, err
	}
	srcs, err := readSources(paths, a.in)
	if err != nil {
		return nil, nil, err
	}
	c, err := loadCluster(srcs)
	if err != nil {
		return nil, nil, err
	}
	reportIgnored(a.err, c)
	reportWarnings(a.err, c)
	objs := append(clusterObjects(c, true), queueObjects(c)...)
	if !withImpliedNamespaces {
		objs = explicitNamespaces(objs, c)
	}
	out := make([]sourcedObject, len(objs))
	for i, o := range objs {
		out[i] = sourcedObject{obj: o, origin: originOf(c, o)}
	}
	return out, c, nil
}

func (a *app) apply(ctx context.Context, o *applyOptions) error {
	if o.batchSize <= 0 {
		return usageErrorf("--batch-size must be positive, got %d", o.batchSize)
	}
	objs, cluster, err := a.readObjects(o.files, o.prune)
	if err != nil {
		return err
	}
	if cluster.SchedulerConfig != nil {
		fmt.Fprintf(a.err, "berthctl: not sent: %s (KubeSchedulerConfiguration): berthd takes its scheduler configuration from --scheduler-config at start\n", cluster.SchedulerConfigAt)
	}
	if q := cluster.Queueing; q != nil && (q.Config.FairSharing || len(q.Config.PreemptionStrategies) > 0) {
		fmt.Fprintln(a.err, "berthctl: not sent: Kueue's Configuration (config.kueue.x-k8s.io): berthd takes it from its own configuration at start")
	}
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := syncOnLeader(ctx, c, objs, o.batchSize, o.prune)
	if err != nil {
		return c.err(ctx, err, "")
	}
	for _, e := range res.refused {
		fmt.Fprintln(a.err, "berthctl:", e)
	}
	fmt.Fprintf(a.out, "%d applied", res.applied)
	if len(res.refused) > 0 {
		fmt.Fprintf(a.out, ", %d refused", len(res.refused))
	}
	if o.prune {
		if len(res.refused) > 0 {
			fmt.Fprint(a.out, ", nothing pruned (the re-list was abandoned)")
		} else {
			fmt.Fprintf(a.out, ", %d pruned", res.pruned)
		}
	}
	fmt.Fprintln(a.out)
	if len(res.refused) > 0 {
		return failedf("%d of %d objects refused", len(res.refused), len(objs))
	}
	return nil
}

// syncResult is what berthd made of a Sync.
type syncResult struct {
	applied int
	pruned  int
	refused []string // one sentence per refused object
}

// syncOnLeader runs syncObjects until the leader takes it, within one
// --timeout: a follower refuses the stream before applying anything, and
// what a replica that broke had applied is upserted again (so is a
// re-list, whole).
func syncOnLeader(ctx context.Context, c *client, objs []sourcedObject, batchSize int, prune bool) (*syncResult, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	var tries replicaTries
	for {
		res, err := syncObjects(ctx, c, objs, batchSize, prune)
		if err == nil || !c.anotherReplica(ctx, err, &tries) {
			return res, err
		}
	}
}

// syncObjects sends objs in batches on one Sync stream, with resync
// markers when prune is set, and collects the acknowledgements. Acks are
// read while sending, so a large input cannot stall the stream.
func syncObjects(ctx context.Context, c *client, objs []sourcedObject, batchSize int, prune bool) (*syncResult, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	stream, err := c.state.Sync(ctx)
	if err != nil {
		return nil, err
	}
	var batches [][]sourcedObject
	for start := 0; start < len(objs); start += batchSize {
		batches = append(batches, objs[start:min(start+batchSize, len(objs))])
	}
	if len(batches) == 0 {
		batches = [][]sourcedObject{nil} // a re-list of nothing still brackets
	}
	acks := make(chan ackOrErr, len(batches)+1)
	go func() {
		for {
			resp, err := stream.Recv()
			acks <- ackOrErr{resp, err}
			if err != nil {
				return
			}
		}
	}()
	res := &syncResult{}
	for i, b := range batches {
		req := &berthv1.SyncRequest{BatchId: uint64(i + 1)}
		if prune && i == 0 {
			req.Resync = berthv1.Resync_RESYNC_BEGIN
		}
		for _, o := range b {
			req.Mutations = append(req.Mutations, &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: convert.ObjectToProto(o.obj)}})
		}
		if err := stream.Send(req); err != nil {
			return nil, recvError(acks, err)
		}
	}
	for i, b := range batches {
		ack := <-acks
		if ack.err != nil {
			return nil, unexpectedEOF(ack.err)
		}
		if ack.resp.GetBatchId() != uint64(i+1) {
			return nil, fmt.Errorf("berthd acknowledged batch %d, expected %d", ack.resp.GetBatchId(), i+1)
		}
		res.applied += int(ack.resp.GetApplied())
		for _, e := range ack.resp.GetErrors() {
			res.refused = append(res.refused, describeRefusal(b, e))
		}
	}
	if prune && len(res.refused) == 0 {
		end := &berthv1.SyncRequest{BatchId: uint64(len(batches) + 1), Resync: berthv1.Resync_RESYNC_END}
		if err := stream.Send(end); err != nil {
			return nil, recvError(acks, err)
		}
		ack := <-acks
		if ack.err != nil {
			return nil, unexpectedEOF(ack.err)
		}
		res.pruned = int(ack.resp.GetResyncDeleted())
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	// Wait for the server to end the stream cleanly.
	if ack := <-acks; ack.err != nil && !errors.Is(ack.err, io.EOF) {
		return nil, ack.err
	}
	return res, nil
}

type ackOrErr struct {
	resp *berthv1.SyncResponse
	err  error
}

// recvError is the stream's real error after a failed Send (Send returns
// io.EOF and the status comes with Recv).
func recvError(acks <-chan ackOrErr, sendErr error) error {
	if !errors.Is(sendErr, io.EOF) {
		return sendErr
	}
	for ack := range acks {
		if ack.err != nil {
			return unexpectedEOF(ack.err)
		}
	}
	return sendErr
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("berthd closed the Sync stream before acknowledging every batch")
	}
	return err
}

// describeRefusal says which object of a batch was refused and why, with
// its file and document.
func describeRefusal(batch []sourcedObject, e *berthv1.ObjectError) string {
	var b strings.Builder
	i := int(e.GetIndex())
	if i < len(batch) {
		o := batch[i]
		if o.origin != "" {
			fmt.Fprintf(&b, "%s: ", o.origin)
		}
		b.WriteString(describeRef(o.obj.Ref()))
	} else {
		b.WriteString(describeWireRef(e.GetRef()))
	}
	b.WriteString(" refused")
	if p := e.GetFieldPath(); p != "" {
		fmt.Fprintf(&b, ": %s", p)
	}
	fmt.Fprintf(&b, ": %s (%s)", e.GetMessage(), errorCodeName(e.GetCode()))
	return b.String()
}

// describeRef names an object for people: "Pod default/web", "Node n1".
func describeRef(r convert.Ref) string {
	return kindName(r.Kind) + " " + r.Key()
}

func describeWireRef(r *berthv1.ObjectRef) string {
	if r == nil {
		return "object"
	}
	key := r.GetName()
	if convert.Namespaced(r.GetKind()) {
		key = r.GetNamespace() + "/" + key
	}
	return kindName(r.GetKind()) + " " + key
}

func kindName(k berthv1.ObjectKind) string {
	switch k {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return "Node"
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return "Pod"
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return "PriorityClass"
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return "PodDisruptionBudget"
	case berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:
		return "Namespace"
	case berthv1.ObjectKind_OBJECT_KIND_POD_GROUP:
		return "PodGroup"
	case berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP:
		return "CompositePodGroup"
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:
		return "DeviceTaintRule"
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:
		return "ResourceFlavor"
	case berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:
		return "ClusterQueue"
	case berthv1.ObjectKind_OBJECT_KIND_COHORT:
		return "Cohort"
	case berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:
		return "LocalQueue"
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS:
		return "WorkloadPriorityClass"
	case berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		return "Workload"
	}
	return "object"
}

// errorCodeName is an ErrorCode without its prefix: "INVALID_ARGUMENT".
func errorCodeName(c berthv1.ErrorCode) string {
	return strings.TrimPrefix(c.String(), "ERROR_CODE_")
}
