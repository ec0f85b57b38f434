// Package heap is a generic binary min-heap whose items know their own
// position, so the owner can remove or re-order any item in O(log n)
// without a side index.
//
// It is not synchronized: the owner (core/queue) holds its own lock around
// every call.
package heap
