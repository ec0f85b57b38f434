// Package runtime implements framework.Framework: it instantiates the
// plugins of one profile (config.Profile) from a Registry of factories and
// runs them at each extension point exactly as kube-scheduler 1.36's
// framework runtime does: the same order, the same merging of PreFilter
// results, the same two-pass filtering with nominated pods, the same
// normalization and weighting of scores, the same status codes and
// messages.
//
// Data flow: the scheduler builds one Framework per profile (NewProfiles)
// with the shared dependencies injected as Options (snapshot lister,
// nominator, namespace and PDB listers, decision sink, clock, logger,
// parallelism, the waiting-pods map, a metrics hook); the scheduling cycle
// calls the Run* methods; plugins get the Framework as their
// framework.Handle.
//
// Construction checks the profile: every named plugin must be registered
// and implement the points it is named at, exactly one QueueSort plugin, at
// least one Bind plugin, positive score weights whose total cannot
// overflow. MultiPoint plugins are expanded to every point they implement,
// with kube's precedence rules (ListPlugins shows the result).
//
// Files follow the extension points: prefilter.go, filter.go (with the
// nominated-pods pass), postfilter.go, score.go (PreScore and Score),
// reserve.go, permit.go (+ waiting_pods.go), bind.go (PreBind, Bind,
// PostBind).
//
// Plugins must return a fresh *framework.Status from every call: the
// runtime records the plugin's name in the status it gets (WithPlugin), as
// kube does, so a status shared between calls would be written
// concurrently.
package runtime
