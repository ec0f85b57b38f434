package adminsvc

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// simRequest is a validated SimulateRequest.
type simRequest struct {
	delta    []convert.Object
	removals []convert.Ref
	pods     []*model.Pod
}

func (s *Service) parseSimulate(req *berthv1.SimulateRequest) (*simRequest, error) {
	out := &simRequest{}
	for i, o := range req.GetClusterDelta() {
		obj, err := convert.ObjectFromProto(o)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_delta[%d]", i), err))
		}
		out.delta = append(out.delta, obj)
	}
	for i, r := range req.GetClusterRemovals() {
		ref, err := convert.RefFromProto(r)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_removals[%d]", i), err))
		}
		out.removals = append(out.removals, ref)
	}
	name := req.GetSchedulerName()
	if _, ok := s.admin.Profile(name); name != "" && !ok {
		//lint:ignore ST1005 Berth is a name
		return nil, errmap.Status(errmap.Field("scheduler_name", fmt.Errorf("Berth runs no profile %q: %w", name, errmap.ErrUnknownProfile)))
	}
	for i, p := range req.GetPods() {
		pod, err := convert.PodFromProto(p)
		if err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("pods[%d]", i), err))
		}
		if name != "" {
			pod.SchedulerName = name
		}
		out.pods = append(out.pods, pod)
	}
	return out, nil
}

// Simulate schedules pods with core/simulate on a copy of the cluster;
// nothing is committed. It only converts: the live cluster and the
// request in, the attempts out.
//
// It is bounded (SimulationLimits): the request's size is checked before
// anything is converted, it waits for one of Concurrency slots (as long as
// its caller waits), the run stops when the caller goes, when Timeout
// passes and when berthd stops, and attempts are converted as they are
// made, so that the run stops as soon as the attempts or the response's
// bytes go beyond their limits, holding no more than the response allowed.
func (s *Service) Simulate(ctx context.Context, req *berthv1.SimulateRequest) (*berthv1.SimulateResponse, error) {
	if s.opts.Registry == nil {
		return nil, errmap.Status(fmt.Errorf("Simulate needs a plugin registry: %w", errmap.ErrNotConfigured))
	}
	if err := s.limits.checkRequest(len(req.GetClusterDelta())+len(req.GetClusterRemovals()), len(req.GetPods())); err != nil {
		return nil, errmap.Status(err)
	}
	sr, err := s.parseSimulate(req)
	if err != nil {
		return nil, err
	}
	ctx, done := s.stoppable(ctx)
	defer done()
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, errmap.Status(err)
	}
	defer release()
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	resp, err := s.simulate(ctx, sr, req.GetSummary())
	if cause := context.Cause(ctx); cause != nil {
		// Whatever failed, it failed because the run was stopped.
		return nil, errmap.Status(cause)
	}
	return resp, err
}

// simulate runs a validated request within ctx; errors are statuses.
func (s *Service) simulate(ctx context.Context, sr *simRequest, summary bool) (*berthv1.SimulateResponse, error) {
	live, err := LiveCluster(s.admin, s.opts.Config)
	var engine *simulate.Engine
	if err == nil {
		engine, err = simulate.New(ctx, live, simulate.Options{Registry: s.opts.Registry, Logger: s.logger})
	}
	switch {
	case ctx.Err() != nil:
		return nil, errmap.Status(context.Cause(ctx))
	case err != nil:
		// The live cluster failed to copy: Berth's fault, whatever the
		// error says, so not wrapped.
		return nil, errmap.Status(fmt.Errorf("copying the cluster: %v", err))
	}
	for i, ref := range sr.removals {
		if ref.Kind == berthv1.ObjectKind_OBJECT_KIND_POD_GROUP || ref.Kind == berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP {
			continue
		}
		if err := engine.Remove(ctx, removal(ref)); err != nil {
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_removals[%d]", i), err))
		}
	}
	for i, o := range sr.delta {
		if o.PodGroup != nil || o.CompositePodGroup != nil {
			continue // simulation places a group's members as ordinary pods (docs/gang-scheduling.md)
		}
		obj := simulate.Object{Node: o.Node, Pod: o.Pod, PriorityClass: o.PriorityClass, PDB: o.PDB, Namespace: o.Namespace, Device: convert.DeviceObject(o), Volume: o.Volume}
		if err := engine.Upsert(ctx, obj); err != nil {
			if obj.Device != nil {
				// A DRA object's refusal names its field from the Object.
				return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_delta[%d]", i), convert.DeviceError(o.Kind(), err)))
			}
			return nil, errmap.Status(errmap.Field(fmt.Sprintf("cluster_delta[%d].%s", i, errmap.KindField(o.Kind())), err))
		}
	}
	nodes, err := engine.Nodes()
	if err != nil {
		return nil, errmap.Status(err)
	}
	resp := &berthv1.SimulateResponse{}
	b := budget{limits: s.limits}
	err = engine.ScheduleEach(ctx, sr.pods, func(a simulate.Attempt) error {
		att := convert.SimulateAttemptToProto(a, nodes)
		if summary {
			att.Nodes, att.TopNodes = nil, nil
		}
		// The attempt's bytes in the response: tag, length, message.
		n := proto.Size(att)
		if err := b.add(1+protowire.SizeVarint(uint64(n))+n, summary); err != nil {
			return err
		}
		resp.Attempts = append(resp.Attempts, att)
		return nil
	})
	if err != nil {
		return nil, errmap.Status(err)
	}
	return resp, nil
}

// LiveCluster is what the live scheduler holds, as a simulation's input
// (Simulate's copy, and berthd's placement-aware admission's): the pods
// it is binding (assumed) on their nodes, the pending ones with their
// nominations, every pod with the priority it was admitted with; cfg is
// the scheduler's configuration.
func LiveCluster(admin Admin, cfg *config.Config) (simulate.Input, error) {
	in := simulate.Input{
		Config: cfg, Nominations: admin.Nominations(),
		Namespaces: admin.Namespaces(), PDBs: admin.PDBs(),
		Devices: liveDevices(admin), Volumes: liveVolumes(admin),
	}
	for _, pc := range admin.PriorityClasses() {
		if !strings.HasPrefix(pc.Name, "system-") { // built in
			in.PriorityClasses = append(in.PriorityClasses, pc)
		}
	}
	nodes, err := admin.Nodes()
	if err != nil {
		return simulate.Input{}, err
	}
	for _, n := range nodes {
		in.Nodes = append(in.Nodes, n.Node)
	}
	for _, held := range admin.Pods() {
		p := admitted(held)
		if ex, err := admin.ExplainUID(p.UID); p.NodeName == "" && err == nil && ex.Phase == scheduler.PhaseBinding {
			p.NodeName = ex.Node
		}
		in.Pods = append(in.Pods, p)
	}
	return in, nil
}

// admitted is a copy of a pod the live scheduler holds, to add to the
// simulated one with the priority it was admitted with: by value, not by
// class name. A pod keeps its priority while its class changes or goes, as
// in Kubernetes, so the copy must not resolve the class again.
func admitted(held *model.Pod) *model.Pod {
	p := *held
	prio := held.Priority
	p.PriorityClassName, p.RequestedPriority = "", &prio
	return &p
}

// liveDevices copies the DRA objects the live scheduler holds, claims
// with their allocations (those in flight included) and consumers.
func liveDevices(admin Admin) *dra.Objects {
	objs := dra.NewObjects()
	for _, c := range admin.DeviceClasses() {
		objs.Classes[c.Name] = c
	}
	for _, sl := range admin.ResourceSlices() {
		objs.Slices[sl.Name] = sl
	}
	for _, t := range admin.ClaimTemplates() {
		objs.Templates[dra.Key(t.Namespace, t.Name)] = t
	}
	for _, c := range admin.Claims() {
		objs.Claims[dra.Key(c.Namespace, c.Name)] = c
	}
	for _, r := range admin.DeviceTaintRules() {
		objs.TaintRules[r.Name] = r
	}
	return objs
}

// removal is the object a reference removes, with only its identity.
func removal(ref convert.Ref) simulate.Object {
	if d := convert.DeviceRefObject(ref); d != nil {
		return simulate.Object{Device: d}
	}
	if v := convert.VolumeRefObject(ref); v != nil {
		return simulate.Object{Volume: v}
	}
	switch ref.Kind {
	case berthv1.ObjectKind_OBJECT_KIND_NODE:
		return simulate.Object{Node: &model.Node{Name: ref.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_POD:
		return simulate.Object{Pod: &model.Pod{Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID}}
	case berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:
		return simulate.Object{PriorityClass: &model.PriorityClass{Name: ref.Name}}
	case berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:
		return simulate.Object{PDB: &model.PodDisruptionBudget{Namespace: ref.Namespace, Name: ref.Name}}
	}
	return simulate.Object{Namespace: &model.Namespace{Name: ref.Name}}
}
