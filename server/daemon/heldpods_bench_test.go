package daemon

import (
	"fmt"
	"testing"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/server/convert"
)

// BenchmarkHeldWorkload: one Workload holding n pods of 0.1 cpu, within
// quota, on n/100 nodes of 16 cpus (110 pods each): an op is from the
// Workload's Apply to the Bind of its last pod, read on Watch (the
// daemon's start and the objects before are not counted).
//
//	go test ./server/daemon -run XXX -bench HeldWorkload -benchtime 1x
func BenchmarkHeldWorkload(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := start(b, Config{DataDir: b.TempDir()})
				ctx := b.Context()
				apply := func(objs ...*berthv1.Object) {
					resp, err := e.state.Apply(ctx, &berthv1.ApplyRequest{Objects: objs})
					if err != nil || len(resp.GetErrors()) > 0 {
						b.Fatalf("Apply: %v %v", err, resp.GetErrors())
					}
				}
				for i := range n / 100 {
					apply(nodeObj(fmt.Sprint("n", i), 16000))
				}
				cq := &quota.ClusterQueue{Name: "cq", NamespaceSelector: &model.LabelSelector{},
					ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
						Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: int64(n) * 100}}},
					}}}}}
				quota.DefaultClusterQueue(cq)
				for _, o := range []any{&quota.ResourceFlavor{Name: "default"}, cq, &quota.LocalQueue{Namespace: "team", Name: "lq", ClusterQueue: "cq"}} {
					apply(convert.QueueObjectToProto(o))
				}
				stream, err := e.watch.Watch(ctx, &berthv1.WatchRequest{}, grpc.WaitForReady(true))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := stream.Recv(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				apply(&berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
					Namespace: "team", Name: "big", Uid: "wl-big", QueueName: "lq", HoldPods: true,
					PodSets: []*berthv1.PodSet{{Name: "main", Count: int32(n), Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 100}}}},
				}}})
				for bound := 0; bound < n; {
					resp, err := stream.Recv()
					if err != nil {
						b.Fatalf("after %d binds: %v", bound, err)
					}
					for _, d := range resp.GetDecisions() {
						if d.GetBind() != nil {
							bound++
						}
					}
				}
				b.StopTimer()
				e.shutdown(b)
				b.StartTimer()
			}
		})
	}
}
