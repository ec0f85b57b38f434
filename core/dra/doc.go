// Package dra holds Berth's model of dynamic resource allocation
// (resource.k8s.io/v1): device classes, resource slices, resource claims and
// claim templates, their validation and defaulting, the claims the
// resourceclaim controller makes from templates, and the allocation of
// claims to the devices of a node.
//
// The objects are Kubernetes' own types (k8s.io/api/resource/v1): the
// allocation is done by Kubernetes' structured allocator and CEL selectors
// are compiled by Kubernetes' DRA CEL environment
// (k8s.io/dynamic-resource-allocation), so the language, its cost limits and
// the allocator's choices are kube-scheduler's by construction. The features
// are those kube-scheduler 1.37 enables by default (Features).
//
// Tracker is a scheduler's DRA state: the objects, the claims'
// allocations and consumers, and the allocations in flight between Reserve
// and the bind (they count as taken, so a device is never allocated
// twice); it also plays the resourceclaim controller (template claims made
// for a pod and deleted with it, a claim deallocated when its last consumer
// is gone). Template claims are named as kube names them with a
// deterministic suffix (TemplateClaimName). An allocation in flight is
// shared by the members of the pod group whose cycle made it, and the
// reservations of an allocated claim in flight by any pod; another pod
// needing the claim waits for the commit. Explain says, for people, which
// claim or request cannot be allocated on a node and why.
//
// Where Berth differs from kube: kube's allocator evaluates every selector
// on every device of every node it tries, for each pod, and Berth runs it
// less, with the same answers (Shortcuts; each has a TrackerOption that
// turns it off, for the tests that compare). The selectors' verdicts are
// remembered per slice object and set of selectors across pods
// (SelectorMemo, slicememo.go). Before the allocator, nodes where some
// request has fewer free matching devices than it asks for get its
// CannotAllocate (precheck.go, WithoutPrecheck). The allocator gets, per
// attempt, copies of the slices without the devices no request can match,
// made once per slice and selector sets, and on nodes where every device
// left matches every request, claims and classes without selectors, so it
// evaluates no CEL there (filter.go, WithoutSliceFilter); slices whose
// filtering could change its conclusions (a failing selector, counters,
// per-device node selection, binding conditions, repeated names) go as
// they are. On a plain node, its answer for claims of the same specs is
// given again while the node's devices, slices and the classes are
// unchanged (nodememo.go, WithoutNodeMemo). The tracker shares the
// classes, the sorted slices and the devices in use between attempts until
// they change.
//
// DeviceTaintRules (taintrules.go) put their taint on the devices they
// select in the slices the allocator sees, as kube's ResourceSlice tracker
// does; the slices as sent are what Slices lists.
//
// Validation follows kube-apiserver's rules for what the scheduler reads and
// reports the offending field as a path relative to the object
// ("spec.devices.requests[0].exactly.selectors[1].cel.expression").
package dra
