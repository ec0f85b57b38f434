// Package prefernodelabel is an out-of-tree Score plugin, the example of
// examples/custom-plugin: a node whose label Key carries one of Values
// scores framework.MaxNodeScore, every other node 0, so that among the
// nodes that fit a pod goes to a preferred one (a weight in the profile
// says how much that outweighs the in-tree scores).
//
// It is built like an in-tree plugin (core/plugins/nodename): a Name, a New
// factory decoding and validating its typed args, compile-time interface
// checks and one pure helper its tests call.
package prefernodelabel
