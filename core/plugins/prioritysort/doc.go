// Package prioritysort is the PrioritySort QueueSort plugin: activeQ pops
// the pod with the highest priority first, and among equal priorities the
// one that entered the queue first.
package prioritysort
