package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
)

// benchFramework builds the default profile's shape with fakes whose
// filters pass and whose scores depend on the node, so the benchmarks
// measure the runtime's own cost.
func benchFramework(b *testing.B, opts ...runtime.Option) *runtime.Framework {
	b.Helper()
	tp := defaultLikePlugins()
	tp.log = nil
	for _, f := range tp.fakes {
		f.log = nil
		f.score = func(ni *framework.NodeInfo) (int64, *framework.Status) { return int64(len(ni.Name())) % 100, nil }
	}
	f, err := runtime.New(context.Background(), tp.reg, config.Default().Profiles[0], opts...)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func benchNodes(n int) []*framework.NodeInfo {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node-%05d", i)
	}
	return nodeInfos(names...)
}

func BenchmarkRunScorePlugins(b *testing.B) {
	for _, n := range []int{500, 5000} {
		for _, par := range []int{1, 16} {
			b.Run(fmt.Sprintf("nodes=%d/parallelism=%d", n, par), func(b *testing.B) {
				f := benchFramework(b, runtime.WithParallelism(par))
				nodes := benchNodes(n)
				pod := podNamed("p")
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					state := framework.NewCycleState()
					if s := f.RunPreScorePlugins(ctx, state, pod, nodes); !s.IsSuccess() {
						b.Fatal(s)
					}
					if _, s := f.RunScorePlugins(ctx, state, pod, nodes); !s.IsSuccess() {
						b.Fatal(s)
					}
				}
			})
		}
	}
}

func BenchmarkRunFilterPluginsWithNominatedPods(b *testing.B) {
	nodes := benchNodes(5000)
	nominated := fakeNominator{"node-00007": {framework.MustPodInfo(podNamed("high"))}}
	f := benchFramework(b, runtime.WithPodNominator(nominated))
	pod := podNamed("p")
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, s, _ := f.RunPreFilterPlugins(ctx, state, pod, nodes); !s.IsSuccess() {
		b.Fatal(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, ni := range nodes {
			if s := f.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); !s.IsSuccess() {
				b.Fatal(s)
			}
		}
	}
}
