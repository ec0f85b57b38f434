package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

// errNoNodesAvailable is kube's message when the cluster has no node.
var errNoNodesAvailable = errors.New("no nodes available to schedule pods")

// errOutsideDomain rejects the nodes outside a pod group's topology domain.
const errOutsideDomain = "node(s) outside the pod group's topology domain"

// clearNomination is the NominatingInfo of failures that drop the pod's
// nomination (errors, no nodes, reserve/permit/bind failures).
var clearNomination = &framework.NominatingInfo{Mode: framework.ModeOverride}

// failure is why a scheduling or binding cycle did not bind the pod.
type failure struct {
	status     *framework.Status
	fitErr     *framework.FitError // when no node fit or a node rejected at Reserve/Permit
	nominating *framework.NominatingInfo
	msg        string // overrides the message (a pod group's failure)
	// rendered is fitErr's message once rendered: over thousands of nodes
	// that costs, and the failure is handled, then recorded.
	rendered string
	// active: requeue straight to activeQ, keeping the queue timestamp
	// (a member its group's successful cycle left out, gang.go).
	active bool
}

func (f *failure) message() string {
	if f.msg != "" {
		return f.msg
	}
	if f.fitErr != nil {
		if f.rendered == "" {
			f.rendered = f.fitErr.Error()
		}
		return f.rendered
	}
	return f.status.Message()
}

// ScheduleOne pops the next pod (blocking until there is one) and runs one
// scheduling cycle for it; on success the binding cycle runs concurrently
// (inline with Replay.BindInline). It returns the attempt's record, nil if
// the popped pod was dropped, and an error only when the queue is closed
// or ctx ends.
func (s *Scheduler) ScheduleOne(ctx context.Context) (*Attempt, error) {
	return s.scheduleNext(ctx, true)
}

// scheduleNext is ScheduleOne; record says whether the attempt keeps its
// details (feasible nodes, scores, top nodes) for the caller. Run does not
// read them, so its cycles keep none and reuse their working memory.
//
// It waits while the loop is held (Hold): nothing is popped then, and a
// pod popped just before a hold began waits for its release before its
// cycle starts.
func (s *Scheduler) scheduleNext(ctx context.Context, record bool) (*Attempt, error) {
	var qpi *framework.QueuedPodInfo
	for qpi == nil {
		popCtx, err := s.gate.popContext(ctx)
		if err != nil {
			return nil, err
		}
		qpi, err = s.queue.Pop(popCtx)
		if err != nil && (ctx.Err() != nil || popCtx.Err() == nil || errors.Is(err, queue.ErrClosed)) {
			return nil, err
		}
		// Otherwise a hold began: pop again once it is released.
	}
	s.cycleMu.Lock()
	for s.gate.held() {
		s.cycleMu.Unlock()
		if err := s.gate.wait(ctx); err != nil {
			// Stopping: the cycle fails at once and requeues the pod.
			s.cycleMu.Lock()
			break
		}
		s.cycleMu.Lock()
	}
	defer s.cycleMu.Unlock()
	return s.scheduleOnePod(ctx, qpi, true, record), nil
}

// AttemptPod runs one scheduling cycle for a pending pod without taking it
// out of the queue, with the binding cycle inline: the pod stays queued
// whatever the outcome (a bound pod leaves the queue when the caller
// confirms it with AddPod). Deterministic drivers (core/simulate) use it to
// try pods in an order of their own, once each.
func (s *Scheduler) AttemptPod(ctx context.Context, uid string) (*Attempt, error) {
	pod, ok := s.state.lookup(uid)
	if !ok || pod.NodeName != "" {
		return nil, fmt.Errorf("attempt pod %s: %w", uid, ErrPodNotPending)
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, fmt.Errorf("attempt pod %s: %w", pod.Key(), err)
	}
	qpi := &framework.QueuedPodInfo{PodInfo: pi, Timestamp: s.clock.Now()}
	if p, ok := s.queue.Lookup(uid); ok {
		qpi.Attempts = p.Info.Attempts
		qpi.InitialAttemptTimestamp = p.Info.InitialAttemptTimestamp
	}
	qpi.Attempts++
	s.cycleMu.Lock()
	defer s.cycleMu.Unlock()
	return s.scheduleOnePod(ctx, qpi, false, true), nil
}

// scheduleOnePod is kube's scheduleOnePod. popped says whether the pod came
// from Pop (and must be handed back to the queue) or from AttemptPod;
// record whether the attempt keeps its details.
func (s *Scheduler) scheduleOnePod(ctx context.Context, qpi *framework.QueuedPodInfo, popped, record bool) *Attempt {
	pod := qpi.Pod
	att := &Attempt{Pod: pod, Profile: profileName(pod), Start: s.clock.Now(), lean: !record}
	fwk, ok := s.profiles[att.Profile]
	if !ok {
		// Only pods with a profile are queued; this is a bug if it happens.
		s.logger.Error("no profile for pod", "pod", pod.Key(), "schedulerName", att.Profile)
		s.queue.Done(pod.UID)
		att.Result, att.Message = ResultSkipped, fmt.Sprintf("no profile for schedulerName %q", att.Profile)
		return att
	}
	switch {
	case pod.Terminating:
		att.Result, att.Message = ResultSkipped, "pod is being deleted"
	case s.cache.IsAssumed(pod.UID):
		att.Result, att.Message = ResultSkipped, "pod is already assumed"
	}
	if att.Result == ResultSkipped {
		s.queue.Done(pod.UID)
		return att
	}

	if pod.SchedulingGroup != "" && popped && s.gangs() {
		if gatt := s.scheduleGroup(ctx, fwk, qpi, att); gatt != nil {
			return gatt
		}
	}
	state := framework.NewCycleState()
	cycleCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cycleCtx, ap := s.withAttemptPlan(cycleCtx)
	host, assumed, fail := s.schedulingCycle(cycleCtx, state, fwk, qpi, att)
	if fail != nil {
		s.handleFailure(cycleCtx, fwk, qpi, fail, popped)
		s.submitAttempt(cycleCtx, ap)
		att.Status, att.Message, att.FitError = fail.status, fail.message(), fail.fitErr
		if att.Result == "" {
			att.Result = ResultError
			if fail.status.IsRejected() {
				att.Result = ResultUnschedulable
			}
		}
		att.Duration = s.clock.Now().Sub(att.Start)
		s.observeAttempt(att)
		return att
	}
	s.submitAttempt(cycleCtx, ap) // nothing gathered on success, as a rule
	att.Result, att.Node = ResultScheduled, host
	att.Duration = s.clock.Now().Sub(att.Start)
	s.observeAttempt(att)
	b := &binding{fwk: fwk, state: state, qpi: assumed, host: host, start: att.Start}
	// Recorded here, on the one scheduling goroutine, rather than by each
	// binding goroutine: thousands of those starting at once would queue
	// ahead of ingest.
	s.attemptsMu.Lock()
	s.bindAttempts[pod.UID] = assumed.Attempts
	s.attemptsMu.Unlock()
	if s.opts.Replay.BindInline {
		att.BindStatus = s.runBindingCycle(ctx, b)
		return att
	}
	s.bindWG.Add(1)
	go func() {
		defer s.bindWG.Done()
		s.runBindingCycle(ctx, b)
	}()
	return att
}

// schedulingCycle finds a node, assumes the pod there and runs Reserve and
// Permit. It returns the host and the assumed pod, or why it failed.
func (s *Scheduler) schedulingCycle(ctx context.Context, state *framework.CycleState, fwk framework.Framework, qpi *framework.QueuedPodInfo, att *Attempt) (string, *framework.QueuedPodInfo, *failure) {
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil {
		return "", nil, &failure{status: framework.AsStatus(err), nominating: clearNomination}
	}
	host, fail := s.schedulingAlgorithm(ctx, state, fwk, qpi.Pod, att)
	if fail != nil {
		return "", nil, fail
	}
	assumed, fail := s.assumeAndReserve(ctx, state, fwk, qpi, host)
	if fail != nil {
		return "", nil, fail
	}
	st := fwk.RunPermitPlugins(ctx, state, assumed.Pod, host)
	if !st.IsSuccess() && !st.IsWait() {
		s.unreserveAndForget(ctx, state, fwk, assumed.Pod, host)
		return "", nil, rejectedOnNode(st, host, qpi.Pod.Key())
	}
	return host, assumed, nil
}

// rejectedOnNode turns a Reserve/Permit failure on the chosen node into a
// failure; a rejection carries a one-node FitError, as in kube.
func rejectedOnNode(st *framework.Status, host, podKey string) *failure {
	f := &failure{status: st, nominating: clearNomination}
	if st.IsRejected() {
		d := framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}
		d.NodeToStatus.Set(host, st)
		addPluginStatus(&d, st)
		f.fitErr = &framework.FitError{PodKey: podKey, NumAllNodes: 1, Diagnosis: d}
	}
	return f
}

// schedulingAlgorithm filters and scores, and runs PostFilter when no node
// fits.
func (s *Scheduler) schedulingAlgorithm(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, att *Attempt) (string, *failure) {
	att.NumAllNodes = s.snapshot.NumNodes()
	if att.NumAllNodes == 0 {
		att.Result = ResultUnschedulable
		return "", &failure{
			status:     framework.NewStatus(framework.UnschedulableAndUnresolvable, errNoNodesAvailable.Error()),
			nominating: clearNomination,
		}
	}
	feasible, err := s.findNodesThatFitPod(ctx, state, fwk, pod, att)
	if err != nil {
		return "", &failure{status: framework.AsStatus(err), nominating: clearNomination}
	}
	if !att.lean {
		att.Feasible = make([]string, len(feasible))
		for i, ni := range feasible {
			att.Feasible[i] = ni.Name()
		}
	}
	if len(feasible) == 0 {
		att.Result = ResultUnschedulable
		if att.whatIf || att.inGroup {
			fitErr := &framework.FitError{PodKey: pod.Key(), NumAllNodes: att.NumAllNodes, Diagnosis: att.Diagnosis}
			return "", &failure{status: framework.NewStatus(framework.Unschedulable), fitErr: fitErr}
		}
		return "", s.postFilter(ctx, state, fwk, pod, att)
	}
	if len(feasible) == 1 {
		if (s.opts.Replay.ScoreSingleNode || att.whatIf) && fwk.HasScorePlugins() {
			if scores, err := s.prioritizeNodes(ctx, state.Clone(), fwk, pod, feasible, s.carried, nil); err == nil {
				att.Scores, att.ScoresReportOnly = scores, true
			}
		}
		if !att.lean {
			att.TopNodes = []string{feasible[0].Name()}
		}
		return feasible[0].Name(), nil
	}
	var buf *framework.ScoreBuffers
	if att.lean {
		buf = &s.scoreBuf
	}
	scores, err := s.prioritizeNodes(ctx, state, fwk, pod, feasible, s.carried, buf)
	if err != nil {
		return "", &failure{status: framework.AsStatus(err), nominating: clearNomination}
	}
	if att.lean {
		return s.selectHost(scores, nil), nil
	}
	att.Scores = scores
	att.TopNodes = []string{}
	host := s.selectHost(scores, &att.TopNodes)
	return host, nil
}

// postFilter runs PostFilter (preemption) for a pod no node fits.
func (s *Scheduler) postFilter(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, att *Attempt) *failure {
	fitErr := &framework.FitError{PodKey: pod.Key(), NumAllNodes: att.NumAllNodes, Diagnosis: att.Diagnosis}
	f := &failure{status: framework.NewStatus(framework.Unschedulable), fitErr: fitErr, nominating: clearNomination}
	if !fwk.HasPostFilterPlugins() {
		return f
	}
	before := s.decisions.evictions.Load()
	result, st := fwk.RunPostFilterPlugins(ctx, state, pod, att.Diagnosis.NodeToStatus)
	att.Evictions = int(s.decisions.evictions.Load() - before)
	fitErr.Diagnosis.PostFilterMsg = st.Message()
	if st.Code() == framework.Error {
		s.logger.Error("PostFilter failed", "pod", pod.Key(), "status", st.Message())
	}
	f.nominating = nil
	if result != nil {
		f.nominating = &framework.NominatingInfo{NominatedNodeName: result.NominatedNodeName, Mode: framework.ModeOverride}
		if st.IsSuccess() && result.NominatedNodeName != "" {
			att.NominatedNode = result.NominatedNodeName
		}
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.ObservePostFilter(fwk.ProfileName(), att.NominatedNode != "", att.Evictions)
	}
	return f
}

// prioritizeNodes runs PreScore and Score; without score plugins every node
// scores 1. carried, when not nil, is the filter pass's copy of the nodes'
// remembered scores, one per node in the order of nodes (s.carried).
func (s *Scheduler) prioritizeNodes(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, nodes []*framework.NodeInfo, carried []framework.CarriedScores, buf *framework.ScoreBuffers) ([]framework.NodePluginScores, error) {
	if !fwk.HasScorePlugins() {
		out := make([]framework.NodePluginScores, len(nodes))
		for i, ni := range nodes {
			out[i] = framework.NodePluginScores{Name: ni.Name(), TotalScore: 1}
		}
		return out, nil
	}
	if st := fwk.RunPreScorePlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		return nil, st.AsError()
	}
	if len(carried) == len(nodes) && len(nodes) > 0 {
		if buf == nil {
			buf = &framework.ScoreBuffers{}
		}
		buf.Carried = carried
		defer func() { buf.Carried = nil }()
	}
	scores, st := fwk.RunScorePluginsInto(ctx, state, pod, nodes, buf)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	if s.logger.Enabled(ctx, slog.LevelDebug-4) {
		for _, ns := range scores {
			s.logger.Log(ctx, slog.LevelDebug-4, "node score", "pod", pod.Key(), "node", ns.Name, "score", ns.TotalScore)
		}
	}
	return scores, nil
}

// selectHost picks a node with the highest total score: uniformly at
// random among the tied ones (reservoir sampling, as kube), or the smallest
// name in deterministic mode. With top set, it also lists the tied nodes
// there, sorted.
func (s *Scheduler) selectHost(scores []framework.NodePluginScores, top *[]string) string {
	best := scores[0].TotalScore
	for _, ns := range scores[1:] {
		best = max(best, ns.TotalScore)
	}
	tied := 0
	selected := ""
	for _, ns := range scores {
		if ns.TotalScore != best {
			continue
		}
		tied++
		if top != nil {
			*top = append(*top, ns.Name)
		}
		switch {
		case s.opts.Deterministic:
			if selected == "" || ns.Name < selected {
				selected = ns.Name
			}
		case tied == 1 || s.rand.IntN(tied) == 0:
			selected = ns.Name
		}
	}
	if top != nil {
		slices.Sort(*top)
	}
	return selected
}

// assumeAndReserve assumes the pod on host in the cache, forgets its
// nomination and runs Reserve.
func (s *Scheduler) assumeAndReserve(ctx context.Context, state *framework.CycleState, fwk framework.Framework, qpi *framework.QueuedPodInfo, host string) (*framework.QueuedPodInfo, *failure) {
	pod := *qpi.Pod
	pod.NodeName = host
	pi := *qpi.PodInfo
	pi.Pod = &pod
	assumed := *qpi
	assumed.PodInfo = &pi
	if err := s.cache.AssumePod(&pi); err != nil {
		return nil, &failure{status: framework.AsStatus(err), nominating: clearNomination}
	}
	s.queue.Nominator().DeleteNominatedPodIfExists(&pod)
	if st := fwk.RunReservePluginsReserve(ctx, state, &pod, host); !st.IsSuccess() {
		s.unreserveAndForget(ctx, state, fwk, &pod, host)
		return nil, rejectedOnNode(st, host, pod.Key())
	}
	return &assumed, nil
}

// unreserveAndForget undoes Reserve and the assumption.
func (s *Scheduler) unreserveAndForget(ctx context.Context, state *framework.CycleState, fwk framework.Framework, assumed *model.Pod, host string) bool {
	fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
	if err := s.cache.ForgetPod(assumed); err != nil {
		s.logger.Error("forgetting an assumed pod failed", "pod", assumed.Key(), "err", err)
		return false
	}
	return true
}

// addPluginStatus records the plugin behind a rejection, as kube's
// Diagnosis.AddPluginStatus: rejections in UnschedulablePlugins, Pending
// ones also in PendingPlugins.
func addPluginStatus(d *framework.Diagnosis, st *framework.Status) {
	if st.Plugin() == "" {
		return
	}
	if st.IsRejected() {
		d.AddUnschedulablePlugin(st.Plugin())
	}
	if st.Code() == framework.Pending {
		if d.PendingPlugins == nil {
			d.PendingPlugins = make(map[string]struct{})
		}
		d.PendingPlugins[st.Plugin()] = struct{}{}
	}
}

func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func profileName(pod *model.Pod) string {
	if pod.SchedulerName == "" {
		return model.DefaultSchedulerName
	}
	return pod.SchedulerName
}

// Evaluate tells where a pod would go now, without committing anything: it
// runs PreFilter, Filter on every node and Score on the feasible ones
// against the current state, but neither PostFilter (preemption) nor
// Reserve, nor any decision. The pod is admitted like a new pod (an
// unknown PriorityClass fails) but not stored. Scheduling waits while it
// runs.
func (s *Scheduler) Evaluate(ctx context.Context, pod *model.Pod) (*Attempt, error) {
	cur, err := s.admission.Pod(pod, nil)
	if err != nil {
		return nil, err
	}
	cur = s.state.holdEvicted(cur)
	att := &Attempt{Pod: cur, Profile: profileName(cur), Start: s.clock.Now(), whatIf: true}
	fwk, ok := s.profiles[att.Profile]
	if !ok {
		return nil, fmt.Errorf("evaluate %s: no profile for schedulerName %q: %w", cur.Key(), att.Profile, ErrInvalid)
	}
	if _, err := framework.NewPodInfo(cur); err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", cur.Key(), err)
	}
	s.cycleMu.Lock()
	defer s.cycleMu.Unlock()
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil {
		return nil, err
	}
	host, fail := s.schedulingAlgorithm(ctx, framework.NewCycleState(), fwk, cur, att)
	att.Duration = s.clock.Now().Sub(att.Start)
	if fail != nil {
		att.Status, att.Message, att.FitError = fail.status, fail.message(), fail.fitErr
		if att.Result == "" {
			att.Result = ResultError
		}
		return att, nil
	}
	att.Result, att.Node = ResultScheduled, host
	return att, nil
}
