// Package pressure is the kubelet's node-pressure eviction manager as pure
// logic: eviction signals observed in a kubelet Summary, hard and soft
// thresholds with grace periods and minimum reclaim, the node conditions
// they set (with the pressure transition period), the ranking of a node's
// pods for the signal being reclaimed and the message the kubelet writes.
//
// Nothing here keeps time, stores or talks to anyone: Synchronize takes a
// node's State, the time, one Summary and the node's pods and returns the
// new State and at most one eviction, as one pass of the kubelet's
// synchronize loop does. server/pressure feeds it reports and keeps the
// State durably.
//
// Where the kubelet leaves an order to a Go map (several non-memory
// thresholds met at once) Berth picks a fixed one (Signals order, hard before
// soft) and the Result says Ambiguous; pods with equal rank keep the order
// they were given in (the kubelet's is its pod manager's, unspecified).
package pressure
