package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/berthsched/berth/core/cache"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/podadmission"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/volume"
)

// Errors returned by the scheduler; match them with errors.Is. Admission
// failures wrap *priority.UnknownClassError (match with errors.As).
var (
	ErrInvalid        = errors.New("invalid object")
	ErrNotFound       = errors.New("not found")
	ErrPodNotFound    = fmt.Errorf("pod %w", ErrNotFound)
	ErrNodeNotFound   = fmt.Errorf("node %w", ErrNotFound)
	ErrPodNotPending  = errors.New("pod is not pending")
	ErrNoBindInFlight = errors.New("no bind in flight")
)

// ErrPodBound: an upsert would make a bound pod pending again.
var ErrPodBound = errors.New("pod is bound")

// Metrics receives the scheduler's measurements; the server plugs
// Prometheus in with kube-scheduler's metric names. Implementations must be
// cheap and safe for concurrent use.
type Metrics interface {
	// ObserveAttempt records one scheduling attempt: result is "scheduled",
	// "unschedulable" or "error" (kube's scheduler_schedule_attempts_total
	// and scheduler_scheduling_attempt_duration_seconds).
	ObserveAttempt(profile, result string, d time.Duration)
	// ObservePostFilter records one run of PostFilter (preemption):
	// whether it nominated a node, and how many victims it evicted.
	ObservePostFilter(profile string, nominated bool, victims int)
	// ObservePodScheduled records a pod bound: the time from when it was
	// first queued to when its Bind was issued (made durable, with
	// berthd's decision log), and the attempts it took (kube's
	// scheduler_pod_scheduling_sli_duration_seconds).
	ObservePodScheduled(profile string, attempts int, d time.Duration)
	runtime.Metrics
}

// Options configure a Scheduler.
type Options struct {
	// Config is the scheduler configuration; nil means config.Default().
	Config *config.Config
	// Registry holds the factories of the plugins the profiles name.
	Registry runtime.Registry
	// Decisions receives every decision as a plan: Binds (through the
	// DefaultBinder), Evicts, Nominates, ClearNominations, deallocations
	// and Unschedulable reports. Required.
	Decisions framework.Planner
	// GroupDecisions gathers the decisions of a failed attempt (a
	// preemption's Evicts and ClearNominations, the pod's Nominate, its
	// Unschedulable report) into one plan submitted when the attempt ends,
	// and submits the Binds of a pod group's members as one plan instead of
	// one by one through the Bind plugins: berthd's decision log commits
	// each plan at once. Without it every decision is its own plan, applied
	// as it is made (the simulator).
	GroupDecisions bool
	// Clock is the time source; tests inject a fake. Default: real time.
	Clock framework.Clock
	// Logger defaults to discarding.
	Logger *slog.Logger
	// Deterministic breaks ties between top-scoring nodes by the smallest
	// node name instead of at random, and runs plugins with parallelism 1,
	// so a run can be replayed exactly.
	Deterministic bool
	// Rand picks among top-scoring nodes when not Deterministic; nil seeds
	// one from the runtime's random source.
	Rand *rand.Rand
	// Metrics, if set, receives measurements.
	Metrics Metrics
	// PercentageOfNodesToScore, if set, overrides the configuration's
	// global percentage (a profile's own value still wins, as in kube).
	PercentageOfNodesToScore *int32
	// MaxDiagnosisNodes bounds the per-node reasons kept per pending pod
	// for Explain. Default 100.
	MaxDiagnosisNodes int
	// Replay holds the switches of drivers that replay a run step by
	// step; berthd leaves it zero.
	Replay Replay
	// Queue tunes the scheduling queue; the backoff durations default to
	// the configuration's. Clock, Logger, plugins, hints, Namespaces and
	// PodLookup are set by the scheduler.
	Queue queue.Options
	// Admission configures the admission of pods and pod groups, the
	// pod and PodGroup kinds' admission stage (core/podadmission).
	Admission podadmission.Options
}

// Replay holds the switches of drivers that replay a run step by step and
// report it (core/simulate, the parity and unit tests). None changes a
// decision: they change when work runs and what an Attempt reports.
type Replay struct {
	// BindInline runs the binding cycle on the scheduling goroutine
	// instead of concurrently, so that an attempt ends with its bind.
	BindInline bool
	// ScoreSingleNode scores a lone feasible node anyway, on a copy of the
	// cycle state, so the attempt reports its scores (kube does not score
	// it; simulate reports the scores).
	ScoreSingleNode bool
	// NoResultMemo makes every plugin run on every node for every pod,
	// instead of reusing node-local plugin results for pods with the same
	// signature (see core/framework/runtime); tests compare the two.
	NoResultMemo bool
	// NoIncrementalIndexes makes plugins rebuild their cross-node state
	// from every node for every pod instead of updating indexes by deltas
	// (see framework.Handle.IncrementalIndexes), and turns off the domain
	// walk (domainwalk.go), so every visited node is filtered as in kube;
	// tests compare the two.
	NoIncrementalIndexes bool
	// NoPreemptionMemo makes preemption dry-run every candidate node and
	// filter every node with its nominated pods added, as kube does,
	// instead of reusing those outcomes while their inputs are unchanged
	// (see framework.Handle.LocalMemo, core/preemption); tests compare the
	// two.
	NoPreemptionMemo bool
	// NoScoreCarry makes scoring read each feasible node's remembered
	// scores from the node instead of from the copy the filter pass made
	// (see framework.CarriedScores); tests compare the two.
	NoScoreCarry bool
	// NoDevicePrecheck sends every node to the DRA allocator, as kube
	// does, instead of ruling out first the nodes where a pod's claims
	// surely do not fit (see core/dra precheck.go); tests compare the two.
	NoDevicePrecheck bool
	// NoDeviceSliceFilter hands the DRA allocator every slice as it is,
	// with the claims' selectors, as kube does, instead of the slices
	// without the devices no request of the pod matches (see core/dra
	// filter.go); tests compare the two.
	NoDeviceSliceFilter bool
	// NoDeviceNodeMemo runs the DRA allocator on every node it is asked
	// about, as kube does, instead of giving again its answer for claims
	// of the same specs on a node whose devices did not change (see core/dra
	// nodememo.go); tests compare the two.
	NoDeviceNodeMemo bool
}

// Scheduler is kube-scheduler's scheduling loop over Berth's cache and
// queue: state comes in through its kinds (Upsert, Delete) (safe for concurrent
// use with Run), admitted by their admission stage (kinds.go,
// core/podadmission) and kept in the cluster state (state.go), and
// decisions go out through Options.Decisions. View is its read side.
//
// Locks: ingestMu serializes the state-in calls; cycleMu is held by the
// scheduling cycle (one at a time). The cycle takes ingestMu only to mark
// the victims it evicted (markEvicted), so the order is cycleMu, then
// ingestMu; the state-in calls never take cycleMu (Hold waits for cycleMu
// but holds nothing meanwhile; the gate's lock is a leaf). Both call the
// queue (its lock, then the nominator's, then state.mu through the
// queue's PodLookup) and the cache (a leaf lock). state.mu (state.go) is a leaf
// but for bindsMu, which is taken under it and is a leaf itself: nothing
// else is called while holding either. Binding cycles take neither
// ingestMu nor cycleMu.
type Scheduler struct {
	opts      Options
	cfg       *config.Config
	logger    *slog.Logger
	clock     framework.Clock
	cache     *cache.Cache
	queue     *queue.PriorityQueue
	profiles  map[string]framework.Framework
	decisions *planner

	// ingestMu serializes the state-in calls; it guards batch.
	ingestMu sync.Mutex
	batch    batch

	// gate holds the loop back while state that must be seen whole is
	// applied (Hold).
	gate gate

	// cycleMu is held by the scheduling cycle; what follows is its state.
	cycleMu                  sync.Mutex
	snapshot                 *cache.Snapshot
	nextStartNodeIndex       int
	percentageOfNodesToScore int32
	rand                     *rand.Rand
	// Working memory of lean cycles, reused from one to the next.
	feasibleBuf []*framework.NodeInfo
	statusBuf   []*framework.Status
	scoreBuf    framework.ScoreBuffers
	// carryBuf holds what filterInOrder copied from the feasible nodes'
	// memo entries; carried is its part that matches feasibleBuf in this
	// cycle (nil when the nodes were found another way).
	carryBuf  []framework.CarriedScores
	carried   []framework.CarriedScores
	cursorBuf []cursor
	// domainOrders index the snapshot's nodes by topology key for the
	// domain walk (domainwalk.go); used by the scheduling goroutine only.
	domainOrders map[string]*domainOrder
	// domainWalks counts the cycles that took the domain walk (tests).
	domainWalks int

	// admission admits pods and pod groups and holds the priority
	// classes (core/podadmission); its lock is a leaf.
	admission *podadmission.Admission
	// state is what the caller sent, admitted (state.go).
	state *clusterState
	// groups are the pod groups and their members (gang.go).
	groups *gang.Registry
	// devices is the DRA state (devices.go), validator checks what comes
	// in for it.
	devices   *dra.Tracker
	validator *dra.Validator
	// volumes is the storage state (volumes.go).
	volumes *volume.Tracker
	// kinds are the kinds of object held, each with its state-in call
	// (kinds.go); built once in New.
	kinds *objstore.Registry

	// attemptsMu guards bindAttempts, each binding pod's attempt count
	// (the queue forgets the pod while it binds; Explain shows it). It is
	// a leaf: the scheduling goroutine writes here once per pod instead of
	// taking state.mu for writing, which would stall the binding
	// goroutines reading under state.mu and, woken all
	// at once, crowd the scheduling goroutine off the CPU.
	attemptsMu   sync.Mutex
	bindAttempts map[string]int

	// bindsMu guards binds, the binds issued and awaiting an outcome. It
	// is a leaf, taken after state.mu when both are held.
	bindsMu sync.Mutex
	binds   map[string]*binding

	bindWG sync.WaitGroup
}

// New builds a scheduler: one framework per profile of the configuration,
// the queue ordered by the first profile's QueueSort plugin, an empty
// cache.
func New(ctx context.Context, opts Options) (*Scheduler, error) {
	if opts.Decisions == nil {
		return nil, fmt.Errorf("scheduler: Options.Decisions is required: %w", ErrInvalid)
	}
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	if len(opts.Config.Profiles) == 0 {
		return nil, fmt.Errorf("scheduler: the configuration has no profile: %w", ErrInvalid)
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxDiagnosisNodes <= 0 {
		opts.MaxDiagnosisNodes = 100
	}
	s := &Scheduler{
		opts:         opts,
		cfg:          opts.Config,
		logger:       opts.Logger,
		clock:        opts.Clock,
		cache:        cache.New(),
		profiles:     make(map[string]framework.Framework),
		snapshot:     cache.NewEmptySnapshot(),
		admission:    podadmission.New(opts.Admission),
		state:        newClusterState(),
		groups:       gang.NewRegistry(),
		devices:      newTracker(opts.Replay),
		validator:    dra.NewValidator(),
		volumes:      volume.NewTracker(),
		binds:        make(map[string]*binding),
		bindAttempts: make(map[string]int),
		rand:         opts.Rand,
	}
	s.decisions = &planner{next: opts.Decisions, s: s}
	s.scoreBuf.TotalsOnly = true
	if p := opts.Config.PercentageOfNodesToScore; p != nil {
		s.percentageOfNodesToScore = *p
	}
	if opts.PercentageOfNodesToScore != nil {
		s.percentageOfNodesToScore = *opts.PercentageOfNodesToScore
	}
	if s.rand == nil {
		s.rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if err := s.buildProfiles(ctx); err != nil {
		return nil, err
	}
	if err := s.buildQueue(ctx); err != nil {
		return nil, err
	}
	if err := s.buildKinds(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Scheduler) buildProfiles(ctx context.Context) error {
	parallelism := int(s.cfg.Parallelism)
	if s.opts.Deterministic {
		parallelism = 1
	}
	common := []runtime.Option{
		runtime.WithSnapshotLister(s.snapshot),
		runtime.WithPodNominator(lazyNominator{s}),
		runtime.WithNamespaceLister(s.state.namespaces),
		runtime.WithPDBLister(s.state.pdbs),
		runtime.WithDecisions(s.decisions),
		runtime.WithClock(s.clock),
		runtime.WithLogger(s.logger),
		runtime.WithParallelism(parallelism),
		runtime.WithWaitingPods(runtime.NewWaitingPods()),
		runtime.WithDeterministic(s.opts.Deterministic),
		runtime.WithDevices(s.devices),
		runtime.WithVolumes(s.volumes),
	}
	if s.opts.Replay.NoResultMemo {
		common = append(common, runtime.WithoutResultMemo())
	}
	if s.opts.Replay.NoIncrementalIndexes {
		common = append(common, runtime.WithoutIncrementalIndexes())
	}
	if s.opts.Replay.NoPreemptionMemo {
		common = append(common, runtime.WithoutPreemptionMemo())
	}
	if s.opts.Replay.NoScoreCarry {
		common = append(common, runtime.WithoutScoreCarry())
	}
	if s.opts.Metrics != nil {
		common = append(common, runtime.WithMetrics(s.opts.Metrics))
	}
	for _, p := range s.cfg.Profiles {
		f, err := runtime.New(ctx, s.opts.Registry, p, common...)
		if err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
		s.profiles[p.SchedulerName] = f
	}
	return nil
}

func (s *Scheduler) buildQueue(ctx context.Context) error {
	qo := s.opts.Queue
	qo.Clock, qo.Logger = s.clock, s.logger
	if qo.PodInitialBackoff == 0 {
		qo.PodInitialBackoff = s.cfg.PodInitialBackoff()
	}
	if qo.PodMaxBackoff == 0 {
		qo.PodMaxBackoff = s.cfg.PodMaxBackoff()
	}
	qo.Namespaces = s.state.namespaces
	qo.PodLookup = s.state.lookup
	qo.PreEnqueuePlugins = make(map[string][]framework.PreEnqueuePlugin)
	qo.QueueingHints = make(map[string]queue.QueueingHintMap)
	var errs []error
	for name, f := range s.profiles {
		// Every profile holds group members back until their group is
		// complete (kube's GangScheduling PreEnqueue), with GenericWorkload.
		pre := f.PreEnqueuePlugins()
		if s.gangs() {
			pre = append(pre, &gang.Gate{Groups: s.groups})
		}
		qo.PreEnqueuePlugins[name] = pre
		hints, err := queueingHints(ctx, f.EnqueueExtensions())
		errs = append(errs, err)
		qo.QueueingHints[name] = hints
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scheduler: registering events: %w", err)
	}
	less := s.profiles[s.cfg.Profiles[0].SchedulerName].QueueSortFunc()
	s.queue = queue.New(less, qo)
	return nil
}

// queueingHints is kube's buildQueueingHintMap: every event a plugin
// registers, with its hint. A plugin registering node additions but not
// taint updates is also given taint updates (and uncordoning), as kube
// does.
func queueingHints(ctx context.Context, exts []framework.EnqueueExtensions) (queue.QueueingHintMap, error) {
	out := make(queue.QueueingHintMap)
	var errs []error
	for _, e := range exts {
		events, err := e.EventsToRegister(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name(), err))
		}
		nodeAdd, nodeTaint := false, false
		for _, ev := range events {
			if ev.Event.Resource == framework.EventNode {
				nodeAdd = nodeAdd || ev.Event.ActionType&framework.ActionAdd != 0
				nodeTaint = nodeTaint || ev.Event.ActionType&framework.ActionUpdateNodeTaint != 0
			}
			out[ev.Event] = append(out[ev.Event], queue.QueueingHintFunction{PluginName: e.Name(), Fn: ev.QueueingHintFn})
		}
		if nodeAdd && !nodeTaint {
			ev := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeTaint | framework.ActionUpdateNodeUnschedulable}
			out[ev] = append(out[ev], queue.QueueingHintFunction{PluginName: e.Name()})
		}
	}
	return out, errors.Join(errs...)
}

// Run schedules pods until ctx ends: the queue's flush loops run in the
// background, one scheduling cycle at a time, binding cycles concurrently.
// It returns when ctx ends and the binding cycles in flight have returned.
func (s *Scheduler) Run(ctx context.Context) {
	s.queue.Run(ctx)
	stop := context.AfterFunc(ctx, s.queue.Close)
	defer stop()
	defer s.gate.stop()
	for {
		if _, err := s.scheduleNext(ctx, false); err != nil {
			if ctx.Err() != nil || errors.Is(err, queue.ErrClosed) {
				break
			}
			s.logger.Error("popping the next pod failed", "err", err)
		}
	}
	s.bindWG.Wait()
}

func (s *Scheduler) observeAttempt(att *Attempt) {
	if s.opts.Metrics == nil {
		return
	}
	result := "scheduled"
	switch att.Result {
	case ResultUnschedulable:
		result = "unschedulable"
	case ResultError:
		result = "error"
	}
	s.opts.Metrics.ObserveAttempt(att.Profile, result, att.Duration)
}

// lazyNominator hands the frameworks the queue's nominator, which exists
// only once the queue is built from the frameworks' plugins.
type lazyNominator struct{ s *Scheduler }

func (l lazyNominator) AddNominatedPod(pi *framework.PodInfo, info *framework.NominatingInfo) {
	l.s.queue.Nominator().AddNominatedPod(pi, info)
}

func (l lazyNominator) DeleteNominatedPodIfExists(pod *model.Pod) {
	l.s.queue.Nominator().DeleteNominatedPodIfExists(pod)
}

func (l lazyNominator) UpdateNominatedPod(oldPod *model.Pod, newPodInfo *framework.PodInfo) {
	l.s.queue.Nominator().UpdateNominatedPod(oldPod, newPodInfo)
}

func (l lazyNominator) NominatedPodsForNode(nodeName string) []*framework.PodInfo {
	return l.s.queue.Nominator().NominatedPodsForNode(nodeName)
}

func (l lazyNominator) AnyNominated() bool { return l.s.queue.Nominator().AnyNominated() }

// setNominatedNodeName records a pending pod's nominated node in the
// scheduler's view and the queue's.
func (s *Scheduler) setNominatedNodeName(ctx context.Context, uid, node string) {
	_, cur, alive := s.state.applyNomination(uid, &framework.NominatingInfo{NominatedNodeName: node, Mode: framework.ModeOverride})
	if !alive {
		return
	}
	if p, queued := s.queue.Lookup(uid); queued && p.Info.Pod.NominatedNodeName != node {
		if err := s.queue.Update(ctx, nil, cur); err != nil {
			s.logger.Error("updating a queued pod failed", "pod", cur.Key(), "err", err)
		}
	}
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func newTracker(r Replay) *dra.Tracker {
	var opts []dra.TrackerOption
	if r.NoDevicePrecheck {
		opts = append(opts, dra.WithoutPrecheck())
	}
	if r.NoDeviceSliceFilter {
		opts = append(opts, dra.WithoutSliceFilter())
	}
	if r.NoDeviceNodeMemo {
		opts = append(opts, dra.WithoutNodeMemo())
	}
	return dra.NewTracker(opts...)
}
