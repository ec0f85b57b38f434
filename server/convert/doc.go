// Package convert turns the berth.v1 wire objects into the scheduler's
// model (core/model) and back, validating on the way in.
//
// Data comes from the gRPC services (server/statesvc, server/adminsvc),
// which convert what callers send before handing it to the scheduler, and
// from berthctl, which reads Kubernetes manifests into the model
// (core/manifest) and turns them into wire objects with the ...ToProto
// functions. Converting a valid wire object to the model and back gives the
// same wire object.
//
// Validation follows what the Kubernetes API server checks for the fields
// that matter to scheduling: DNS-1123 names, qualified label keys and label
// values, resource names and non-negative amounts, selector operators and
// their value counts, taint effects, toleration operator/effect/value
// combinations, weights 1-100, spread constraints (max_skew, min_domains,
// enums), host ports, priority ranges. The first problem found is returned
// as a *FieldError whose Path is the proto field path described in
// api/README.md, for example "containers[1].requests[cpu]" relative to the
// message converted, or "pod.containers[1].requests[cpu]" from an Object.
//
// The queueing objects (Kueue's, queueing.go) become core/quota's types,
// with Kueue's defaults and its webhooks' rules (core/quota's Validate*);
// KueuePath translates Kueue's field paths to the proto's.
package convert
