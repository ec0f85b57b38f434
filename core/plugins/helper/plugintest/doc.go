// Package plugintest helps plugin tests check their numbers against the
// real kube-scheduler. A test keeps a small cluster as Kubernetes YAML in
// its testdata/ (the input given to /tmp/kubeoracle), loads it with Load,
// builds the default profile's plugins with Profile, and hands Replay the
// steps the oracle printed. For each pending pod, in the oracle's order,
// Replay runs the plugins (Run: PreFilter, Filter in kube's plugin order so
// a node keeps the reasons of the first plugin that rejects it, then
// PreScore, Score and NormalizeScore over the feasible nodes), compares the
// outcome with the oracle's, and binds the pod where the oracle bound it so
// the next pod sees the cluster the oracle's did. Hint answers for
// queueing hints as the scheduling queue would.
//
// testdata/oracle2steps.py turns an oracle trace into the table rows.
// corpus_test.go replays the parity package's random clusters the same way.
//
// It is imported by tests only.
package plugintest
