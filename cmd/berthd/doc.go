// Command berthd is the Berth daemon: it opens its data directory, serves
// the berth.v1 gRPC API (with health and reflection) and Prometheus metrics,
// and shuts down cleanly on SIGTERM or SIGINT.
//
// Usage:
//
//	berthd [--listen 127.0.0.1:7070] [--metrics-listen 127.0.0.1:9090]
//	       [--data-dir ./berth-data] [--log-level info] [--shutdown-timeout 10s]
//
// --listen and --metrics-listen take host:port or unix:///path;
// --metrics-listen "" disables metrics.
package main
