// Package schedulinggates is the SchedulingGates PreEnqueue plugin: a pod
// with spec.schedulingGates stays out of activeQ until every gate is
// removed, and the queue moves it when an update removes the last one.
package schedulinggates
