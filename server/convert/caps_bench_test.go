package convert_test

import (
	"fmt"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// BenchmarkHugeLists measures converting objects whose lists are far
// beyond their caps (issue 28: a node with 100,000 taints kept berthd
// busy past 30 s): each is refused for its length, at once. Run by hand:
//
//	go test ./server/convert -run '^$' -bench HugeLists -benchtime 1x
func BenchmarkHugeLists(b *testing.B) {
	const n = 100_000
	taints := make([]*berthv1.Taint, n)
	for i := range taints {
		taints[i] = &berthv1.Taint{Key: fmt.Sprintf("example.com/t%d", i), Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}
	}
	gates := make([]string, n)
	for i := range gates {
		gates[i] = fmt.Sprintf("example.com/g%d", i)
	}
	objects := map[string]*berthv1.Object{
		"100k taints":           {Kind: &berthv1.Object_Node{Node: &berthv1.Node{Name: "n", Taints: taints}}},
		"100k scheduling gates": podObject(func(p *berthv1.Pod) { p.SchedulingGates = gates }),
	}
	for name, o := range objects {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_, err := convert.ObjectFromProto(o)
				b.Log(err)
			}
		})
	}
}
