package framework

// ImageSummary is what the cluster knows of one image name, for
// ImageLocality: the image's size and on how many nodes it is.
type ImageSummary struct {
	// Size is the size in bytes reported by the first node that listed
	// the name while any node lists it (kube's cache keeps that one when
	// nodes report different sizes).
	Size int64
	// NumNodes is the number of nodes listing the name.
	NumNodes int
}

// ImageLister is implemented by snapshots that index their nodes' images
// (core/cache.Snapshot), so that a plugin need not walk every node to
// learn an image's spread.
type ImageLister interface {
	// ImageSummary returns the summary of an image name, false when no
	// node lists it.
	ImageSummary(name string) (ImageSummary, bool)
}
