// Command volumes is an example of persistent storage on Berth's Go
// client: it registers two nodes, each with a local volume (10 GiB on n1,
// 20 GiB on n2) of a WaitForFirstConsumer class, and a claim of 15 GiB.
// It submits a pod using the claim and reads, from the pod's Bind, the
// volume Berth chose for the claim (the only one big enough, on n2) and
// the node; it then does the volume controller's part — sends the volume
// bound to the claim and the claim bound to the volume — and confirms the
// bind. A second pod sharing the claim must go to the same node. It exits
// 0 when all of that happened.
//
// It uses Apply and Delete rather than a session (no re-list), so it
// leaves other orchestrators' objects alone; it deletes its own at the end.
//
//	cd clients/go && go run ./examples/volumes --server 127.0.0.1:7070
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
	namespace = "volumes-go"
	prefix    = "volumes-go-" // of the cluster-scoped objects' names
	claimName = "data"
)

var errDone = errors.New("both pods bound where the volume is")

func main() {
	server := flag.String("server", envOr("BERTH_SERVER", "127.0.0.1:7070"), "berthd address, host:port")
	token := flag.String("token", os.Getenv("BERTH_TOKEN"), "bearer token, if berthd wants one")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server, *token); err != nil {
		fmt.Fprintln(os.Stderr, "volumes (go): FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("volumes (go): OK, the claim got the volume that fits and both pods went where it is")
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
	s := &storage{c: c, run: run}
	watcher := c.NewWatcher(&berth.MemoryCheckpoint{}, s.handle, berth.StartAt(1),
		berth.OnCompacted(func(_ context.Context, ce *berth.CompactedError) (uint64, error) { return ce.Oldest, nil }))
	watchErr := make(chan error, 1)
	go func() { watchErr <- watcher.Run(ctx) }()

	// The class before the claim (a claim without one would take the
	// default class); objects may otherwise come in any order.
	objs := []*berthv1.Object{class(), node("n1"), node("n2"), localVolume("n1", 10, ""), localVolume("n2", 20, ""), claim("")}
	if err := c.Apply(ctx, objs...); err != nil {
		return fmt.Errorf("registering the storage: %w", err)
	}
	if err := c.Apply(ctx, pod(run, "db-0")); err != nil {
		return fmt.Errorf("submitting the pod: %w", err)
	}
	err = <-watchErr
	cleanup(context.WithoutCancel(ctx), c)
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

// storage follows the binds. It runs on the watcher's goroutine only.
type storage struct {
	c    *berth.Client
	run  string
	node string // where db-0 went
}

func (s *storage) handle(ctx context.Context, d *berthv1.Decision) error {
	if !strings.HasPrefix(d.GetPod().GetUid(), s.run+"-") {
		return nil
	}
	name := d.GetPod().GetName()
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		node := a.Bind.GetNode()
		for _, v := range a.Bind.GetVolumes() {
			fmt.Printf("%s -> %s: claim %s gets volume %q (provision on %q)\n", name, node, v.GetClaim(), v.GetVolume(), v.GetSelectedNode())
		}
		switch name {
		case "db-0":
			vols := a.Bind.GetVolumes()
			if len(vols) != 1 || vols[0].GetClaim() != claimName || vols[0].GetVolume() != prefix+"n2-disk" || node != prefix+"n2" {
				return fmt.Errorf("db-0: bound to %s with volumes %v, want claim %s on volume %sn2-disk on %sn2", node, vols, claimName, prefix, prefix)
			}
			// The volume controller's part: bind the claim to the volume.
			if err := s.c.Apply(ctx, localVolume("n2", 20, claimName), claim(vols[0].GetVolume())); err != nil {
				return err
			}
			s.node = node
			if err := s.c.ConfirmBind(ctx, d); err != nil {
				return err
			}
			return s.c.Apply(ctx, pod(s.run, "db-1"))
		case "db-1":
			if node != s.node || len(a.Bind.GetVolumes()) != 0 {
				return fmt.Errorf("db-1: bound to %s with volumes %v, want %s and none (the claim is bound)", node, a.Bind.GetVolumes(), s.node)
			}
			if err := s.c.ConfirmBind(ctx, d); err != nil {
				return err
			}
			return errDone
		}
	case *berthv1.Decision_Unschedulable:
		return fmt.Errorf("%s unschedulable: %s", name, a.Unschedulable.GetMessage())
	}
	return nil
}

func class() *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{
		Name: prefix + "local", Provisioner: "kubernetes.io/no-provisioner",
		VolumeBindingMode: berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER,
	}}}
}

func node(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name:        prefix + name,
		Labels:      map[string]string{"kubernetes.io/hostname": prefix + name},
		Allocatable: map[string]int64{"cpu": 8000, "memory": 32 << 30, "pods": 110},
	}}}
}

// localVolume is a disk of node, bound to claim when it is set.
func localVolume(node string, gib int64, claim string) *berthv1.Object {
	pv := &berthv1.PersistentVolume{
		Name: prefix + node + "-disk", CapacityBytes: gib << 30, StorageClassName: prefix + "local",
		AccessModes: []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE},
		NodeAffinity: &berthv1.NodeSelector{NodeSelectorTerms: []*berthv1.NodeSelectorTerm{{MatchExpressions: []*berthv1.NodeSelectorRequirement{{
			Key: "kubernetes.io/hostname", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_IN, Values: []string{prefix + node},
		}}}}},
	}
	if claim != "" {
		pv.ClaimRef = &berthv1.ClaimReference{Namespace: namespace, Name: claim}
		pv.Phase = berthv1.PersistentVolumePhase_PERSISTENT_VOLUME_PHASE_BOUND
	}
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolume{PersistentVolume: pv}}
}

// claim asks for 15 GiB; bound to volume when it is set.
func claim(volume string) *berthv1.Object {
	c := &berthv1.PersistentVolumeClaim{
		Namespace: namespace, Name: claimName, RequestBytes: 15 << 30, StorageClassName: proto.String(prefix + "local"),
		AccessModes: []berthv1.PersistentVolumeAccessMode{berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE},
	}
	if volume != "" {
		c.VolumeName, c.BindCompleted = volume, true
		c.Phase = berthv1.PersistentVolumeClaimPhase_PERSISTENT_VOLUME_CLAIM_PHASE_BOUND
	}
	return &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: c}}
}

func pod(run, name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: run + "-" + name, Namespace: namespace, Name: name,
		Priority:   proto.Int32(0),
		Containers: []*berthv1.Container{{Name: "main", Requests: map[string]int64{"cpu": 1000, "memory": 1 << 30}}},
		Volumes: []*berthv1.Volume{
			{Name: "data", Source: &berthv1.Volume_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}},
			{Name: "tmp", Source: &berthv1.Volume_Other{Other: "emptyDir"}},
		},
	}}}
}

func ref(kind berthv1.ObjectKind, ns, name string) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: kind, Namespace: ns, Name: name}
}

// cleanup deletes what the example sent; objects already gone are fine.
func cleanup(ctx context.Context, c *berth.Client) {
	_ = c.Delete(ctx,
		ref(berthv1.ObjectKind_OBJECT_KIND_POD, namespace, "db-0"), ref(berthv1.ObjectKind_OBJECT_KIND_POD, namespace, "db-1"),
		ref(berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, namespace, claimName),
		ref(berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "", prefix+"n1-disk"), ref(berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "", prefix+"n2-disk"),
		ref(berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS, "", prefix+"local"),
		ref(berthv1.ObjectKind_OBJECT_KIND_NODE, "", prefix+"n1"), ref(berthv1.ObjectKind_OBJECT_KIND_NODE, "", prefix+"n2"))
}
