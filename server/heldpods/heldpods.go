// Package heldpods keeps in berthd's object store the pods Berth holds
// for explicit Workloads sent with hold_pods (issue 31), as
// core/quota/workloadpods makes them.
//
// Data in: the object store's events (server/daemon subscribes Handle):
// a Workload upserted holds its pods (the missing ones are upserted, those
// beyond a count shrunk are deleted, a pending one whose template changed
// is upserted again), a Workload deleted deletes its pods, a held pod
// deleted (by the orchestrator: it stopped it, because it finished or was
// evicted) is upserted again, pending, while its Workload still holds it.
// Data out: the pods, through the object store like the orchestrator's
// (so Kueue's gate, admission, the book's rules and the scheduler see them
// as any pod); Holds and HoldsName tell the daemon which pods are Berth's
// (a re-list of the pods leaves them, a pod of their name sent is
// refused, a CONFIRMED report leaves their bind outstanding).
//
// Held pods are a function of the Workloads held: after a restart, or on
// becoming the leader, the orchestrator's re-list of the Workloads makes
// them again (same names and uids), and the binds restored by the book
// hold them on their nodes.
//
// Lock order: mu is a leaf; Handle calls the object store holding none.
package heldpods

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/quota/workloadpods"
	"github.com/berthsched/berth/core/scheduler"
)

// Objects is what the controller needs of the object store; *objstore.Store
// fits.
type Objects interface {
	Upsert(ctx context.Context, obj any) error
	Delete(ctx context.Context, ref objstore.Ref) error
}

// Options configure a Controller.
type Options struct {
	Objects Objects
	// Bound says whether a pod is bound or binding (its Bind awaits an
	// outcome): such a pod is never upserted again pending.
	Bound  func(uid string) bool
	Logger *slog.Logger
}

// Controller holds the pods of explicit Workloads. It is safe for
// concurrent use.
type Controller struct {
	opts Options

	mu sync.Mutex
	// pods are, by workload key, the pods it holds, by uid.
	pods map[string]map[string]*model.Pod
	// byUID and byName index the pods held: their workload key.
	byUID, byName map[string]string
}

// New returns a controller holding no pods.
func New(opts Options) (*Controller, error) {
	if opts.Objects == nil {
		return nil, errors.New("heldpods: Options.Objects is required")
	}
	if opts.Bound == nil {
		opts.Bound = func(string) bool { return false }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Controller{opts: opts, pods: map[string]map[string]*model.Pod{}, byUID: map[string]string{}, byName: map[string]string{}}, nil
}

// Holds says whether the pod of uid is one Berth holds, and of which
// workload ("namespace/name").
func (c *Controller) Holds(uid string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.byUID[uid]
	return k, ok
}

// HoldsName says whether namespace/name is a pod Berth holds, and of
// which workload.
func (c *Controller) HoldsName(namespace, name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.byName[namespace+"/"+name]
	return k, ok
}

// Handle is the controller's objstore subscription handler (see the
// package doc). Failures are logged: the next change of the Workload (or
// its re-list) tries again.
func (c *Controller) Handle(ctx context.Context, ev objstore.Event) {
	var err error
	switch ev.Kind {
	case holder.KindWorkload:
		if w, ok := ev.New.(*quota.Workload); ok {
			err = c.hold(ctx, w.Key(), workloadpods.Pods(w))
		} else if w, ok := ev.Old.(*quota.Workload); ok {
			err = c.hold(ctx, w.Key(), nil)
		}
	case objstore.KindPod:
		if old, ok := ev.Old.(*model.Pod); ok && ev.New == nil {
			err = c.deleted(ctx, old)
		}
	}
	if err != nil && ctx.Err() == nil {
		c.opts.Logger.Error("holding the pods of a Workload failed", "err", err)
	}
}

// hold makes the pods held for workload key want: those no longer wanted
// are deleted, then those missing (or pending and changed) upserted.
func (c *Controller) hold(ctx context.Context, key string, want []*model.Pod) error {
	c.mu.Lock()
	had := c.pods[key]
	next := make(map[string]*model.Pod, len(want))
	var gone, upsert []*model.Pod
	for _, p := range want {
		old, ok := had[p.UID]
		switch {
		case ok && (reflect.DeepEqual(old, p) || c.opts.Bound(p.UID)):
			next[p.UID] = old // as it is; a bound pod is never made pending
		default:
			next[p.UID] = p
			upsert = append(upsert, p)
		}
	}
	for uid, p := range had {
		if _, ok := next[uid]; !ok {
			gone = append(gone, p)
			delete(c.byUID, uid)
			delete(c.byName, p.Key())
		}
	}
	for uid, p := range next {
		c.byUID[uid] = key
		c.byName[p.Key()] = key
	}
	if len(next) == 0 {
		delete(c.pods, key)
	} else {
		c.pods[key] = next
	}
	c.mu.Unlock()

	slices.SortFunc(gone, func(a, b *model.Pod) int { return compareNames(a.Name, b.Name) })
	var errs []error
	for _, p := range gone {
		err := c.opts.Objects.Delete(ctx, objstore.Ref{Kind: objstore.KindPod, Namespace: p.Namespace, Name: p.Name, UID: p.UID})
		if err != nil && !errors.Is(err, scheduler.ErrPodNotFound) {
			errs = append(errs, fmt.Errorf("heldpods: delete pod %s of workload %s: %w", p.Key(), key, err))
		}
	}
	for _, p := range upsert {
		if err := c.opts.Objects.Upsert(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("heldpods: upsert pod %s of workload %s: %w", p.Key(), key, err))
		}
	}
	return errors.Join(errs...)
}

// deleted follows a pod's deletion: a held pod its Workload still holds
// is upserted again, pending (its bind and nomination ended with it).
func (c *Controller) deleted(ctx context.Context, old *model.Pod) error {
	c.mu.Lock()
	key, ok := c.byUID[old.UID]
	var p *model.Pod
	if ok {
		p = c.pods[key][old.UID]
	}
	c.mu.Unlock()
	if p == nil {
		return nil // not held, or deleted by hold itself
	}
	if err := c.opts.Objects.Upsert(ctx, p); err != nil {
		return fmt.Errorf("heldpods: upsert pod %s of workload %s again: %w", p.Key(), key, err)
	}
	return nil
}

// compareNames orders pod names, shorter first, so that a workload's
// pods go in index order.
func compareNames(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
