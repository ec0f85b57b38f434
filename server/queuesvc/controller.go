package queuesvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/quota/integrations"
	"github.com/berthsched/berth/core/quota/workloadpods"
)

// Objects is what the controller needs of the object store: the pods as
// sent, the nodes' labels, and RefreshPod once a pod's gate is lifted.
// *objstore.Store fits.
type Objects interface {
	SentPod(uid string) (*model.Pod, bool)
	Node(name string) (*model.Node, bool)
	RefreshPod(ctx context.Context, ref objstore.Ref) error
}

// Admissions is the book of durable admissions (server/podbook's Book):
// the decision log writes them with the Admit, the controller reads them
// each round and forgets those of workloads gone.
type Admissions interface {
	Admissions() []*berthv1.Admit
	ForgetAdmission(ctx context.Context, namespace, name, uid string) error
}

// Options configure a Controller.
type Options struct {
	Objects Objects
	Holder  *holder.Holder
	Planner framework.Planner
	Book    Admissions
	// Binding returns the node of a pod's Bind awaiting its outcome, if
	// any: a preempted workload's binding pods are evicted too.
	Binding func(podUID string) (node string, ok bool)
	// MarkEvicted holds a pod whose quota Evict is durable terminating in
	// the scheduler until the orchestrator deletes it, as
	// server/eviction does for the other causes; nil does nothing.
	MarkEvicted func(ctx context.Context, podUID string)
	// Evicted tells whether a pod has an Evict decision (it is
	// terminating): a running pod of a workload preempted before a
	// restart still holds its quota until it is deleted, but is not
	// admitted again.
	Evicted func(podUID string) bool
	// Placement builds, for one round, the checker of Berth's
	// placement-aware admission over a consistent copy of the live
	// cluster (core/quota/placement over the scheduler's nodes, bound and
	// binding pods and nominations); it is called only in rounds where a
	// ClusterQueue wants placement (quota.ClusterQueue.AdmissionPlacement).
	// nil: those ClusterQueues admit on quota alone, as Kueue does.
	Placement func(ctx context.Context) (admission.PlacementChecker, error)
	// Config is Kueue's Configuration (fair sharing and its strategies).
	Config quota.Config
	// Debounce is how long a round waits after the first event for more;
	// 0 means DefaultDebounce.
	Debounce time.Duration
	// Registerer receives Kueue's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Clock is the admission wait's clock; nil means time.Now.
	Clock  func() time.Time
	Logger *slog.Logger
}

// DefaultDebounce is the Options' default Debounce: while events arrive,
// at most one round every 20 ms.
const DefaultDebounce = 20 * time.Millisecond

// Controller decides Kueue admission live (see the package doc). It is
// safe for concurrent use.
//
// Lock order: mu, then the object store's (Handle reads the pod as sent
// under mu); gateMu is a leaf, taken under the object store's lock by
// Mutate. A round holds neither mu nor gateMu while it calls out (the
// planner, RefreshPod, the book).
type Controller struct {
	opts   Options
	logger *slog.Logger
	m      *metrics

	// mu guards the caches the event handler fills.
	mu         sync.Mutex
	pods       map[string]*model.Pod // labelled pods as sent, by uid
	groups     map[string]*model.PodGroup
	namespaces map[string]*model.Namespace
	classes    map[string]*model.PriorityClass
	// events counts the events that may change admission; rounds records
	// the count the last finished round started from.
	events, rounds    uint64
	started, relisted bool
	// placement: the last round had a ClusterQueue with placement-aware
	// admission; node events and pod deletions (room freed) then schedule
	// rounds too.
	placement bool
	// evicting are the workloads preempted in this process whose pods
	// are not all gone yet: they keep their quota meanwhile.
	evicting map[string]*evicting
	// regate are the PodGroups whose queue-name label came or went since
	// the last round: their members are applied again.
	regate map[string]bool
	// admitTimes are when this process admitted each workload.
	admitTimes map[string]time.Time
	status     Status
	// progress is broadcast when a round ends or sync changes.
	progress *sync.Cond

	// gateMu guards released, read by the pod mutator on the hot path.
	gateMu sync.RWMutex
	// released are the admitted workloads' flavors by pod set, by
	// workload key: their pods are ungated with them.
	released map[string]map[string][]*quota.ResourceFlavor
	// ownerReleased are, by owner workload key (a queued Job's or
	// StatefulSet's), the pods released within its admitted count; its
	// other pods stay gated.
	ownerReleased map[string]map[string]bool
	// heldCounts are, by explicit workload key, the pods admitted of each
	// pod set: its held pods (core/quota/workloadpods) of a lower index
	// are released with released's flavors, the others stay gated
	// (partial admission).
	heldCounts map[string]map[string]int32
	// queuedGroups are the PodGroups labelled with a queue name (their
	// queue, by group key): their members are gated labelled or not.
	queuedGroups map[string]string

	kick chan struct{}

	// derived are the workloads derived from pods, kept between rounds;
	// the rounds own it (one at a time).
	derived derivations
}

// evicting is a preempted workload until its pods are gone.
type evicting struct{ admission *quota.Admission }

// New builds a controller; Handle is its objstore subscription's handler,
// Mutate its pod mutator, Run its loop.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Objects == nil || opts.Holder == nil || opts.Planner == nil || opts.Book == nil:
		return nil, errors.New("queuesvc: Options.Objects, Holder, Planner and Book are required")
	case opts.Debounce < 0:
		return nil, fmt.Errorf("queuesvc: Options.Debounce: %v is negative", opts.Debounce)
	}
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Binding == nil {
		opts.Binding = func(string) (string, bool) { return "", false }
	}
	if opts.MarkEvicted == nil {
		opts.MarkEvicted = func(context.Context, string) {}
	}
	if opts.Evicted == nil {
		opts.Evicted = func(string) bool { return false }
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("queuesvc: register metrics: %w", err)
	}
	c := &Controller{
		opts: opts, logger: opts.Logger, m: m,
		pods: map[string]*model.Pod{}, groups: map[string]*model.PodGroup{},
		namespaces: map[string]*model.Namespace{}, classes: map[string]*model.PriorityClass{},
		evicting: map[string]*evicting{}, regate: map[string]bool{}, admitTimes: map[string]time.Time{}, released: map[string]map[string][]*quota.ResourceFlavor{},
		ownerReleased: map[string]map[string]bool{}, heldCounts: map[string]map[string]int32{}, queuedGroups: map[string]string{},
		kick: make(chan struct{}, 1),
	}
	c.progress = sync.NewCond(&c.mu)
	return c, nil
}

// Restore takes back the admissions the book restored after a restart (or
// on becoming the leader): their pods are released from the gate as soon
// as they are sent again (once their flavors are held: the first round
// after the flavors arrive releases them), and no workload is admitted
// twice.
func (c *Controller) Restore(admits []*berthv1.Admit) {
	flavors := flavorIndex(c.opts.Holder.Objects(c.opts.Config))
	c.gateMu.Lock()
	defer c.gateMu.Unlock()
	for _, a := range admits {
		if rel, ok := releaseOf(a, flavors); ok {
			// heldCounts are set by the first round, which knows the
			// explicit workloads (their held pods stay gated until then).
			c.released[a.GetWorkloadNamespace()+"/"+a.GetWorkloadName()] = rel
		}
	}
}

// Start starts the rounds: without a restart at once; after one, once
// the orchestrator's pods are known (its first re-list, or berthd's
// initial sync timeout), as Kueue waits for its caches to sync: admitting
// before the running pods are known would count quota as free that is
// not.
func (c *Controller) Start() {
	c.mu.Lock()
	c.started = true
	c.events++
	c.mu.Unlock()
	c.wake()
}

// Relisted says that every pod the orchestrator has was sent (no
// restart, or a re-list ended): from now on the admission of a workload
// none of whose pods is known is forgotten as gone. Before it, a pod not
// re-sent yet keeps its workload's admission. It starts the rounds too.
func (c *Controller) Relisted() {
	c.mu.Lock()
	c.relisted = true
	c.mu.Unlock()
	c.Start()
}

func (c *Controller) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// MayMutate says whether Mutate may change p, now or later: p has a queue
// label or belongs to a pod group (whose PodGroup may be labelled). The
// object store keeps the others only as applied (objstore's KeepSentPod).
func MayMutate(p *model.Pod) bool {
	_, labelled := p.Labels[integrations.QueueNameLabel]
	return labelled || p.SchedulingGroup != ""
}

// Mutate is the object store's pod mutator: a pod labelled with a queue
// name (or a member of a PodGroup labelled with one) and not bound is gated (admission.AdmissionGate) until its
// workload is admitted, then released with its pod set's flavors (node
// labels as node selector, tolerations), as admission.ApplyToPods does. A
// pod without the label and in no group costs one map lookup.
func (c *Controller) Mutate(p *model.Pod) *model.Pod {
	if p.NodeName != "" {
		return p
	}
	if _, ok := p.Labels[integrations.QueueNameLabel]; !ok && (p.SchedulingGroup == "" || !c.groupQueued(p.Namespace+"/"+p.SchedulingGroup)) {
		return p
	}
	key, podSet, owned := workloadOfPod(p)
	held, isHeld := workloadpods.Of(p)
	c.gateMu.RLock()
	flavors, ok := c.released[key][podSet]
	if owned && !c.ownerReleased[key][p.Key()] {
		ok = false // beyond its owner's admitted count, or not counted yet
	}
	if isHeld && held.Index >= c.heldCounts[key][podSet] {
		ok = false // beyond its pod set's admitted count (partial admission)
	}
	c.gateMu.RUnlock()
	if !ok {
		// Not admitted, or a member of a pod set its admission has not.
		return admission.Gated(p)
	}
	return admission.Released(p, flavors)
}

// workloadOfPod is the key of the workload a labelled pod belongs to and
// its pod set: its explicit Workload's (a pod Berth holds for it,
// core/quota/workloadpods), its PodGroup's (the pod set named by its
// shape), its queued owner's (owned: a Job's or StatefulSet's,
// integrations.OwnerOf), or its own one-pod workload's ("main").
func workloadOfPod(p *model.Pod) (key, podSet string, owned bool) {
	if r, ok := workloadpods.Of(p); ok {
		return r.WorkloadKey(), r.PodSet, false
	}
	if p.SchedulingGroup != "" {
		return p.Namespace + "/" + p.SchedulingGroup, integrations.PodSetName(p), false
	}
	if o, ok, _ := integrations.OwnerOf(p); ok {
		return o.Key(), o.PodSetName(p), true
	}
	return p.Namespace + "/" + integrations.Name("Pod", "", p.Name, p.UID), integrations.MainPodSet, false
}

// Handle is the controller's objstore subscription handler: it keeps the
// labelled pods (as sent), pod groups, namespaces and priority classes,
// and schedules a round for any change that may change admission. Every
// pod event comes here: an unlabelled pod costs a lock and a map lookup,
// and allocates nothing; while no ClusterQueue is held a labelled pod
// schedules no round.
func (c *Controller) Handle(_ context.Context, ev objstore.Event) {
	changed := false
	c.mu.Lock()
	switch ev.Kind {
	case objstore.KindPod:
		changed = c.podEventLocked(ev)
		if !changed && c.placement && ev.New == nil {
			changed = true // room freed on a node
		}
	case objstore.KindNode:
		changed = c.placement
	case objstore.KindPodGroup:
		if g, ok := ev.New.(*model.PodGroup); ok {
			c.groups[g.Key()] = g
			c.setGroupQueueLocked(g.Key(), g.Labels)
		} else if g, ok := ev.Old.(*model.PodGroup); ok {
			delete(c.groups, g.Key())
			c.setGroupQueueLocked(g.Key(), nil)
		}
		changed = true
	case objstore.KindNamespace:
		if ns, ok := ev.New.(*model.Namespace); ok {
			c.namespaces[ns.Name] = ns
		} else if ns, ok := ev.Old.(*model.Namespace); ok {
			delete(c.namespaces, ns.Name)
		}
		changed = true
	case objstore.KindPriorityClass:
		if pc, ok := ev.New.(*model.PriorityClass); ok {
			c.classes[pc.Name] = pc
		} else if pc, ok := ev.Old.(*model.PriorityClass); ok {
			delete(c.classes, pc.Name)
		}
		changed = true
	case holder.KindResourceFlavor, holder.KindClusterQueue, holder.KindCohort, holder.KindLocalQueue,
		holder.KindWorkloadPriorityClass, holder.KindWorkload:
		changed = true
	}
	c.mu.Unlock()
	if !changed {
		return
	}
	if (ev.Kind == objstore.KindPod || ev.Kind == objstore.KindNode) && c.opts.Holder.ClusterQueues() == 0 {
		// Nothing can admit the pod's workload: no round (the pod stays
		// gated by Mutate). A ClusterQueue's arrival is an event and its
		// round sees the pods kept meanwhile.
		return
	}
	c.mu.Lock()
	c.events++
	c.mu.Unlock()
	c.wake()
}

// podEventLocked follows a pod event; false when it changes nothing the
// controller keeps (an unlabelled pod, or the controller's own refresh).
func (c *Controller) podEventLocked(ev objstore.Event) bool {
	cur, _ := ev.New.(*model.Pod)
	old, _ := ev.Old.(*model.Pod)
	p := cur
	if p == nil {
		p = old
	}
	if p == nil {
		return false
	}
	was, held := c.pods[p.UID]
	if cur == nil {
		delete(c.pods, p.UID)
		return held && c.queuedLocked(was)
	}
	// The mutators change no label: an unlabelled pod, not held and in
	// no group, is nothing to the controller (the common case, without a
	// lookup). A group's members are kept labelled or not: a labelled
	// PodGroup queues them all.
	if _, labelled := cur.Labels[integrations.QueueNameLabel]; !labelled && !held && cur.SchedulingGroup == "" {
		return false
	}
	sent, ok := c.opts.Objects.SentPod(p.UID)
	if !ok {
		sent = cur
	}
	_, labelled := sent.Labels[integrations.QueueNameLabel]
	if !labelled && sent.SchedulingGroup == "" {
		delete(c.pods, p.UID)
		return held
	}
	if was == sent {
		return false // applied again as sent: the controller's refresh
	}
	c.pods[p.UID] = sent
	return c.queuedLocked(sent) || held && c.queuedLocked(was)
}

// queuedLocked says whether a pod kept may be part of a workload: it is
// labelled with a queue name, or its PodGroup is. The unlabelled members
// of a group no queue holds change nothing.
func (c *Controller) queuedLocked(p *model.Pod) bool {
	if _, ok := p.Labels[integrations.QueueNameLabel]; ok {
		return true
	}
	return p.SchedulingGroup != "" && c.groupQueued(p.Namespace+"/"+p.SchedulingGroup)
}

// setGroupQueueLocked records whether a PodGroup is queued by its own
// queue-name label, for the pod mutator; when that changes, the next
// round applies its members again (gated or not).
func (c *Controller) setGroupQueueLocked(key string, labels map[string]string) {
	q, ok := labels[integrations.QueueNameLabel]
	c.gateMu.Lock()
	old, was := c.queuedGroups[key]
	if ok {
		c.queuedGroups[key] = q
	} else {
		delete(c.queuedGroups, key)
	}
	c.gateMu.Unlock()
	if was != ok || old != q {
		c.regate[key] = true
	}
}

// groupQueued says whether the PodGroup key is labelled with a queue name.
func (c *Controller) groupQueued(key string) bool {
	c.gateMu.RLock()
	defer c.gateMu.RUnlock()
	_, ok := c.queuedGroups[key]
	return ok
}

// Run runs admission rounds until ctx ends: after an event, it waits the
// debounce for more, then runs one round over a snapshot; one round at a
// time.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTimer(c.opts.Debounce)
	t.Stop()
	defer t.Stop()
	defer func() {
		c.mu.Lock()
		c.rounds = c.events
		c.progress.Broadcast()
		c.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		t.Reset(c.opts.Debounce)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		started, relisted, from := c.started, c.relisted, c.events
		c.mu.Unlock()
		if started {
			if err := c.round(ctx, relisted); err != nil && ctx.Err() == nil {
				c.logger.Error("admission round failed; the next event retries it", "err", err)
			}
		}
		c.mu.Lock()
		c.rounds = from
		c.progress.Broadcast()
		c.mu.Unlock()
	}
}

// Settle returns once a round has run over every event handled before it
// was called (or the loop ended, or ctx ended: its error); tests and
// in-process drivers call it after the object store's Wait.
func (c *Controller) Settle(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	target := c.events
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.progress.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	for c.rounds < target {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.progress.Wait()
	}
	return nil
}

// RoundPending reports whether events were handled that no finished round
// started from: a round is due or running. Callers wanting every change
// applied before counted wait for the object store's subscribers first
// (objstore.Store.Wait); unlike Settle, it does not block.
func (c *Controller) RoundPending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rounds < c.events
}

// Status is the controller's view after its last round.
func (c *Controller) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}
