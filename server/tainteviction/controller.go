package tainteviction

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/tainteviction"
	"github.com/berthsched/berth/server/deadlines"
	"github.com/berthsched/berth/server/decisionlog"
)

// Prefix starts the names of the controller's deadlines.
const Prefix = "taint/"

// Message is the reason kube's controller gives an evicted pod (its
// DisruptionTarget condition, reason DeletionByTaintManager).
const Message = "Taint manager: deleting due to NoExecute taint"

// Pods is the scheduler's read side of the pods, as they are now (an
// eviction marks one terminating, a bind undone makes one pending);
// scheduler.View fits.
type Pods interface {
	Pod(uid string) (*model.Pod, bool)
}

// Nodes are the nodes as the scheduler sees them and the by-node index of
// the pods; *objstore.Store fits.
type Nodes interface {
	Node(name string) (*model.Node, bool)
	PodsOn(node string) []*model.Pod
}

// Evictor evicts a pod durably; *eviction.Evictor fits.
type Evictor interface {
	Evict(ctx context.Context, e framework.Eviction) error
}

// Controller applies the NoExecute rules. It is safe for concurrent use.
type Controller struct {
	nodes   Nodes
	pods    Pods
	evictor Evictor
	timers  *deadlines.Timers
	now     func() time.Time
	logger  *slog.Logger

	// mu serializes the handling of changes and the firing of deadlines.
	mu sync.Mutex
}

// New returns a controller, and registers its deadlines with timers.
func New(nodes Nodes, pods Pods, evictor Evictor, timers *deadlines.Timers, now func() time.Time, logger *slog.Logger) *Controller {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{nodes: nodes, pods: pods, evictor: evictor, timers: timers, now: now, logger: logger}
	timers.Own(Prefix, c.fire)
	return c
}

// Handle is the controller's subscription to the object store: it applies
// a change of a node or a pod. A failed eviction is logged; its deadline
// retries it.
func (c *Controller) Handle(ctx context.Context, ev objstore.Event) {
	var err error
	switch ev.Kind {
	case objstore.KindNode:
		if cur, ok := ev.New.(*model.Node); ok {
			old, _ := ev.Old.(*model.Node)
			err = c.nodeChanged(ctx, old, cur)
		}
	case objstore.KindPod:
		if cur, ok := ev.New.(*model.Pod); ok {
			err = c.podChanged(ctx, cur.UID)
		} else if old, ok := ev.Old.(*model.Pod); ok {
			err = c.podDeleted(ctx, old.UID)
		}
	}
	if err != nil {
		c.logger.Error("taint eviction failed; it is retried", "err", err)
	}
}

// nodeChanged applies a node's NoExecute taints (as the scheduler filters
// with them, derived ones included): a node seen for the first time, or
// whose NoExecute taints changed, has each of its pods computed again. A
// node deleted changes nothing: its pods' scheduled evictions stay (as
// kube's).
func (c *Controller) nodeChanged(ctx context.Context, old, cur *model.Node) error {
	taints := tainteviction.NoExecute(cur.Taints)
	var before []model.Taint
	if old != nil {
		before = tainteviction.NoExecute(old.Taints)
	}
	if slices.Equal(before, taints) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, p := range c.nodes.PodsOn(cur.Name) {
		if live, ok := c.pods.Pod(p.UID); ok && live.NodeName == cur.Name {
			errs = append(errs, c.processLocked(ctx, live, taints))
		}
	}
	return errors.Join(errs...)
}

// podChanged computes a bound pod again against its node's taints; a pod
// on a node without NoExecute taints is left alone.
func (c *Controller) podChanged(ctx context.Context, uid string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pod, ok := c.pods.Pod(uid)
	if !ok || pod.NodeName == "" {
		return nil
	}
	taints := c.taintsLocked(pod.NodeName)
	if len(taints) == 0 {
		return nil
	}
	return c.processLocked(ctx, pod, taints)
}

// podDeleted cancels the pod's scheduled eviction.
func (c *Controller) podDeleted(ctx context.Context, uid string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.Cancel(ctx, Prefix+uid)
}

// taintsLocked are the NoExecute taints of a node now, none for a node
// not held.
func (c *Controller) taintsLocked(node string) []model.Taint {
	n, ok := c.nodes.Node(node)
	if !ok {
		return nil
	}
	return tainteviction.NoExecute(n.Taints)
}

// processLocked applies Decide to the pod on its node's NoExecute taints.
func (c *Controller) processLocked(ctx context.Context, pod *model.Pod, taints []model.Taint) error {
	if pod.Terminating {
		return nil // being deleted already: nothing more to do
	}
	name := Prefix + pod.UID
	scheduled, _ := c.scheduled(name)
	now := c.now()
	d := tainteviction.Decide(taints, pod.Tolerations, scheduled, now)
	switch d.Verdict {
	case tainteviction.Leave:
		return c.timers.Cancel(ctx, name)
	case tainteviction.EvictNow:
		err := c.evict(ctx, pod)
		if err == nil {
			return c.timers.Cancel(ctx, name)
		}
		// Retried by the deadlines until it is written (or the pod goes).
		retry := deadlines.Deadline{Name: name, At: now, Value: encodeValue(pod.NodeName, now)}
		return errors.Join(err, c.timers.Set(ctx, retry))
	case tainteviction.Schedule:
		return c.timers.Set(ctx, deadlines.Deadline{Name: name, At: d.At, Value: encodeValue(pod.NodeName, now)})
	}
	return nil // Keep
}

// scheduled returns the pod's scheduled eviction, if any.
func (c *Controller) scheduled(name string) (*tainteviction.Scheduled, string) {
	dl, ok := c.timers.Get(name)
	if !ok {
		return nil, ""
	}
	node, started, err := decodeValue(dl.Value)
	if err != nil {
		c.logger.Error("a taint deadline holds a bad value; it is taken as started at its deadline", "name", name, "err", err)
		started = dl.At
	}
	return &tainteviction.Scheduled{Started: started, At: dl.At}, node
}

// fire evicts a pod whose toleration ran out, unless it is gone, moved,
// being deleted, or its node's NoExecute taints are gone (or tolerated
// forever now: see the package doc).
func (c *Controller) fire(ctx context.Context, name string, value []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	node, _, err := decodeValue(value)
	if err != nil {
		return nil // logged when read; nothing to act on
	}
	pod, ok := c.pods.Pod(strings.TrimPrefix(name, Prefix))
	if !ok || pod.NodeName != node || pod.Terminating {
		return nil
	}
	scheduled, _ := c.scheduled(name)
	if tainteviction.Decide(c.taintsLocked(node), pod.Tolerations, scheduled, c.now()).Verdict == tainteviction.Leave {
		return nil
	}
	return c.evict(ctx, pod)
}

func (c *Controller) evict(ctx context.Context, pod *model.Pod) error {
	err := c.evictor.Evict(ctx, framework.Eviction{
		Victim: pod, Node: pod.NodeName, Cause: framework.EvictTaint, Message: Message,
	})
	if errors.Is(err, decisionlog.ErrAlreadyEvicted) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("taint eviction of %s: %w", pod.Key(), err)
	}
	return nil
}

// A deadline's value: when the eviction was started (8 bytes, Unix
// nanoseconds, big endian), then the node's name.
func encodeValue(node string, started time.Time) []byte {
	v := binary.BigEndian.AppendUint64(nil, uint64(started.UnixNano()))
	return append(v, node...)
}

func decodeValue(v []byte) (node string, started time.Time, err error) {
	if len(v) < 8 {
		return "", time.Time{}, fmt.Errorf("taint deadline value of %d bytes", len(v))
	}
	return string(v[8:]), time.Unix(0, int64(binary.BigEndian.Uint64(v))), nil
}
