package imagelocality

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.ImageLocality

// The score's range: below minThreshold of images present a node scores
// 0, at maxContainerThreshold per container it scores MaxNodeScore. They
// bracket the compressed size of most registry images (kube's values).
const (
	mib                   int64 = 1 << 20
	minThreshold                = 23 * mib
	maxContainerThreshold       = 1000 * mib
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// ImageLocality scores nodes by the pod's images they already hold.
type ImageLocality struct {
	handle framework.Handle
}

var (
	_ framework.PreScorePlugin = (*ImageLocality)(nil)
	_ framework.ScorePlugin    = (*ImageLocality)(nil)
	_ framework.UniformScorer  = (*ImageLocality)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(_ context.Context, _ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	return &ImageLocality{handle: h}, nil
}

// Name returns Name.
func (*ImageLocality) Name() string { return Name }

// podImages is the PreScore state: for each of the pod's containers (init
// containers first) whose image some node holds, its normalised name and
// scaled score; count is the number of containers. Never changed, so
// clones share it.
type podImages struct {
	present []scaledImage
	count   int
}

type scaledImage struct {
	name  string
	score int64
}

func (p *podImages) Clone() framework.StateData { return p }

// PreScore looks the pod's images up once for every node to be scored.
func (pl *ImageLocality) PreScore(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, pl.podImages(pod))
	return nil
}

func (pl *ImageLocality) podImages(pod *model.Pod) *podImages {
	lister := pl.handle.SnapshotSharedLister()
	lookup := summaries(lister)
	total := lister.NumNodes()
	out := &podImages{count: len(pod.InitContainers) + len(pod.Containers)}
	for _, list := range [][]model.Container{pod.InitContainers, pod.Containers} {
		for _, c := range list {
			name := NormalizedImageName(c.Image)
			if sum, ok := lookup(name); ok {
				out.present = append(out.present, scaledImage{name, ScaledImageScore(sum, total)})
			}
		}
	}
	return out
}

// Score sums the scaled sizes of the pod's images the node holds (an image
// used by two containers counts twice, as in kube) and maps the sum onto
// 0..MaxNodeScore.
func (pl *ImageLocality) Score(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	imgs, ok := framework.ReadAs[*podImages](state, preScoreStateKey)
	if !ok {
		imgs = pl.podImages(pod) // PreScore did not run
	}
	var sum int64
	for _, img := range imgs.present {
		if nodeInfo.HasImage(img.name) {
			sum += img.score
		}
	}
	return CalculatePriority(sum, imgs.count), nil
}

// UniformScore implements framework.UniformScorer: when no node holds any
// of the pod's images, Score gives every node the same (lowest) score.
func (pl *ImageLocality) UniformScore(state *framework.CycleState, pod *model.Pod) (int64, bool) {
	imgs, ok := framework.ReadAs[*podImages](state, preScoreStateKey)
	if !ok || len(imgs.present) > 0 {
		return 0, false
	}
	return CalculatePriority(0, imgs.count), true
}

// ScoreExtensions returns nil: the scores need no normalising.
func (*ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }

// CalculatePriority maps the sum of a node's scaled image sizes onto
// 0..MaxNodeScore, linearly between minThreshold and maxContainerThreshold
// per container (imageCount containers), clamped at both ends.
func CalculatePriority(sumScores int64, imageCount int) int64 {
	maxThreshold := maxContainerThreshold * int64(imageCount)
	if sumScores < minThreshold {
		sumScores = minThreshold
	} else if sumScores > maxThreshold {
		sumScores = maxThreshold
	}
	return framework.MaxNodeScore * (sumScores - minThreshold) / (maxThreshold - minThreshold)
}

// ScaledImageScore is an image's size scaled by its spread: the share of
// the totalNodes nodes that hold it (computed in floating point in kube's
// order, so that the truncation agrees).
func ScaledImageScore(s framework.ImageSummary, totalNodes int) int64 {
	if totalNodes <= 0 {
		return 0
	}
	spread := float64(s.NumNodes) / float64(totalNodes)
	return int64(float64(s.Size) * spread)
}

// NormalizedImageName is the name kube compares with the nodes' image
// names: name with ":latest" added when it has neither tag nor digest
// (no ':' after its last '/').
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		return name + ":latest"
	}
	return name
}

// summaries returns the image lookup of the snapshot: its index when it
// keeps one (core/cache), else one built by walking its nodes, in list
// order (test listers).
func summaries(lister framework.NodeInfoLister) func(string) (framework.ImageSummary, bool) {
	if il, ok := lister.(framework.ImageLister); ok {
		return il.ImageSummary
	}
	byName := make(map[string]framework.ImageSummary)
	for _, ni := range lister.List() {
		node := ni.Node()
		if node == nil {
			continue
		}
		seen := make(map[string]bool)
		for _, img := range node.Images {
			for _, name := range img.Names {
				if seen[name] {
					continue
				}
				seen[name] = true
				s, ok := byName[name]
				if !ok {
					s.Size = img.SizeBytes
				}
				s.NumNodes++
				byName[name] = s
			}
		}
	}
	return func(name string) (framework.ImageSummary, bool) {
		s, ok := byName[name]
		return s, ok
	}
}
