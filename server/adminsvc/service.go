package adminsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// Admin is the live scheduler as the admin service reads it;
// scheduler.View, its read side, satisfies it.
type Admin interface {
	Explain(namespace, name string) (scheduler.Explanation, error)
	ExplainUID(uid string) (scheduler.Explanation, error)
	Pod(uid string) (*model.Pod, bool)
	// Pods lists every pod held, sorted by namespace/name.
	Pods() []*model.Pod
	Nodes() ([]scheduler.NodeUsage, error)
	Nominations() []queue.Nomination
	PriorityClasses() []*model.PriorityClass
	// PDBs and Namespaces (those sent, not only implied by pods) are
	// copied into Simulate's cluster.
	PDBs() []*model.PodDisruptionBudget
	Namespaces() []*model.Namespace
	Profile(schedulerName string) (framework.Framework, bool)
	// The DRA objects held (ListDeviceObjects, and Simulate's copy):
	// classes and slices by name, templates and claims (with their
	// allocations and consumers) by namespace/name.
	DeviceClasses() []*resourceapi.DeviceClass
	ResourceSlices() []*resourceapi.ResourceSlice
	ClaimTemplates() []*resourceapi.ResourceClaimTemplate
	Claims() []*resourceapi.ResourceClaim
	DeviceTaintRules() []*dra.DeviceTaintRule
	// The storage objects held (ListVolumeObjects, and Simulate's copy),
	// by namespace/name.
	PersistentVolumes() []*corev1.PersistentVolume
	PersistentVolumeClaims() []*corev1.PersistentVolumeClaim
	StorageClasses() []*storagev1.StorageClass
	CSINodes() []*storagev1.CSINode
	CSIDrivers() []*storagev1.CSIDriver
	CSIStorageCapacities() []*storagev1.CSIStorageCapacity
}

// Revisions tells the revisions of decisions; the decision log knows them.
type Revisions interface {
	// BindRevision is the revision of the pod's last Bind decision.
	BindRevision(podUID string) (uint64, bool)
	// NominationRevision is the revision of the pod's last Nominate.
	NominationRevision(podUID string) (uint64, bool)
	// Eviction is the pod's Evict awaiting its deletion, if any.
	Eviction(podUID string) (*berthv1.Evict, bool)
	// BindAwaiting reports whether the pod's last Bind decision awaits its
	// outcome: no confirmation (the pod seen with its node, or a CONFIRMED
	// report), failure or deletion has come since. After a restart the
	// scheduler holds such a pod on its node as if bound; it is binding.
	BindAwaiting(podUID string) bool
}

// Options configure a Service.
type Options struct {
	// Config and Registry are the live scheduler's configuration (nil:
	// config.Default()) and plugin registry; Simulate builds its copy from
	// them. Without a Registry, Simulate answers UNIMPLEMENTED.
	Config   *config.Config
	Registry runtime.Registry
	// Revisions, if set, fills bind and nomination revisions.
	Revisions Revisions
	// Attempts, if set, gives QueueStats its attempt counts.
	Attempts *Counter
	// Logger defaults to discarding.
	Logger *slog.Logger
	// Version is the server's build, for ServerInfo.
	Version string
	// Startup, if set, tells ServerInfo whether the server waits for its
	// first re-list after a restart; nil: never.
	Startup Startup
	// Replica, if set, tells ServerInfo the server's role in an etcd
	// group (server/replica); nil: berthd runs alone.
	Replica Replica
	// Simulation bounds Simulate; nil means DefaultSimulationLimits().
	Simulation *SimulationLimits
	// Stopping, if set, ends when berthd stops: simulations in flight
	// stop then, rather than hold the graceful stop up.
	Stopping context.Context
	// Descheduler runs Deschedule; nil: berthd runs no descheduler policy.
	Descheduler Descheduler
	// QueueObjects lists the queueing objects held (ListQueueObjects);
	// nil: ListQueueObjects answers UNIMPLEMENTED.
	QueueObjects ObjectLister
	// QueueStatus, if set, gives ListQueueObjects the admission
	// controller's status of ClusterQueues and workloads; nil: only the
	// objects are listed.
	QueueStatus QueueStatus
	// Admission, if set, tells QueueStats whether an admission round is
	// pending; nil: never.
	Admission AdmissionProgress
}

// AdmissionProgress is whether the admission controller still has work:
// changes applied before the call (once the object store's subscribers
// took them) that no admission round has run over yet.
type AdmissionProgress interface {
	RoundPending(ctx context.Context) (bool, error)
}

// Service implements berthv1.AdminServiceServer.
type Service struct {
	berthv1.UnimplementedAdminServiceServer
	admin  Admin
	opts   Options
	logger *slog.Logger
	// limits bound Simulate; slots (nil: no limit) holds one token per
	// simulation in flight.
	limits SimulationLimits
	slots  chan struct{}
}

var _ berthv1.AdminServiceServer = (*Service)(nil)

// New returns a Service reading admin.
func New(admin Admin, opts Options) *Service {
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	limits := DefaultSimulationLimits()
	if opts.Simulation != nil {
		limits = *opts.Simulation
	}
	svc := &Service{admin: admin, opts: opts, logger: logger, limits: limits}
	if limits.Concurrency > 0 {
		svc.slots = make(chan struct{}, limits.Concurrency)
	}
	return svc
}

// Explain tells where a pod stands.
func (s *Service) Explain(_ context.Context, req *berthv1.ExplainRequest) (*berthv1.ExplainResponse, error) {
	ns, name, uid, err := convert.PodRefFromProto(req.GetPod(), false)
	if err != nil {
		return nil, errmap.Status(errmap.Field("pod", err))
	}
	ex, err := s.admin.Explain(ns, name)
	ex = s.withBind(ex)
	switch {
	case errors.Is(err, scheduler.ErrNotFound), err == nil && uid != "" && ex.Pod.UID != uid:
		//lint:ignore ST1005 Berth is a name
		return nil, errmap.Status(fmt.Errorf("Berth holds no pod %s/%s%s: %w", ns, name, uidSuffix(uid), scheduler.ErrPodNotFound))
	case err != nil:
		return nil, errmap.Status(err)
	}
	pod := ex.Pod
	resp := &berthv1.ExplainResponse{
		Pod:             convert.PodRefOf(pod),
		SchedulerName:   pod.SchedulerName,
		Priority:        pod.Priority,
		State:           queueState(ex),
		Attempts:        uint32(ex.Queue.Attempts),
		NominatedNode:   ex.Queue.NominatedNode,
		EnqueuedTime:    timestamp(ex.Queued),
		LastBindFailure: ex.LastBindFailure,
		GatingMessage:   ex.Queue.GatingMessage,
	}
	if s.opts.QueueStatus != nil {
		resp.Workload = s.opts.QueueStatus.PodWorkload(pod.Namespace, pod.Name)
	}
	if g := ex.Group; g != nil {
		resp.PodGroup = &berthv1.PodGroupStatus{Name: g.Name, Exists: g.Exists, MinCount: g.MinCount,
			Members: int32(g.Members), Placed: int32(g.Placed)}
	}
	if s.opts.Revisions != nil {
		if ev, ok := s.opts.Revisions.Eviction(pod.UID); ok {
			resp.Eviction = ev
		}
	}
	if resp.State == berthv1.QueueState_QUEUE_STATE_BACKOFF {
		resp.BackoffUntil = timestamp(ex.Queue.BackoffUntil)
	}
	switch ex.Phase {
	case scheduler.PhaseBinding:
		resp.Node, resp.BindRevision = ex.Node, s.bindRevision(pod.UID)
	case scheduler.PhaseBound:
		resp.Node = ex.Node
	}
	plugins := append(slices.Clone(ex.Queue.UnschedulablePlugins), ex.Queue.PendingPlugins...)
	if d := ex.Diagnosis; d != nil {
		resp.LastDiagnosis = s.diagnosis(d)
		resp.LastAttemptTime = timestamppb.New(d.At)
		if len(plugins) == 0 {
			plugins = append(slices.Clone(d.UnschedulablePlugins), d.PendingPlugins...)
		}
	}
	slices.Sort(plugins)
	resp.RejectingPlugins = slices.Compact(plugins)
	resp.DeviceReasons = deviceReasons(ex.Devices)
	resp.Requests = podRequests(pod)
	resp.Shortfalls = s.shortfalls(resp.Requests, resp.GetLastDiagnosis().GetNodeReasons())
	return resp, nil
}

// deviceReasons is Explanation.Devices on the wire, sorted by node: a map
// has no order and the API promises one.
func deviceReasons(devices map[string][]string) []*berthv1.NodeDeviceReasons {
	var out []*berthv1.NodeDeviceReasons
	for _, node := range slices.Sorted(maps.Keys(devices)) {
		out = append(out, &berthv1.NodeDeviceReasons{Node: node, Reasons: slices.Clone(devices[node])})
	}
	return out
}

// diagnosis is a failed attempt as an Unschedulable: the nodes with their
// own reasons, and every other node with the reasons shared by the rest.
func (s *Service) diagnosis(d *scheduler.Diagnosis) *berthv1.Unschedulable {
	out := &berthv1.Unschedulable{Message: d.Message}
	listed := map[string]bool{}
	for _, n := range d.Nodes {
		listed[n.Node] = true
		out.NodeReasons = append(out.NodeReasons, &berthv1.NodeReasons{Node: n.Node, Reasons: slices.Clone(n.Reasons), Unresolvable: n.Unresolvable})
	}
	if len(d.OtherReasons) > 0 && !d.Truncated {
		nodes, err := s.admin.Nodes()
		if err != nil {
			s.logger.Error("explain: listing nodes failed", "err", err)
		}
		for _, n := range nodes {
			if !listed[n.Node.Name] {
				// Nodes ruled out before Filter (a PreFilter rejection):
				// evicting pods does not change that.
				out.NodeReasons = append(out.NodeReasons, &berthv1.NodeReasons{Node: n.Node.Name, Reasons: slices.Clone(d.OtherReasons), Unresolvable: true})
			}
		}
	}
	slices.SortFunc(out.NodeReasons, func(a, b *berthv1.NodeReasons) int { return strings.Compare(a.Node, b.Node) })
	return out
}

func (s *Service) bindAwaiting(uid string) bool {
	return s.opts.Revisions != nil && s.opts.Revisions.BindAwaiting(uid)
}

func (s *Service) bindRevision(uid string) uint64 {
	if s.opts.Revisions == nil {
		return 0
	}
	rev, _ := s.opts.Revisions.BindRevision(uid)
	return rev
}

// withBind makes a pod the scheduler holds as bound binding while its
// Bind awaits its outcome (restored after a restart: see BindAwaiting).
func (s *Service) withBind(ex scheduler.Explanation) scheduler.Explanation {
	if ex.Phase == scheduler.PhaseBound && ex.Pod != nil && s.bindAwaiting(ex.Pod.UID) {
		ex.Phase = scheduler.PhaseBinding
	}
	return ex
}

// queueState maps the scheduler's view of a pod to the API's QueueState.
func queueState(ex scheduler.Explanation) berthv1.QueueState {
	switch ex.Phase {
	case scheduler.PhaseBinding:
		return berthv1.QueueState_QUEUE_STATE_BINDING
	case scheduler.PhaseBound:
		return berthv1.QueueState_QUEUE_STATE_BOUND
	case scheduler.PhaseIgnored:
		return berthv1.QueueState_QUEUE_STATE_IGNORED
	}
	switch ex.Queue.SubQueue {
	case queue.Active:
		return berthv1.QueueState_QUEUE_STATE_ACTIVE
	case queue.Backoff:
		return berthv1.QueueState_QUEUE_STATE_BACKOFF
	case queue.Unschedulable:
		return berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE
	case queue.Gated:
		return berthv1.QueueState_QUEUE_STATE_GATED
	case queue.InFlight:
		return berthv1.QueueState_QUEUE_STATE_SCHEDULING
	}
	return berthv1.QueueState_QUEUE_STATE_UNSPECIFIED
}

// stateOf is the QueueState of a pod listed by Admin.Pods.
func (s *Service) stateOf(pod *model.Pod) (berthv1.QueueState, scheduler.Explanation, bool) {
	if pod.NodeName != "" {
		ex := s.withBind(scheduler.Explanation{Pod: pod, Phase: scheduler.PhaseBound, Node: pod.NodeName})
		return queueState(ex), ex, true
	}
	ex, err := s.admin.ExplainUID(pod.UID)
	if err != nil {
		return 0, ex, false // deleted meanwhile
	}
	return queueState(ex), ex, true
}

// QueueStats counts the pods in each state and the attempts made.
func (s *Service) QueueStats(ctx context.Context, req *berthv1.QueueStatsRequest) (*berthv1.QueueStatsResponse, error) {
	pods := s.admin.Pods()
	if name := req.GetSchedulerName(); name != "" && !s.knownSchedulerName(name, pods) {
		return nil, errmap.Status(errmap.Field("scheduler_name",
			//lint:ignore ST1005 Berth is a name
			fmt.Errorf("Berth runs no profile %q and holds no pod naming it: %w", name, scheduler.ErrNotFound)))
	}
	resp := &berthv1.QueueStatsResponse{}
	if s.opts.Admission != nil {
		// Before the pods are counted: a round that ends after this
		// check can only have released pods the counts below see.
		pending, err := s.opts.Admission.RoundPending(ctx)
		if err != nil {
			return nil, errmap.Status(fmt.Errorf("waiting for the object store's controllers: %w", err))
		}
		resp.AdmissionRoundPending = pending
	}
	pods = s.admin.Pods()
	counters := map[berthv1.QueueState]*uint32{
		berthv1.QueueState_QUEUE_STATE_ACTIVE:        &resp.Active,
		berthv1.QueueState_QUEUE_STATE_BACKOFF:       &resp.Backoff,
		berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE: &resp.Unschedulable,
		berthv1.QueueState_QUEUE_STATE_GATED:         &resp.Gated,
		berthv1.QueueState_QUEUE_STATE_SCHEDULING:    &resp.InFlight,
		berthv1.QueueState_QUEUE_STATE_BINDING:       &resp.Binding,
		berthv1.QueueState_QUEUE_STATE_BOUND:         &resp.Bound,
		berthv1.QueueState_QUEUE_STATE_IGNORED:       &resp.Ignored,
	}
	for _, pod := range pods {
		if req.GetSchedulerName() != "" && pod.SchedulerName != req.GetSchedulerName() {
			continue
		}
		st, _, ok := s.stateOf(pod)
		if !ok {
			continue
		}
		if c := counters[st]; c != nil {
			*c++
		}
	}
	if s.opts.Attempts != nil {
		a := s.opts.Attempts.Attempts(req.GetSchedulerName())
		resp.AttemptsScheduled, resp.AttemptsUnschedulable, resp.AttemptsError = a.Scheduled, a.Unschedulable, a.Error
	}
	return resp, nil
}

// knownSchedulerName tells whether a profile runs name or a pod names it.
func (s *Service) knownSchedulerName(name string, pods []*model.Pod) bool {
	if _, ok := s.admin.Profile(name); ok {
		return true
	}
	return slices.ContainsFunc(pods, func(p *model.Pod) bool { return p.SchedulerName == name })
}

// timestamp is t on the wire; nil for the zero time.
func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func uidSuffix(uid string) string {
	if uid == "" {
		return ""
	}
	return " with uid " + uid
}
