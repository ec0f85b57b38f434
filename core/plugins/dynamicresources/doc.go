// Package dynamicresources is kube-scheduler's DynamicResources plugin
// (v1.37, resource.k8s.io/v1) over Berth's DRA state (core/dra.Tracker,
// from framework.Handle.Devices):
//
//   - PreEnqueue: a pod whose claims do not all exist (a template's claim
//     not made yet, a claim not sent yet) waits among the gated pods.
//   - PreFilter: the pod's claims are gathered; an allocated claim pins the
//     pod to the nodes its allocation's node selector names; a claim
//     reserved by too many pods, one whose allocation is in flight for
//     another pod, or a request naming a class that does not exist
//     rejects the pod on every node; the claims to allocate get one
//     structured allocator for the attempt. Pods without claims Skip.
//   - Filter: on each node, the allocated claims must be usable there
//     ("resourceclaim not available on the node") and the others must all
//     be allocatable ("cannot allocate all claims"); the allocation found
//     is kept for Score and Reserve. Both rejections are
//     UnschedulableAndUnresolvable: preemption does not free devices in
//     kube 1.36 (the plugin has no PreFilter extensions), nor here.
//   - PostFilter: a claim allocated on nodes the pod cannot use, and used
//     by no other pod, is deallocated (a framework.Deallocation submitted
//     through Handle.Decisions) so the next attempt may allocate it elsewhere.
//   - Score: kube scores firstAvailable choices (8 - index of the
//     subrequest chosen, summed, normalized to 0..100); pods without
//     claims score 0 on every node at no cost.
//   - Reserve puts the allocations in flight (Tracker.Assume: the devices
//     count as taken), Unreserve forgets them; the scheduler's bind
//     carries them (framework.Bind.Claims) and commits them.
//
// Queueing hints as kube's: a claim added or changed requeues the pods
// using it, a deallocation (a pod gone, PostFilter) requeues every pod
// this plugin rejected; a new or changed ResourceSlice or DeviceClass, a
// node added or relabelled requeues them too.
package dynamicresources
