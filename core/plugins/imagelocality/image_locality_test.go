package imagelocality

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/cache"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

const mb = 1 << 20

func TestNormalizedImageName(t *testing.T) {
	for in, want := range map[string]string{
		"nginx":                           "nginx:latest",
		"nginx:1.27":                      "nginx:1.27",
		"library/nginx":                   "library/nginx:latest",
		"docker.io/library/nginx":         "docker.io/library/nginx:latest",
		"localhost:5000/team/app":         "localhost:5000/team/app:latest",
		"localhost:5000/team/app:v2":      "localhost:5000/team/app:v2",
		"registry.k8s.io/pause@sha256:ab": "registry.k8s.io/pause@sha256:ab",
		"":                                ":latest",
	} {
		if got := NormalizedImageName(in); got != want {
			t.Errorf("NormalizedImageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCalculatePriority(t *testing.T) {
	for _, tc := range []struct {
		sum   int64
		count int
		want  int64
	}{
		{0, 1, 0},
		{23 * mb, 1, 0},
		{23*mb + 1, 1, 0},
		{250 * mb, 1, 23},   // 100 * 227 / 977
		{250 * mb, 2, 11},   // 100 * 227 / 1977
		{1000 * mb, 1, 100}, // at the top
		{5000 * mb, 1, 100}, // clamped
		{5000 * mb, 3, 100}, // clamped to 3000 MiB
		{0, 0, 0},           // no container
	} {
		if got := CalculatePriority(tc.sum, tc.count); got != tc.want {
			t.Errorf("CalculatePriority(%d, %d) = %d, want %d", tc.sum, tc.count, got, tc.want)
		}
	}
}

func node(name string, images ...model.ContainerImage) *model.Node {
	return &model.Node{Name: name, Allocatable: model.ResourceList{"pods": 110}, Images: images}
}

func image(size int64, names ...string) model.ContainerImage {
	return model.ContainerImage{Names: names, SizeBytes: size}
}

func pod(init []string, images ...string) *model.Pod {
	p := &model.Pod{UID: "u", Namespace: "default", Name: "p"}
	for i, img := range init {
		p.InitContainers = append(p.InitContainers, model.Container{Name: fmt.Sprintf("i%d", i), Image: img})
	}
	for i, img := range images {
		p.Containers = append(p.Containers, model.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	return p
}

type handle struct {
	framework.Handle
	lister framework.NodeInfoLister
}

func (h handle) SnapshotSharedLister() framework.NodeInfoLister { return h.lister }

// walkOnly hides the snapshot's image index, so the plugin walks the nodes.
type walkOnly struct{ framework.NodeInfoLister }

// TestScore scores pods on ten nodes against kube's formula worked by
// hand, through the cache's image index and through the walk over the
// nodes, which must agree.
func TestScore(t *testing.T) {
	nodes := []*model.Node{
		node("n0", image(500*mb, "web:v1", "example.com/web@sha256:1"), image(300*mb, "db:latest")),
		node("n1", image(500*mb, "web:v1")),
		node("n2", image(500*mb, "web:v1")),
		node("n3", image(400*mb, "web:v1")), // a second size: the first node's counts
		node("n4", image(500*mb, "web:v1"), image(2000*mb, "big:1")),
		node("n5", image(2000*mb, "docker.io/library/nginx:latest")),
		node("n6"), node("n7"), node("n8"),
		node("n9", image(10*mb, "tiny:1"), image(10*mb, "tiny:1")), // a name twice counts once
	}
	snap, err := cache.NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	webOn5 := int64(float64(500*mb) * 0.5) // 250 MiB
	dbOn1 := int64(float64(300*mb) * 0.1)  // 30 MiB
	tests := []struct {
		name string
		pod  *model.Pod
		want map[string]int64 // nodes not named score 0
	}{
		{name: "no images", pod: pod(nil, "", "")},
		{name: "web on five nodes", pod: pod(nil, "web:v1"),
			want: map[string]int64{"n0": 23, "n1": 23, "n2": 23, "n3": 23, "n4": 23}},
		{name: "two images, two containers", pod: pod(nil, "web:v1", "db"),
			want: map[string]int64{
				"n0": CalculatePriority(webOn5+dbOn1, 2), // 12
				"n1": 11, "n2": 11, "n3": 11, "n4": 11,
			}},
		{name: "init containers count", pod: pod([]string{"db"}, "web:v1"),
			want: map[string]int64{"n0": CalculatePriority(webOn5+dbOn1, 2), "n1": 11, "n2": 11, "n3": 11, "n4": 11}},
		{name: "an image twice counts twice", pod: pod(nil, "web:v1", "web:v1"),
			want: map[string]int64{"n0": 24, "n1": 24, "n2": 24, "n3": 24, "n4": 24}}, // 100 * 477 / 1977
		{name: "by digest", pod: pod(nil, "example.com/web@sha256:1"),
			want: map[string]int64{"n0": 2}}, // 500 MiB on one node of ten: 50 MiB, 100 * 27 / 977
		{name: "big image on one node", pod: pod(nil, "big:1"),
			want: map[string]int64{"n4": CalculatePriority(200*mb, 1)}}, // 18
		{name: "no docker.io/library added", pod: pod(nil, "nginx")},
		{name: "full name matches", pod: pod(nil, "docker.io/library/nginx"),
			want: map[string]int64{"n5": CalculatePriority(200*mb, 1)}},
		{name: "small image", pod: pod(nil, "tiny:1")},
	}
	for _, tc := range tests {
		for _, via := range []struct {
			name   string
			lister framework.NodeInfoLister
		}{{"index", snap}, {"walk", walkOnly{snap}}} {
			t.Run(tc.name+"/"+via.name, func(t *testing.T) {
				pl, err := New(context.Background(), nil, handle{lister: via.lister})
				if err != nil {
					t.Fatal(err)
				}
				il := pl.(*ImageLocality)
				state := framework.NewCycleState()
				if st := il.PreScore(context.Background(), state, tc.pod, snap.List()); st != nil {
					t.Fatal(st)
				}
				got := make(map[string]int64)
				for _, ni := range snap.List() {
					s, st := il.Score(context.Background(), state, tc.pod, ni)
					if st != nil {
						t.Fatal(st)
					}
					if s != 0 {
						got[ni.Name()] = s
					}
				}
				want := tc.want
				for n, s := range want {
					if s == 0 {
						delete(want, n)
					}
				}
				if want == nil {
					want = map[string]int64{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("scores (-want +got):\n%s", diff)
				}
				// UniformScore claims a score only when Score gives it on
				// every node, and does when no node holds an image of the
				// pod (a small image held scores 0 too, but is not claimed).
				u, uniform := il.UniformScore(state, tc.pod)
				if uniform && (len(got) != 0 || u != 0) {
					t.Errorf("UniformScore = %d, true; Score gave %d nodes a score above 0", u, len(got))
				}
				if wantUniform := tc.name == "no images" || tc.name == "no docker.io/library added"; uniform != wantUniform {
					t.Errorf("UniformScore says uniform %v, want %v", uniform, wantUniform)
				}
			})
		}
	}
}
