// Command batch is an example of queues and quotas (Kueue's model) on
// Berth's Go client: two teams share a cohort of two ClusterQueues of
// 4 cpu each. Team A submits eight 1-cpu pods: four fit its own quota and
// four borrow team B's unused quota, so all eight are admitted and bound.
// Team B then submits two pods: its ClusterQueue reclaims its nominal
// quota (reclaimWithinCohort: Any), so Berth evicts two of team A's
// borrowing pods with cause QUOTA; the example deletes them, as an
// orchestrator would once they stopped, and team B's pods are admitted and
// bound. It exits 0 when all of that happened.
//
// It uses Apply and Delete rather than a session (no re-list), so it
// leaves other orchestrators' objects alone; it deletes its own at the end.
//
//	cd clients/go && go run ./examples/batch --server 127.0.0.1:7070
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/clients/go"
)

const (
	prefix    = "batch-go-" // of every object's name or namespace
	queueName = "jobs"      // each team's LocalQueue
	queueKey  = "kueue.x-k8s.io/queue-name"
)

var errDone = errors.New("team B reclaimed its quota")

func main() {
	server := flag.String("server", envOr("BERTH_SERVER", "127.0.0.1:7070"), "berthd address, host:port")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "bearer token, if berthd wants one")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server, *token); err != nil {
		fmt.Fprintln(os.Stderr, "batch (go): FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("batch (go): OK, team A borrowed, team B reclaimed its quota by preemption")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func run(ctx context.Context, server, token string) error {
	var opts []berth.Option
	if token != "" {
		opts = append(opts, berth.WithToken(token))
	}
	c, err := berth.Dial(ctx, server, opts...)
	if err != nil {
		return err
	}
	defer c.Close()

	run := fmt.Sprintf("%x", time.Now().UnixNano())
	f := &fleet{c: c, run: run, bound: map[string]string{}, evicted: map[string]bool{}}
	watcher := c.NewWatcher(&berth.MemoryCheckpoint{}, f.handle, berth.StartAt(1),
		berth.OnCompacted(func(_ context.Context, ce *berth.CompactedError) (uint64, error) { return ce.Oldest, nil }))
	watchErr := make(chan error, 1)
	go func() { watchErr <- watcher.Run(ctx) }()

	// The queues before the pods: a pod naming a LocalQueue Berth does not
	// know waits, as in Kueue, until the queue exists.
	objs := []*berthv1.Object{node("n1"), node("n2"), flavor(), namespace("a"), namespace("b"),
		clusterQueue("a"), clusterQueue("b"), localQueue("a"), localQueue("b")}
	if err := c.Apply(ctx, objs...); err != nil {
		return fmt.Errorf("registering the queues: %w", err)
	}
	for i := range 8 {
		if err := c.Apply(ctx, pod(run, "a", i)); err != nil {
			return fmt.Errorf("submitting team A's pods: %w", err)
		}
	}
	err = <-watchErr
	cleanup(context.WithoutCancel(ctx), c)
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

// fleet plays the orchestrator: it confirms binds and deletes evicted pods.
type fleet struct {
	c   *berth.Client
	run string

	mu      sync.Mutex
	bound   map[string]string // pod name -> node
	evicted map[string]bool
	teamB   bool // team B's pods were submitted
}

func (f *fleet) handle(ctx context.Context, d *berthv1.Decision) error {
	if !strings.HasPrefix(d.GetPod().GetUid(), f.run+"-") && d.GetAdmit() == nil && d.GetEvictWorkload() == nil {
		return nil
	}
	name := d.GetPod().GetName()
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Admit:
		if !strings.HasPrefix(a.Admit.GetWorkloadNamespace(), prefix) {
			return nil
		}
		fmt.Printf("rev %d: admit %s/%s to %s\n", d.GetRevision(), a.Admit.GetWorkloadNamespace(), a.Admit.GetWorkloadName(), a.Admit.GetClusterQueue())
	case *berthv1.Decision_EvictWorkload:
		if !strings.HasPrefix(a.EvictWorkload.GetWorkloadNamespace(), prefix) {
			return nil
		}
		fmt.Printf("rev %d: workload %s/%s loses its quota (%s): %s\n", d.GetRevision(), a.EvictWorkload.GetWorkloadNamespace(),
			a.EvictWorkload.GetWorkloadName(), a.EvictWorkload.GetReason(), a.EvictWorkload.GetMessage())
	case *berthv1.Decision_Bind:
		fmt.Printf("rev %d: bind %s/%s to %s\n", d.GetRevision(), d.GetPod().GetNamespace(), name, a.Bind.GetNode())
		if err := f.c.ConfirmBind(ctx, d); err != nil {
			return err
		}
		return f.onBound(ctx, d.GetPod(), a.Bind.GetNode())
	case *berthv1.Decision_Evict:
		if a.Evict.GetCause() != berthv1.EvictCause_EVICT_CAUSE_QUOTA {
			return fmt.Errorf("%s evicted for %v, want cause QUOTA", name, a.Evict.GetCause())
		}
		fmt.Printf("rev %d: evict %s/%s (quota): %s\n", d.GetRevision(), d.GetPod().GetNamespace(), name, a.Evict.GetReason())
		f.mu.Lock()
		delete(f.bound, d.GetPod().GetNamespace()+"/"+name)
		f.evicted[d.GetPod().GetNamespace()+"/"+name] = true
		f.mu.Unlock()
		// The pod stops at once (it runs nothing): delete it from Berth.
		return f.c.Delete(ctx, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD,
			Namespace: d.GetPod().GetNamespace(), Name: name, Uid: d.GetPod().GetUid()})
	}
	return nil
}

// onBound records a bind and moves the story on: once team A's eight pods
// run, team B submits its two; once those run after two of team A's were
// evicted, the example is done.
func (f *fleet) onBound(ctx context.Context, p *berthv1.PodRef, node string) error {
	f.mu.Lock()
	f.bound[p.GetNamespace()+"/"+p.GetName()] = node
	var a, b int
	for k := range f.bound {
		if strings.HasPrefix(k, prefix+"a/") {
			a++
		} else {
			b++
		}
	}
	evicted, submit := len(f.evicted), a == 8 && !f.teamB
	if submit {
		f.teamB = true
	}
	f.mu.Unlock()
	switch {
	case submit:
		fmt.Println("team A runs 8 pods on 8 cpu (4 of them borrowed); team B submits 2")
		for i := range 2 {
			if err := f.c.Apply(ctx, pod(f.run, "b", i)); err != nil {
				return err
			}
		}
	case b == 2:
		if evicted != 2 || a != 6 {
			return fmt.Errorf("team B runs 2 pods, team A %d with %d evicted; want 6 and 2", a, evicted)
		}
		return errDone
	}
	return nil
}

func node(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:        prefix + name,
		Labels:      map[string]string{"kubernetes.io/hostname": prefix + name, "pool": prefix + "batch"},
		Allocatable: map[string]int64{"cpu": 4000, "memory": 16 << 30, "pods": 110},
	}}}
}

// flavor is the one flavor: the example's nodes (its node label is given
// to every admitted pod as a node selector).
func flavor() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ResourceFlavor{ResourceFlavor: &berthv1.ResourceFlavor{
		Name: prefix + "nodes", NodeLabels: map[string]string{"pool": prefix + "batch"},
	}}}
}

func namespace(team string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: &berthv1.Namespace{Name: prefix + team}}}
}

// clusterQueue is a team's 4 cpu, in a cohort with the other team's; it
// may borrow what the other does not use and takes its own back.
func clusterQueue(team string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{
		Name: prefix + team, Cohort: prefix + "teams",
		// An empty selector admits every namespace; none would admit none.
		NamespaceSelector: &berthv1.LabelSelector{},
		ResourceGroups: []*berthv1.ResourceGroup{{
			CoveredResources: []string{"cpu"},
			Flavors: []*berthv1.FlavorQuotas{{Name: prefix + "nodes", Resources: []*berthv1.ResourceQuota{{
				Name: "cpu", NominalQuota: 4000,
			}}}},
		}},
		Preemption: &berthv1.ClusterQueuePreemption{
			ReclaimWithinCohort: berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_ANY,
			WithinClusterQueue:  berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_LOWER_PRIORITY,
		},
	}}}
}

func localQueue(team string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_LocalQueue{LocalQueue: &berthv1.LocalQueue{
		Namespace: prefix + team, Name: queueName, ClusterQueue: prefix + team,
	}}}
}

// pod is a one-pod workload of a team's queue: 1 cpu. It requests only what
// the ClusterQueues cover: Kueue refuses a workload asking for a resource
// its ClusterQueue has no quota of.
func pod(run, team string, i int) *berthv1.Object {
	name := fmt.Sprintf("job-%d", i)
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: run + "-" + team + "-" + name, Namespace: prefix + team, Name: name,
		Labels:     map[string]string{queueKey: queueName},
		Priority:   proto.Int32(0),
		Containers: []*berthv1.Container{{Name: "main", Requests: map[string]int64{"cpu": 1000}}},
	}}}
}

func ref(kind berthv1.ObjectKind, ns, name string) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: kind, Namespace: ns, Name: name}
}

// cleanup deletes what the example sent; objects already gone are fine.
func cleanup(ctx context.Context, c *berth.Client) {
	var refs []*berthv1.ObjectRef
	for _, team := range []string{"a", "b"} {
		for i := range 8 {
			refs = append(refs, ref(berthv1.ObjectKind_OBJECT_KIND_POD, prefix+team, fmt.Sprintf("job-%d", i)))
		}
		refs = append(refs, ref(berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, prefix+team, queueName),
			ref(berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, "", prefix+team))
	}
	refs = append(refs, ref(berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, "", prefix+"nodes"),
		ref(berthv1.ObjectKind_OBJECT_KIND_NODE, "", prefix+"n1"), ref(berthv1.ObjectKind_OBJECT_KIND_NODE, "", prefix+"n2"))
	for _, r := range refs {
		_ = c.Delete(ctx, r) // one by one: a pod already gone must not keep the rest
	}
}
