// Package deadlines keeps durable timers: named deadlines that survive a
// restart, kill -9 included. Eviction uses them for the times kube keeps
// in memory (a NoExecute toleration's tolerationSeconds; a node-pressure
// soft threshold's grace period and the pressure transition period).
//
// A deadline is a name (the owner's prefix, then the subject: "taint/" and
// a pod uid), a time and a small opaque value. Set writes it to the store
// (keyspace store.Deadlines: the time as 8 bytes of Unix nanoseconds, big
// endian, then the value) before it is armed; Cancel removes it durably.
// When a deadline is due, Run calls the Fire function the owner gave for
// its prefix, and removes the deadline once Fire returns nil; a Fire that
// fails is retried after RetryDelay. A deadline is never fired twice once
// Fire succeeded and its removal committed; a crash between the two fires
// it again after the restart, so Fire must be idempotent (an eviction is:
// the book refuses a second Evict).
//
// After a restart, Restore reads the deadlines back; they are not fired
// until Start (the daemon calls it once the orchestrator's first re-list
// has brought the nodes and pods back), so a deadline that passed while
// berthd was down fires right after the re-list, against the current
// state, and its owner may cancel or keep it first.
//
// Time comes from an injected Clock; tests fire deadlines with FireDue at
// a time they choose, without waiting.
//
// Lock order: mu is a leaf; Fire functions and the store are called with
// it released.
package deadlines
