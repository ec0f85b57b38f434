// Package helper holds what several plugins share: strict decoding of
// plugin args with typed errors, kube-scheduler's default score
// normalization, the classification of resource names (native, extended,
// hugepages), and typed access to the objects of a cluster event.
//
// Everything here is pure: no state, no I/O. Plugins call it from their
// factories (args), their Score extensions (normalization) and their
// queueing hints (event objects).
package helper
