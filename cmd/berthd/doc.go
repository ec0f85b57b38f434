// Command berthd is the Berth daemon: it opens its data directory (one
// berthd per directory: a second one exits with an error naming it), runs
// the scheduling loop over the state the orchestrator streams in, appends
// every decision to the durable log it streams back, serves the berth.v1
// gRPC API (with health and reflection) and Prometheus metrics, and shuts
// down cleanly on SIGTERM or SIGINT. The command line is read by
// cmd/berthd/app (this package only calls app.Main, which a program
// embedding berthd with plugins of its own calls too); the assembly lives
// in server/daemon.
//
// Usage:
//
//	berthd [--config berthd.yaml]
//	       [--listen 127.0.0.1:7070] [--metrics-listen 127.0.0.1:9090]
//	       [--data-dir ./berth-data] [--scheduler-config kube-scheduler.yaml]
//	       [--retain-decisions 1000000] [--retain-for 0]
//	       [--tls-cert cert.pem --tls-key key.pem [--tls-client-ca ca.pem]]
//	       [--token-file tokens [--metrics-auth none|token]] [--max-batch-objects 10000]
//	       [--log-level info] [--shutdown-timeout 10s] [--deterministic]
//	       [--dashboard=true]
//	       [--store etcd --etcd-endpoints URL,... [--etcd-prefix /berth/]
//	        [--etcd-lease-ttl 10s] [--advertise-address host:port]
//	        [--etcd-cert c.pem --etcd-key k.pem] [--etcd-ca ca.pem]
//	        [--etcd-username u --etcd-password-file f]]
//	berthd --version
//	berthd --healthcheck [--metrics-listen 127.0.0.1:9090]
//	       [--accept-truncated-log]
//	berthd verify [--data-dir ./berth-data]
//
// --config names a YAML file holding the same settings under camelCase
// keys (one table, app/settings.go, makes the flags and the keys;
// deploy/berthd.yaml is an example); flags given on the command line win
// over it, and unknown keys are refused. --listen and
// --metrics-listen take host:port or unix:///path; --metrics-listen ""
// disables metrics and the dashboard. --dashboard serves the read-only web
// dashboard on the metrics listener (server/dashboard), behind the token
// file's tokens when one is given. --scheduler-config takes a KubeSchedulerConfiguration.
// The token file holds one token per line, optionally followed by
// "read-only"; clients send "authorization: Bearer <token>"; health needs
// none. --metrics-auth token asks the same of scrapes of /metrics (any
// token of the file); /healthz stays open.
//
// --store etcd runs berthd as one replica of a group sharing an etcd key
// prefix instead of a data directory (app/etcd.go, server/replica): one leader,
// elected, schedules and takes writes; the others serve watches and answer
// writes NOT_LEADER naming it. The etcd password is only ever read from a
// file.
//
// --version prints the build (cmd/internal/version); --healthcheck asks a
// running berthd's /healthz on --metrics-listen (app/healthcheck.go), for
// container images without a shell or curl. Neither starts berthd.
//
// Exit codes: 0 success, 1 failure, 2 a bad command line (one line naming
// the problem, then "Run 'berthd --help' for usage."), 3 corrupt data
// file, 4 the write-ahead file lost acknowledged decisions
// (--accept-truncated-log starts anyway).
// berthd verify checks a stopped berthd's data directory offline and exits
// 0 when clean, 3 when it found damage (listed), 1 when it could not check.
package main
