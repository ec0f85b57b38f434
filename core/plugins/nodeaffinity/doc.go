// Package nodeaffinity is the NodeAffinity plugin. PreFilter narrows the
// nodes to those named by metadata.name matchFields; Filter enforces the
// pod's nodeSelector, its required node affinity, and the scheduler-wide
// addedAffinity of the plugin args; Score sums the weights of the preferred
// terms a node matches (the pod's and addedAffinity's), and NormalizeScore
// scales the sums to 0..100.
package nodeaffinity
