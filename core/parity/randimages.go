package parity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// catalogImage is an image the random clusters' nodes may hold: a Docker
// Hub library image (repo without registry) or one of another registry,
// with its tags and a typical size.
type catalogImage struct {
	repo    string // "nginx", "registry.k8s.io/pause", "registry.example.com:5000/team/app"
	library bool   // a Docker Hub library image: kubelets report docker.io/library/<repo>
	tags    []string
	mib     int64
}

var imageCatalog = []catalogImage{
	{repo: "nginx", library: true, tags: []string{"1.27", "latest"}, mib: 70},
	{repo: "redis", library: true, tags: []string{"7.4", "latest"}, mib: 45},
	{repo: "postgres", library: true, tags: []string{"16"}, mib: 430},
	{repo: "busybox", library: true, tags: []string{"latest"}, mib: 4},
	{repo: "python", library: true, tags: []string{"3.13", "3.13-slim"}, mib: 1020},
	{repo: "registry.k8s.io/pause", tags: []string{"3.10"}, mib: 1},
	{repo: "quay.io/prometheus/prometheus", tags: []string{"v3.1.0"}, mib: 290},
	{repo: "registry.example.com:5000/team/model", tags: []string{"v1", "v2", "latest"}, mib: 2600},
	{repo: "registry.example.com:5000/team/app", tags: []string{"latest"}, mib: 160},
	{repo: "ghcr.io/example/trainer", tags: []string{"2025.06"}, mib: 5200},
}

// nodeImages draws the images a node holds, each under the names a
// container runtime reports: the full reference and a digest (containerd),
// sometimes the short name too (Docker), and now and then a size a little
// off the catalogue's (the cluster's summary keeps the first node's).
func (g *gen) nodeImages() []corev1.ContainerImage {
	var out []corev1.ContainerImage
	short := g.chance(0.3)
	for i, img := range imageCatalog {
		if !g.chance(0.35) {
			continue
		}
		tag := img.tags[g.r.IntN(len(img.tags))]
		full := img.repo
		if img.library {
			full = "docker.io/library/" + img.repo
		}
		names := []string{fmt.Sprintf("%s@sha256:%064x", full, 1000*i+len(tag)), full + ":" + tag}
		if short && img.library {
			names = append(names, img.repo+":"+tag)
		}
		size := img.mib << 20
		if g.chance(0.2) {
			size += int64(g.r.IntN(64)) << 20
		}
		out = append(out, corev1.ContainerImage{Names: names, SizeBytes: size})
	}
	return out
}

// podImages gives the pod's containers images of the catalogue, spelled in
// the ways pods spell them, and sometimes a second or third container.
func (g *gen) podImages(p *corev1.Pod) {
	for i := range p.Spec.InitContainers {
		p.Spec.InitContainers[i].Image = g.imageRef()
	}
	p.Spec.Containers[0].Image = g.imageRef()
	for i := range g.r.IntN(3) {
		if !g.chance(0.4) {
			break
		}
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{
			Name: fmt.Sprintf("extra-%d", i), Image: g.imageRef(),
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(int64(50*(1+g.r.IntN(4))), resource.DecimalSI),
			}},
		})
	}
}

// imageRef draws an image reference: a catalogue image with a tag, without
// one (":latest" implied), by digest, in the full docker.io/library or the
// short spelling, or an image no node has.
func (g *gen) imageRef() string {
	if g.chance(0.1) {
		return "example.com/nowhere:1"
	}
	i := g.r.IntN(len(imageCatalog))
	img := imageCatalog[i]
	repo := img.repo
	if img.library {
		repo = g.pick([]string{img.repo, img.repo, "docker.io/library/" + img.repo, "library/" + img.repo})
	}
	switch tag := img.tags[g.r.IntN(len(img.tags))]; {
	case g.chance(0.2):
		return repo // no tag: ":latest"
	case g.chance(0.1):
		return fmt.Sprintf("%s@sha256:%064x", repo, 1000*i+len(tag))
	default:
		return repo + ":" + tag
	}
}
