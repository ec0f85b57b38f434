// Command devices is an example of dynamic resource allocation on Berth's
// Go client: it registers a node with two GPUs (a ResourceSlice), a
// DeviceClass selecting them by CEL and a ResourceClaimTemplate of one
// GPU, then submits three pods that each claim a GPU through the
// template. It reads each pod's allocation from its Bind (the claim Berth
// made for the pod, and the driver/pool/device), confirms the bind, sees
// the third pod wait, deletes the first pod, reads the DeallocateClaim
// that frees its GPU, and sees the third pod bound to exactly that GPU.
// It exits 0 when all of that happened, and fails if a GPU is ever given
// to two pods.
//
// It uses Apply and Delete rather than a session (no re-list), so it
// leaves other orchestrators' objects alone; it deletes its own at the end.
//
//	cd clients/go && go run ./examples/devices --server 127.0.0.1:7070
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
	namespace = "devices-go"
	prefix    = "devices-go-" // of the cluster-scoped objects' names
	driver    = "gpu.example.com"
)

var errDone = errors.New("the freed GPU was handed on")

func main() {
	server := flag.String("server", envOr("BERTH_SERVER", "127.0.0.1:7070"), "berthd address, host:port")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "bearer token, if berthd wants one")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server, *token); err != nil {
		fmt.Fprintln(os.Stderr, "devices (go): FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("devices (go): OK, each pod got its own GPU and a freed GPU was handed on")
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

	run := fmt.Sprintf("%s-%x", namespace, time.Now().UnixNano())
	g := &gpus{c: c, run: run, held: map[string]string{}}
	watcher := c.NewWatcher(&berth.MemoryCheckpoint{}, g.handle, berth.StartAt(1),
		berth.OnCompacted(func(_ context.Context, ce *berth.CompactedError) (uint64, error) { return ce.Oldest, nil }))
	watchErr := make(chan error, 1)
	go func() { watchErr <- watcher.Run(ctx) }()

	// Classes before the claims that name them; the slice and template
	// before the pods (a pod whose claim cannot be made yet just waits).
	objs := []*berthv1.Object{class(), node(), slice(), template()}
	if err := c.Apply(ctx, objs...); err != nil {
		return fmt.Errorf("registering the devices: %w", err)
	}
	if err := c.Apply(ctx, pod(run, "train-0"), pod(run, "train-1"), pod(run, "train-2")); err != nil {
		return fmt.Errorf("submitting the pods: %w", err)
	}
	err = <-watchErr
	cleanup(context.WithoutCancel(ctx), c)
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

// gpus follows the allocations. It runs on the watcher's goroutine only.
type gpus struct {
	c       *berth.Client
	run     string            // the prefix of this run's pods' uids
	held    map[string]string // driver/pool/device -> pod
	waiting bool              // train-2 was reported unschedulable
	deleted bool              // train-0 was deleted
	freed   string            // the device train-0's deletion freed
}

func (g *gpus) handle(ctx context.Context, d *berthv1.Decision) error {
	if !strings.HasPrefix(d.GetPod().GetUid(), g.run+"-") {
		return nil
	}
	name := d.GetPod().GetName()
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		for _, claim := range a.Bind.GetClaims() {
			for _, dev := range claim.GetAllocation().GetDevices() {
				id := dev.GetDriver() + "/" + dev.GetPool() + "/" + dev.GetDevice()
				fmt.Printf("%s -> %s: claim %s (entry %v), request %s: %s\n", name, a.Bind.GetNode(), claim.GetName(),
					claim.GetPodClaimNames(), dev.GetRequest(), id)
				if other, taken := g.held[id]; taken {
					return fmt.Errorf("%s given to %s while %s holds it", id, name, other)
				}
				if g.freed != "" && id != g.freed {
					return fmt.Errorf("%s got %s, want the freed %s", name, id, g.freed)
				}
				g.held[id] = name
			}
		}
		if err := g.c.ConfirmBind(ctx, d); err != nil {
			return err
		}
		if g.freed != "" {
			return errDone
		}
		return g.endFirstJob(ctx)
	case *berthv1.Decision_Unschedulable:
		fmt.Printf("%s waits: %s\n", name, a.Unschedulable.GetMessage())
		g.waiting = g.waiting || name == "train-2"
		return g.endFirstJob(ctx)
	case *berthv1.Decision_DeallocateClaim:
		x := a.DeallocateClaim
		for _, dev := range x.GetAllocation().GetDevices() {
			g.freed = dev.GetDriver() + "/" + dev.GetPool() + "/" + dev.GetDevice()
			delete(g.held, g.freed)
		}
		fmt.Printf("claim %s/%s deallocated (deleted with its pod: %v): %s is free\n", x.GetNamespace(), x.GetName(), x.GetClaimDeleted(), g.freed)
	}
	return nil
}

// endFirstJob deletes train-0 once both GPUs are taken and train-2 waits.
func (g *gpus) endFirstJob(ctx context.Context) error {
	if g.deleted || !g.waiting || len(g.held) < 2 {
		return nil
	}
	g.deleted = true
	fmt.Println("train-0's job ends: deleting it")
	return g.c.Delete(ctx, podRef("train-0"))
}

func class() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{
		Name: prefix + "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: `device.driver == "` + driver + `"`}},
	}}}
}

func node() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:        prefix + "n1",
		Labels:      map[string]string{"kubernetes.io/hostname": prefix + "n1"},
		Allocatable: map[string]int64{"cpu": 8000, "memory": 32 << 30, "pods": 110},
	}}}
}

// slice lists the node's two GPUs.
func slice() *berthv1.Object {
	s := &berthv1.ResourceSlice{
		Name: prefix + "n1-gpus", Driver: driver, NodeName: prefix + "n1",
		Pool: &berthv1.ResourcePool{Name: prefix + "n1", Generation: 1, ResourceSliceCount: 1},
	}
	for i := range 2 {
		s.Devices = append(s.Devices, &berthv1.Device{
			Name:       fmt.Sprintf("gpu-%d", i),
			Attributes: map[string]*berthv1.DeviceAttribute{"model": {Value: &berthv1.DeviceAttribute_String_{String_: "a100"}}},
			Capacity:   map[string]string{"memory": "40Gi"},
		})
	}
	return &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: s}}
}

// template asks for one a100.
func template() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{
		Namespace: namespace, Name: "one-gpu",
		Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "gpu", Exactly: &berthv1.ExactDeviceRequest{
			DeviceClassName: prefix + "gpu",
			Selectors:       []*berthv1.DeviceSelector{{Cel: `device.attributes["` + driver + `"].model == "a100"`}},
		}}}},
	}}}
}

func pod(run, name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: run + "-" + name, Namespace: namespace, Name: name,
		Priority:       proto.Int32(0),
		ResourceClaims: []*berthv1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}},
		Containers: []*berthv1.Container{{
			Name: "main", Requests: map[string]int64{"cpu": 1000, "memory": 1 << 30}, Claims: []string{"gpu"},
		}},
	}}}
}

func podRef(name string) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: namespace, Name: name}
}

// cleanup deletes what the example sent; objects already gone are fine.
func cleanup(ctx context.Context, c *berth.Client) {
	refs := []*berthv1.ObjectRef{podRef("train-0"), podRef("train-1"), podRef("train-2")}
	refs = append(refs,
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, Namespace: namespace, Name: "one-gpu"},
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, Name: prefix + "n1-gpus"},
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, Name: prefix + "gpu"},
		&berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: prefix + "n1"})
	_ = c.Delete(ctx, refs...) // NOT_FOUND for the pods already deleted
}
