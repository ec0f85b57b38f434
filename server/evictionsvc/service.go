package evictionsvc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/errmap"
)

// Cluster is the scheduler's read side the service needs; scheduler.View
// satisfies it.
type Cluster interface {
	Find(namespace, name string) (*model.Pod, bool)
	Pod(uid string) (*model.Pod, bool)
	Pods() []*model.Pod
	Budgets(pod *model.Pod) []disruption.Budget
}

// Evictor writes an eviction; *eviction.Evictor satisfies it.
type Evictor interface {
	EvictAt(ctx context.Context, e framework.Eviction) (uint64, error)
}

// Evicted tells whether a pod has an Evict decision awaiting its
// deletion; the book of per-pod facts knows.
type Evicted func(uid string) bool

// Binds tells where pods are binding: the node of a pod's Bind decision
// that awaits the orchestrator's outcome. The book of per-pod facts knows
// (its outstanding KindBind records); the scheduler's pod has no node
// until the bind is confirmed.
type Binds interface {
	BindingTo(uid string) (node string, ok bool)
}

// DefaultRetryAfter is the RetryInfo delay of a refusal by a budget
// (kubectl drain retries refused evictions every 5 s).
const DefaultRetryAfter = 5 * time.Second

// Service implements berthv1.EvictionServiceServer.
type Service struct {
	berthv1.UnimplementedEvictionServiceServer
	cluster    Cluster
	evictor    Evictor
	evicted    Evicted
	binds      Binds
	retryAfter time.Duration

	mu sync.Mutex
	// charged holds, by budget (namespace/name), the pods charged to a
	// budget whose allowance the caller gave (see the package doc).
	charged map[string]map[string]string // budget -> pod uid -> pod name
}

// New returns the service.
func New(cluster Cluster, evictor Evictor, evicted Evicted, binds Binds) *Service {
	return &Service{cluster: cluster, evictor: evictor, evicted: evicted, binds: binds, retryAfter: DefaultRetryAfter, charged: map[string]map[string]string{}}
}

// EvictPod implements the RPC (see eviction_service.proto).
func (s *Service) EvictPod(ctx context.Context, req *berthv1.EvictPodRequest) (*berthv1.EvictPodResponse, error) {
	ns, name, uid, err := convert.PodRefFromProto(req.GetPod(), false)
	if err != nil {
		return nil, errmap.Status(errmap.Field("pod", err))
	}
	if req.GracePeriodSeconds != nil && req.GetGracePeriodSeconds() < 0 {
		return nil, errmap.Status(errmap.Field("grace_period_seconds", fmt.Errorf("must not be negative, got %d: %w", req.GetGracePeriodSeconds(), scheduler.ErrInvalid)))
	}
	resp, err := s.evict(ctx, ns, name, uid, req.GetDryRun(), req.GracePeriodSeconds)
	if err != nil {
		return nil, errmap.Status(err)
	}
	return resp, nil
}

// evict applies the rule and, unless dryRun, writes the eviction, all
// under mu.
func (s *Service) evict(ctx context.Context, ns, name, uid string, dryRun bool, grace *int64) (*berthv1.EvictPodResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pod, ok := s.cluster.Find(ns, name)
	if !ok || uid != "" && pod.UID != uid {
		if ok {
			return nil, fmt.Errorf("pod %s/%s has uid %s, not %s: %w", ns, name, pod.UID, uid, errmap.ErrUIDMismatch)
		}
		//lint:ignore ST1005 Berth is a name
		return nil, fmt.Errorf("Berth holds no pod %s/%s: %w", ns, name, scheduler.ErrPodNotFound)
	}
	if s.evicted(pod.UID) {
		return &berthv1.EvictPodResponse{AlreadyEvicted: true}, nil
	}
	budgets := s.budgets(pod)
	resp := &berthv1.EvictPodResponse{}
	switch disruption.Check(pod, budgets) {
	case disruption.RefuseMultiple:
		keys := make([]string, len(budgets))
		for i, b := range budgets {
			keys[i] = budgetKey(b.PDB)
		}
		return nil, &disruption.MultipleBudgetsError{Pod: pod.Key(), Budgets: keys}
	case disruption.RefuseBudget:
		b := budgets[0]
		return nil, &disruption.BudgetError{Pod: pod.Key(), Budget: budgetKey(b.PDB), Allowed: b.Status.DisruptionsAllowed, Retry: s.retryAfter}
	case disruption.AllowCharged:
		resp.Budget, resp.DisruptionsAllowed = budgetKey(budgets[0].PDB), budgets[0].Status.DisruptionsAllowed
	}
	if dryRun {
		return resp, nil
	}
	node, _ := s.nodeOf(pod)
	rev, err := s.evictor.EvictAt(ctx, framework.Eviction{
		Victim: pod, Node: node, Cause: framework.EvictAPI,
		Message: evictionMessage(resp.Budget), GracePeriodSeconds: grace,
	})
	if errors.Is(err, decisionlog.ErrAlreadyEvicted) {
		return &berthv1.EvictPodResponse{AlreadyEvicted: true}, nil
	}
	if err != nil {
		return nil, err
	}
	resp.Revision = rev
	if resp.Budget != "" && budgets[0].PDB.DisruptionsAllowed != nil {
		s.charge(resp.Budget, pod)
	}
	return resp, nil
}

// budgets returns the budgets covering pod, a caller-given allowance
// lowered by the pods charged to it since (see the package doc).
func (s *Service) budgets(pod *model.Pod) []disruption.Budget {
	budgets := s.cluster.Budgets(pod)
	for i := range budgets {
		b := &budgets[i]
		if b.PDB.DisruptionsAllowed == nil {
			continue
		}
		key := budgetKey(b.PDB)
		for uid, name := range s.charged[key] {
			if _, held := s.cluster.Pod(uid); !held {
				delete(s.charged[key], uid)
				continue
			}
			if _, listed := b.PDB.DisruptedPods[name]; !listed {
				b.Status.DisruptionsAllowed--
			}
		}
		b.Status.DisruptionsAllowed = max(b.Status.DisruptionsAllowed, 0)
	}
	return budgets
}

func (s *Service) charge(budget string, pod *model.Pod) {
	if s.charged[budget] == nil {
		s.charged[budget] = map[string]string{}
	}
	s.charged[budget][pod.UID] = pod.Name
}

func budgetKey(pdb *model.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }

// evictionMessage is the Evict's reason: kube's DisruptionTarget message
// for an API-initiated eviction, and the budget charged.
func evictionMessage(budget string) string {
	const msg = "Eviction API: evicting"
	if budget == "" {
		return msg
	}
	return msg + " (disruption budget " + budget + ")"
}

// ListNodePods implements the RPC (see eviction_service.proto).
func (s *Service) ListNodePods(_ context.Context, req *berthv1.ListNodePodsRequest) (*berthv1.ListNodePodsResponse, error) {
	if req.GetNode() == "" {
		return nil, errmap.Status(errmap.Field("node", fmt.Errorf("required: %w", scheduler.ErrInvalid)))
	}
	if err := convert.CheckName("node", req.GetNode(), true); err != nil {
		return nil, errmap.Status(err)
	}
	type listed struct {
		pod     *model.Pod
		binding bool
	}
	var pods []listed
	for _, p := range s.cluster.Pods() {
		if p.NodeName != "" && p.NodeName != req.GetNode() {
			continue // bound elsewhere: the book need not be asked
		}
		if node, binding := s.nodeOf(p); node == req.GetNode() {
			pods = append(pods, listed{p, binding})
		}
	}
	slices.SortFunc(pods, func(a, b listed) int { return cmp.Compare(a.pod.Key(), b.pod.Key()) })
	resp := &berthv1.ListNodePodsResponse{}
	for _, l := range pods {
		resp.Pods = append(resp.Pods, &berthv1.NodePod{Pod: convert.PodRefOf(l.pod), Terminating: l.pod.Terminating, DaemonSet: looksDaemonSet(l.pod), Binding: l.binding})
	}
	return resp, nil
}

// nodeOf returns the node the pod is on or headed for, and whether it is
// binding there (its Bind awaits an outcome). A pod held on the node of a
// bind restored after a restart has that node already and is binding
// too; a pending pod with no bind has no node.
func (s *Service) nodeOf(p *model.Pod) (node string, binding bool) {
	bindNode, ok := s.binds.BindingTo(p.UID)
	switch {
	case p.NodeName == "":
		return bindNode, ok
	case ok && bindNode == p.NodeName:
		return p.NodeName, true
	}
	return p.NodeName, false
}

// looksDaemonSet reports whether a DaemonSet manages the pod: its
// controlling owner is one (kubectl drain's test), or, for a pod sent
// without owners, it carries the toleration the DaemonSet controller adds
// to its pods.
func looksDaemonSet(p *model.Pod) bool {
	if p.Runtime != nil && len(p.Runtime.Owners) > 0 {
		for _, o := range p.Runtime.Owners {
			if o.Controller {
				return o.Kind == "DaemonSet"
			}
		}
		return false
	}
	for _, t := range p.Tolerations {
		if t.Key == model.TaintNodeUnschedulable && t.Operator == model.TolerationOpExists && t.Effect == model.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}
