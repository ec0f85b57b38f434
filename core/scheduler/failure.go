package scheduler

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// handleFailure is kube's handleSchedulingFailure: it records why the pod
// failed, hands a popped pod back to the queue with the plugins that
// rejected it, applies the nomination (as kube's status patch would) and
// reports a diagnosis the pod has not been reported with yet.
func (s *Scheduler) handleFailure(ctx context.Context, fwk framework.Framework, qpi *framework.QueuedPodInfo, f *failure, popped bool) {
	pod := qpi.Pod
	qpi.UnschedulablePlugins, qpi.PendingPlugins = nil, nil
	if f.fitErr != nil {
		qpi.UnschedulablePlugins = maps.Clone(f.fitErr.Diagnosis.UnschedulablePlugins)
		qpi.PendingPlugins = maps.Clone(f.fitErr.Diagnosis.PendingPlugins)
	}
	msg := f.message()
	rejected := f.status.IsRejected()
	// The pod as the caller's state knows it now: gone or bound pods are
	// not requeued.
	prevNode, cur, alive := s.state.applyNomination(pod.UID, f.nominating)
	s.logFailure(ctx, fwk, pod, msg, rejected, alive)
	if alive {
		if pi, err := framework.NewPodInfo(cur); err == nil {
			qpi.PodInfo = pi
		}
		if popped && f.active {
			if err := s.queue.RequeueActive(ctx, qpi); err != nil {
				s.logger.Error("requeueing a pod failed", "pod", pod.Key(), "err", err)
			}
		} else if popped {
			if err := s.queue.AddUnschedulableIfNotPresent(ctx, qpi, s.queue.SchedulingCycle()); err != nil {
				s.logger.Error("requeueing a pod failed", "pod", pod.Key(), "err", err)
			}
		} else if cur.NominatedNodeName != prevNode {
			// The pod stays queued: let the queue see its new version.
			if err := s.queue.Update(ctx, nil, cur); err != nil {
				s.logger.Error("updating a queued pod failed", "pod", pod.Key(), "err", err)
			}
		}
	} else if popped {
		s.queue.Done(pod.UID)
	}
	s.queue.Nominator().AddNominatedPod(qpi.PodInfo, f.nominating)

	if alive && cur.NominatedNodeName != prevNode {
		var err error
		if cur.NominatedNodeName != "" {
			err = s.nominate(ctx, &framework.Nomination{Pod: cur, Node: cur.NominatedNodeName})
		} else {
			err = s.clearNomination(ctx, &framework.ClearNomination{Pod: cur, Reason: msg})
		}
		if err != nil {
			s.logger.Error("recording a nomination decision failed", "pod", pod.Key(), "err", err)
		}
	}
	if alive {
		s.recordDiagnosis(ctx, cur, msg, f.fitErr, rejected)
	}
}

// logFailure logs a failed attempt: an error at ERROR, unless the
// attempt was cut short by shutdown, or the pod was deleted (or bound by
// someone else) meanwhile, the ordinary race between a deletion and a
// bind, which leaves nothing to retry.
func (s *Scheduler) logFailure(ctx context.Context, fwk framework.Framework, pod *model.Pod, msg string, rejected, alive bool) {
	switch {
	case rejected:
		s.logger.Debug("pod unschedulable", "pod", pod.Key(), "profile", fwk.ProfileName(), "message", msg)
	case ctx.Err() != nil:
		// Stopping: the attempt was cut short, not failed.
		s.logger.Debug("scheduling pod interrupted", "pod", pod.Key(), "profile", fwk.ProfileName(), "err", msg)
	case !alive:
		s.logger.Debug("pod deleted or bound elsewhere during its attempt; dropped", "pod", pod.Key(), "profile", fwk.ProfileName(), "err", msg)
	default:
		s.logger.Error("scheduling pod failed; retrying", "pod", pod.Key(), "profile", fwk.ProfileName(), "err", msg)
	}
}

// recordDiagnosis keeps the failure for Explain and, for a rejection
// (rejected: the plugins found no node, rather than an error), reports it
// when its message differs from the last one reported for the pod.
func (s *Scheduler) recordDiagnosis(ctx context.Context, pod *model.Pod, msg string, fitErr *framework.FitError, rejected bool) {
	d := summarize(msg, fitErr, s.clock.Now(), s.opts.MaxDiagnosisNodes)
	report := s.state.setDiagnosis(pod.UID, d, msg, rejected)
	if report {
		if err := s.report(ctx, &framework.UnschedulableReport{Pod: pod, Message: msg, FitErr: fitErr}); err != nil {
			s.logger.Error("reporting an unschedulable pod failed", "pod", pod.Key(), "err", err)
		}
	}
}

// Diagnosis is a failed attempt, kept for Explain.
type Diagnosis struct {
	// Message is kube's "0/N nodes are available: ..." (or the error).
	Message     string
	At          time.Time
	NumAllNodes int
	// Nodes are the nodes with their own rejection, sorted by name; at
	// most Options.MaxDiagnosisNodes of them (Truncated says more failed).
	Nodes     []NodeDiagnosis
	Truncated bool
	// OtherReasons apply to every node not listed with its own status
	// (a PreFilter rejection, or nodes PreFilter ruled out).
	OtherReasons []string
	// OtherPlugin is the plugin that gave OtherReasons, when one did.
	OtherPlugin string
	// UnschedulablePlugins and PendingPlugins rejected the pod.
	UnschedulablePlugins []string
	PendingPlugins       []string
}

// NodeDiagnosis is why one node was rejected.
type NodeDiagnosis struct {
	Node    string
	Reasons []string
	// Plugin is the plugin that rejected the node (filters stop at the
	// first rejection); empty when none is known.
	Plugin string
	// Unresolvable: preemption cannot help on this node.
	Unresolvable bool
}

func summarize(msg string, fitErr *framework.FitError, at time.Time, maxNodes int) *Diagnosis {
	d := &Diagnosis{Message: msg, At: at}
	if fitErr == nil {
		return d
	}
	d.NumAllNodes = fitErr.NumAllNodes
	d.UnschedulablePlugins = sortedKeys(fitErr.Diagnosis.UnschedulablePlugins)
	d.PendingPlugins = sortedKeys(fitErr.Diagnosis.PendingPlugins)
	m := fitErr.Diagnosis.NodeToStatus
	if m == nil {
		return d
	}
	nodes := m.FirstNodes(maxNodes)
	d.Truncated = m.Len() > maxNodes
	for _, n := range nodes {
		st := m.Get(n)
		d.Nodes = append(d.Nodes, NodeDiagnosis{Node: n, Reasons: slices.Clone(st.Reasons()), Plugin: st.Plugin(), Unresolvable: st.Code() == framework.UnschedulableAndUnresolvable})
	}
	if m.Len() < fitErr.NumAllNodes {
		d.OtherReasons, d.OtherPlugin = slices.Clone(m.AbsentStatus.Reasons()), m.AbsentStatus.Plugin()
	}
	return d
}
