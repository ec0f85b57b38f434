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
	"github.com/berthsched/berth/core/tainteviction"
	"github.com/berthsched/berth/server/deadlines"
	"github.com/berthsched/berth/server/decisionlog"
)

// Prefix starts the names of the controller's deadlines.
const Prefix = "taint/"

// Message is the reason kube's controller gives an evicted pod (its
// DisruptionTarget condition, reason DeletionByTaintManager).
const Message = "Taint manager: deleting due to NoExecute taint"

// Pods is the scheduler's read side of the pods; scheduler.View fits.
type Pods interface {
	Pod(uid string) (*model.Pod, bool)
	Pods() []*model.Pod
}

// Evictor evicts a pod durably; *eviction.Evictor fits.
type Evictor interface {
	Evict(ctx context.Context, e framework.Eviction) error
}

// Controller applies the NoExecute rules. It is safe for concurrent use.
type Controller struct {
	pods    Pods
	evictor Evictor
	timers  *deadlines.Timers
	now     func() time.Time
	logger  *slog.Logger

	mu sync.Mutex
	// tainted holds the NoExecute taints of each node that has some.
	tainted map[string][]model.Taint
}

// New returns a controller, and registers its deadlines with timers.
func New(pods Pods, evictor Evictor, timers *deadlines.Timers, now func() time.Time, logger *slog.Logger) *Controller {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{pods: pods, evictor: evictor, timers: timers, now: now, logger: logger, tainted: map[string][]model.Taint{}}
	timers.Own(Prefix, c.fire)
	return c
}

// NodeChanged applies a node's taints (those the scheduler filters with).
// A node seen for the first time, or whose NoExecute taints changed, has
// each of its pods computed again.
func (c *Controller) NodeChanged(ctx context.Context, node *model.Node) error {
	taints := tainteviction.NoExecute(node.Taints)
	c.mu.Lock()
	defer c.mu.Unlock()
	old, known := c.tainted[node.Name]
	if known && slices.Equal(old, taints) {
		return nil
	}
	if len(taints) == 0 {
		delete(c.tainted, node.Name)
		if !known {
			return nil
		}
	} else {
		c.tainted[node.Name] = taints
	}
	var errs []error
	for _, p := range c.pods.Pods() {
		if p.NodeName == node.Name {
			errs = append(errs, c.processLocked(ctx, p, taints))
		}
	}
	return errors.Join(errs...)
}

// NodeDeleted forgets a node's taints; its pods' scheduled evictions stay
// (as kube's).
func (c *Controller) NodeDeleted(name string) {
	c.mu.Lock()
	delete(c.tainted, name)
	c.mu.Unlock()
}

// PodChanged computes a bound pod again against its node's taints.
func (c *Controller) PodChanged(ctx context.Context, pod *model.Pod) error {
	if pod.NodeName == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	taints, ok := c.tainted[pod.NodeName]
	if !ok {
		return nil
	}
	return c.processLocked(ctx, pod, taints)
}

// PodDeleted cancels the pod's scheduled eviction.
func (c *Controller) PodDeleted(ctx context.Context, uid string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.Cancel(ctx, Prefix+uid)
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
	if tainteviction.Decide(c.tainted[node], pod.Tolerations, scheduled, c.now()).Verdict == tainteviction.Leave {
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
