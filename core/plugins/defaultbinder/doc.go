// Package defaultbinder is the DefaultBinder Bind plugin: it hands the
// binding to the framework's Planner (a one-item plan), which makes it a durable Bind
// decision for watchers (server) or applies it at once (simulator).
package defaultbinder
