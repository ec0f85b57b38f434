// Command fleet is an example orchestrator on Berth's Go client: it
// registers a few nodes, submits pods (one that must preempt, one that can
// never fit), binds what Berth binds, stops and deletes what Berth evicts
// (logging why: preemption, a taint, the eviction API, node pressure), and
// exits 0 once every schedulable pod runs and the one that cannot fit was
// reported unschedulable. It fails if Berth binds one of its pods twice.
//
// Its session re-lists nodes, pods and priority classes. Berth scopes a
// re-list by kind only, so each re-list deletes every node, pod and priority
// class that this example did not send, including another orchestrator's:
// run it against a berthd of its own (clients/run-examples runs the three
// examples one after another), not one that a real orchestrator uses.
//
//	cd clients/go && go run ./examples/fleet --server 127.0.0.1:7070
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/clients/go"
)

const (
	namespace = "fleet-go"
	prefix    = "fleet-go-" // of cluster-scoped names: nodes, priority classes
	neverFits = "huge"
)

func main() {
	server := flag.String("server", envOr("BERTH_SERVER", "127.0.0.1:7070"), "berthd address, host:port, or the replicas' comma-separated")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "bearer token, if berthd wants one")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server, *token); err != nil {
		fmt.Fprintln(os.Stderr, "fleet (go): FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("fleet (go): OK, every schedulable pod is running")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// cluster is the orchestrator's own record: the source of truth it re-lists.
type cluster struct {
	mu            sync.Mutex
	run           string                     // this run's id, in every uid
	pods          map[string]*berthv1.Pod    // by name
	other         map[string]*berthv1.Object // nodes and priority classes, by name
	bindRevision  map[string]uint64          // pod -> revision of the Bind it runs by
	evicted       map[string]bool
	unschedulable map[string]string // pod -> message
	changed       chan struct{}     // capacity 1
}

func (c *cluster) list(context.Context) ([]*berthv1.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*berthv1.Object
	for _, o := range c.other {
		out = append(out, proto.Clone(o).(*berthv1.Object))
	}
	for _, p := range c.pods {
		out = append(out, &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: proto.Clone(p).(*berthv1.Pod)}})
	}
	return out, nil
}

func (c *cluster) notify() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func node(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:        prefix + name,
		Labels:      map[string]string{"fleet": namespace},
		Allocatable: resources(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "110"}),
	}}}
}

// resources converts Kubernetes quantities to Berth's canonical integers.
// The example's quantities are constants, so a bad one is a bug.
func resources(quantities map[string]string) map[string]int64 {
	r, err := berth.ParseResources(quantities)
	if err != nil {
		panic(err)
	}
	return r
}

func priorityClass(name string, value int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: prefix + name, Value: value}}}
}

// addPod records a new pod and returns a copy to send to Berth: the record
// first, then Berth, as the session requires (its re-list, which reads the
// record, supersedes calls made before it).
func (c *cluster) addPod(name, class, cpu string) *berthv1.Object {
	p := &berthv1.Pod{
		Namespace: namespace, Name: name, Uid: name + "-" + c.run,
		PriorityClassName: prefix + class,
		NodeSelector:      map[string]string{"fleet": namespace},
		Containers:        []*berthv1.Container{{Name: "main", Requests: resources(map[string]string{"cpu": cpu, "memory": "256Mi"})}},
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[name] = p
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: proto.Clone(p).(*berthv1.Pod)}}
}

func run(ctx context.Context, server, token string) error {
	var opts []berth.Option
	if token != "" {
		opts = append(opts, berth.WithToken(token))
	}
	bc, err := berth.Dial(ctx, server, opts...)
	if err != nil {
		return err
	}
	defer bc.Close()

	c := &cluster{
		run:  fmt.Sprintf("%x", time.Now().UnixNano()),
		pods: map[string]*berthv1.Pod{}, other: map[string]*berthv1.Object{}, bindRevision: map[string]uint64{},
		evicted: map[string]bool{}, unschedulable: map[string]string{}, changed: make(chan struct{}, 1),
	}
	for _, o := range []*berthv1.Object{node("n1"), node("n2"), node("n3"), priorityClass("low", 100), priorityClass("high", 1000)} {
		c.other[o.GetNode().GetName()+o.GetPriorityClass().GetName()] = o
	}
	// Three low-priority batch jobs fill three quarters of every node. They
	// are in the record before the session starts, so its first re-list
	// sends them with the nodes and priority classes: no Upsert needed.
	c.addPod("batch-1", "low", "1500m")
	c.addPod("batch-2", "low", "1500m")
	c.addPod("batch-3", "low", "1500m")
	// The re-list is scoped to the kinds this example sends, which the API
	// allows; within a kind it is global (see the package comment).
	session := bc.NewSession(c.list, berth.ResyncKinds(berthv1.ObjectKind_OBJECT_KIND_NODE,
		berthv1.ObjectKind_OBJECT_KIND_POD, berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS))
	watcher := bc.NewWatcher(&berth.MemoryCheckpoint{}, func(ctx context.Context, d *berthv1.Decision) error {
		return c.handle(ctx, session, d)
	}, berth.StartAt(1), berth.OnCompacted(func(_ context.Context, ce *berth.CompactedError) (uint64, error) {
		return ce.Oldest, nil // nothing of this run was compacted: it just started
	}))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- session.Run(ctx) }()
	go func() { errs <- watcher.Run(ctx) }()

	fmt.Println("registered 3 nodes and 3 low-priority batch pods")
	if err := c.await(ctx, errs, func() bool { return c.running("batch-1", "batch-2", "batch-3") }); err != nil {
		return fmt.Errorf("waiting for the batch pods: %w", err)
	}
	// A high-priority pod that fits nowhere unless a batch job goes, and one
	// that no node can ever hold.
	urgent := []*berthv1.Object{c.addPod("critical", "high", "1"), c.addPod(neverFits, "low", "64")}
	if err := session.Upsert(ctx, urgent...); err != nil {
		return fmt.Errorf("submit urgent pods: %w", err)
	}
	fmt.Println("submitted critical (must preempt) and huge (never fits)")
	if err := c.await(ctx, errs, c.done); err != nil {
		return err
	}
	c.report()
	c.cleanup(ctx, bc)
	return nil
}

// handle acts on one decision about this run's pods.
func (c *cluster) handle(ctx context.Context, session *berth.Session, d *berthv1.Decision) error {
	ref := d.GetPod()
	c.mu.Lock()
	p := c.pods[ref.GetName()]
	mine := ref.GetNamespace() == namespace && p != nil && p.GetUid() == ref.GetUid()
	c.mu.Unlock()
	if !mine {
		return nil // another orchestrator's, or an earlier run's
	}
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		// "Start" the pod, then confirm the bind by upserting it with
		// node_name set (the API's other confirmation, equivalent to
		// ReportBindResult CONFIRMED). Through the session it is ordered
		// after every earlier upsert of the pod, so no older, pending copy
		// can arrive after it and undo it.
		c.mu.Lock()
		if rev := c.bindRevision[ref.GetName()]; rev != 0 && rev != d.GetRevision() {
			c.mu.Unlock()
			return fmt.Errorf("pod %s bound twice: to %s at revision %d, to %s at revision %d",
				ref.GetName(), p.GetNodeName(), rev, a.Bind.GetNode(), d.GetRevision())
		}
		c.bindRevision[ref.GetName()] = d.GetRevision()
		p.NodeName = a.Bind.GetNode()
		running := &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: proto.Clone(p).(*berthv1.Pod)}}
		c.mu.Unlock()
		if err := session.Upsert(ctx, running); err != nil {
			return err
		}
		fmt.Printf("rev %d: bind %s -> %s (confirmed)\n", d.GetRevision(), ref.GetName(), a.Bind.GetNode())
	case *berthv1.Decision_Evict:
		// Stop the pod within its grace period, then delete it from Berth as
		// the orchestrator would once it has stopped. The example's pods run
		// nothing, so they stop at once, within any grace period.
		fmt.Printf("rev %d: evict %s from %s (%s: %s); stopped within %s\n", d.GetRevision(), ref.GetName(),
			a.Evict.GetNode(), evictCause(a.Evict), a.Evict.GetReason(), gracePeriod(a.Evict))
		c.mu.Lock()
		delete(c.pods, ref.GetName())
		c.evicted[ref.GetName()] = true
		c.mu.Unlock()
		del := &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: namespace, Name: ref.GetName(), Uid: ref.GetUid()}
		if err := session.Delete(ctx, del); err != nil {
			return err
		}
	case *berthv1.Decision_Nominate:
		fmt.Printf("rev %d: nominate %s on %s\n", d.GetRevision(), ref.GetName(), a.Nominate.GetNode())
	case *berthv1.Decision_ClearNomination:
		fmt.Printf("rev %d: clear nomination of %s\n", d.GetRevision(), ref.GetName())
	case *berthv1.Decision_Unschedulable:
		c.mu.Lock()
		_, seen := c.unschedulable[ref.GetName()]
		c.unschedulable[ref.GetName()] = a.Unschedulable.GetMessage()
		c.mu.Unlock()
		if !seen {
			fmt.Printf("rev %d: %s unschedulable: %s\n", d.GetRevision(), ref.GetName(), a.Unschedulable.GetMessage())
		}
	}
	c.notify()
	return nil
}

// evictCause says what made Berth evict a pod. Every cause asks the same of
// the orchestrator (stop the pod, then delete it); an orchestrator might
// act on them differently, say reschedule a preempted job at once but alert
// on node pressure.
func evictCause(e *berthv1.Evict) string {
	switch e.GetCause() {
	case berthv1.EvictCause_EVICT_CAUSE_PREEMPTION, berthv1.EvictCause_EVICT_CAUSE_UNSPECIFIED:
		// UNSPECIFIED: written before Berth recorded causes, all preemptions.
		return "preempted for " + e.GetPreemptor().GetNamespace() + "/" + e.GetPreemptor().GetName()
	case berthv1.EvictCause_EVICT_CAUSE_TAINT:
		return "a NoExecute taint on its node"
	case berthv1.EvictCause_EVICT_CAUSE_API:
		return "the eviction API"
	case berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE:
		return "node pressure"
	default:
		return fmt.Sprintf("cause %d, newer than this example", e.GetCause())
	}
}

// gracePeriod is how long the pod may take to stop.
func gracePeriod(e *berthv1.Evict) string {
	if e.GracePeriodSeconds == nil {
		return "its own termination grace period"
	}
	if e.GetGracePeriodSeconds() == 0 {
		return "0s (killed at once)"
	}
	return (time.Duration(e.GetGracePeriodSeconds()) * time.Second).String()
}

func (c *cluster) running(names ...string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		if p := c.pods[n]; p == nil || p.GetNodeName() == "" {
			return false
		}
	}
	return true
}

// done: every pod still held but the never-fitting one runs, one batch pod
// was evicted for the critical one, and the never-fitting one was reported.
func (c *cluster) done() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, p := range c.pods {
		if name != neverFits && p.GetNodeName() == "" {
			return false
		}
	}
	_, reported := c.unschedulable[neverFits]
	return reported && len(c.evicted) > 0 && c.pods["critical"] != nil
}

// await blocks until cond holds, a background loop fails, or ctx ends.
func (c *cluster) await(ctx context.Context, errs <-chan error, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			c.report()
			return fmt.Errorf("timed out: %w", ctx.Err())
		case err := <-errs:
			return err
		case <-c.changed:
		}
	}
	return nil
}

func (c *cluster) report() {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.pods))
	for n := range c.pods {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		where := c.pods[n].GetNodeName()
		if where == "" {
			where = "pending"
		}
		fmt.Printf("  %-10s %s\n", n, where)
	}
	evicted := make([]string, 0, len(c.evicted))
	for n := range c.evicted {
		evicted = append(evicted, n)
	}
	slices.Sort(evicted)
	fmt.Printf("  evicted: %v\n", evicted)
}

// cleanup removes this run's objects so later runs start from nothing.
func (c *cluster) cleanup(ctx context.Context, bc *berth.Client) {
	c.mu.Lock()
	var refs []*berthv1.ObjectRef
	for _, p := range c.pods {
		refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: namespace, Name: p.GetName()})
	}
	for _, o := range c.other {
		if n := o.GetNode(); n != nil {
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: n.GetName()})
		} else {
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, Name: o.GetPriorityClass().GetName()})
		}
	}
	c.mu.Unlock()
	var be *berth.BatchError
	if err := bc.Delete(ctx, refs...); err != nil && !errors.As(err, &be) {
		fmt.Fprintln(os.Stderr, "cleanup:", err)
	}
}
