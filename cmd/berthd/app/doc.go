// Package app is berthd as a library: Main runs the daemon (or `berthd
// verify`) from a command line, and Options add to it what a program
// embedding berthd brings, as kube-scheduler's cmd/kube-scheduler/app does:
// WithPlugin adds an out-of-tree plugin to the registry, which a
// KubeSchedulerConfiguration (--scheduler-config) then enables and
// configures like an in-tree one. cmd/berthd is Main with no Options;
// examples/custom-plugin is Main with one plugin of its own.
//
// The flags and berthd's configuration file (--config) are made from one
// table (settings.go: each setting's flag, key, help and field; config.go
// reads the file) and read here and nowhere else; they become a daemon.Config
// (server/daemon) or, with --store etcd, a replica.Config
// (server/replica). A bad command line is one line naming the problem and
// exit code 2; the other exit codes are cmd/berthd's (verify.go).
package app
