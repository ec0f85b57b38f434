// Package imagelocality is the ImageLocality Score plugin, at parity with
// kube-scheduler 1.37: a node already holding a pod's container images
// scores higher, by the images' sizes, each scaled by the share of the
// cluster's nodes holding it so that a widely spread image does not pull
// every pod to the same few nodes.
//
// Data comes from the nodes' images (model.Node.Images, the kubelet's
// status.images) through the snapshot: NodeInfo.HasImage for one node, and
// framework.ImageLister (core/cache's index) for the size and spread of an
// image name over the cluster. It reads nothing else and writes nothing
// but its scores.
//
// As kube, it compares names as written after one normalisation: a name
// without a tag or digest gets ":latest". "nginx" therefore matches a node
// listing "nginx:latest" but not "docker.io/library/nginx:latest" (kube
// leaves that to the container runtime's own names, which a kubelet
// reports in both spellings).
//
// Where Berth differs: kube's scheduler cache copies an image's node count
// into a node's snapshot only when that node itself changes, so a node's
// score can use a stale spread after other nodes pull or drop the image;
// Berth's snapshot always carries the current counts. Image volumes (kube
// counts `volumes[].image` as images too) are not modelled: Berth's pods
// have no volumes.
package imagelocality
