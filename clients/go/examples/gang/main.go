// Command gang is an example of gang scheduling on Berth's Go client: it
// registers two nodes with room for one group of four pods, submits two
// such groups (PodGroup objects, pods naming them), confirms the binds of
// the group Berth places (all four in one commit, each Bind naming its
// group), then ends that group's job (deletes its pods) and waits for the
// other group to be placed in turn. It exits 0 when both groups ran, one
// after the other, and fails if a group is ever partly bound.
//
// It uses Apply and Delete rather than a session (no re-list), so it
// leaves other orchestrators' objects alone; it deletes its own at the end.
//
//	cd clients/go && go run ./examples/gang --server 127.0.0.1:7070
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/clients/go"
)

const (
	namespace = "gang-go"
	prefix    = "gang-go-" // of the nodes' names
	members   = 4
)

var errDone = errors.New("both groups ran")

func main() {
	server := flag.String("server", envOr("BERTH_SERVER", "127.0.0.1:7070"), "berthd address, host:port, or the replicas' comma-separated")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "bearer token, if berthd wants one")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server, *token); err != nil {
		fmt.Fprintln(os.Stderr, "gang (go): FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("gang (go): OK, both groups ran, one after the other")
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

	// Watch the whole log, so no decision is missed, and keep to this run's
	// pods: their uids carry the run's id.
	run := fmt.Sprintf("%s-%x", namespace, time.Now().UnixNano())
	tracker := &groups{c: c, run: run, bound: map[string]map[string]string{}}
	watcher := c.NewWatcher(&berth.MemoryCheckpoint{}, tracker.handle, berth.StartAt(1),
		berth.OnCompacted(func(_ context.Context, ce *berth.CompactedError) (uint64, error) { return ce.Oldest, nil }))
	watchErr := make(chan error, 1)
	go func() { watchErr <- watcher.Run(ctx) }()

	objs := []*berthv1.Object{node(prefix + "n1"), node(prefix + "n2"), group("a"), group("b")}
	for i := range members {
		objs = append(objs, pod(run, "a", i), pod(run, "b", i))
	}
	if err := c.Apply(ctx, objs...); err != nil {
		return fmt.Errorf("submitting the groups: %w", err)
	}
	err = <-watchErr
	cleanup(context.WithoutCancel(ctx), c)
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

// groups follows the binds of the two groups. It runs on the watcher's
// goroutine only.
type groups struct {
	c     *berth.Client
	run   string                       // the prefix of this run's pods' uids
	bound map[string]map[string]string // group -> pod -> node
	first string                       // the group placed first
}

func (g *groups) handle(ctx context.Context, d *berthv1.Decision) error {
	if !strings.HasPrefix(d.GetPod().GetUid(), g.run+"-") {
		return nil
	}
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		grp := a.Bind.GetGroup()
		if g.bound[grp] == nil {
			g.bound[grp] = map[string]string{}
		}
		g.bound[grp][d.GetPod().GetName()] = a.Bind.GetNode()
		if err := g.c.ConfirmBind(ctx, d); err != nil {
			return err
		}
		return g.progress(ctx, grp)
	case *berthv1.Decision_Unschedulable:
		fmt.Printf("%s waits: %s\n", d.GetPod().GetName(), a.Unschedulable.GetMessage())
	}
	return nil
}

// progress acts once a group is fully bound: the first one's job ends, the
// second one ends the example.
func (g *groups) progress(ctx context.Context, grp string) error {
	if len(g.bound[grp]) < members {
		return nil
	}
	fmt.Printf("group %s bound: %v\n", grp, g.bound[grp])
	if g.first == "" {
		g.first = grp
		for other, pods := range g.bound {
			if other != grp && len(pods) > 0 {
				return fmt.Errorf("group %s was partly bound (%v) while %s ran", other, pods, grp)
			}
		}
		var refs []*berthv1.ObjectRef
		for name := range g.bound[grp] {
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: namespace, Name: name})
		}
		fmt.Printf("group %s's job ends: deleting its pods\n", grp)
		return g.c.Delete(ctx, refs...)
	}
	return errDone
}

func node(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:        name,
		Labels:      map[string]string{"kubernetes.io/hostname": name},
		Allocatable: map[string]int64{"cpu": 4000, "memory": 16 << 30, "pods": 110},
	}}}
}

func group(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{
		Namespace: namespace, Name: name, MinCount: members,
	}}}
}

// pod is member i of group g: 2 cpu, so a 4-cpu node takes two.
func pod(run, g string, i int) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: fmt.Sprintf("%s-%s-%d", run, g, i), Namespace: namespace, Name: fmt.Sprintf("%s-%d", g, i),
		SchedulingGroup: g,
		Priority:        proto.Int32(0),
		Containers:      []*berthv1.Container{{Name: "main", Requests: map[string]int64{"cpu": 2000, "memory": 1 << 30}}},
	}}}
}

// cleanup deletes what the example sent; objects already gone are fine.
func cleanup(ctx context.Context, c *berth.Client) {
	var refs []*berthv1.ObjectRef
	for _, g := range []string{"a", "b"} {
		for i := range members {
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: namespace, Name: fmt.Sprintf("%s-%d", g, i)})
		}
		refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_GROUP, Namespace: namespace, Name: g})
	}
	refs = append(refs,
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: prefix + "n1"},
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: prefix + "n2"})
	_ = c.Delete(ctx, refs...) // NOT_FOUND for the pods already deleted
}
