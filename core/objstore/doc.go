// Package objstore is the one way objects come into Berth: a registry of
// kinds, each typed by the Go type of its objects, and a Store that applies
// changes through it, runs the node mutators, keeps the by-node pod index
// and publishes every change to its subscribers.
//
// Data in: the state service (server/statesvc) hands it each upsert and
// deletion of a request, in order. A kind's Type says how to name an
// object, how to admit it (its Admit: an ordered list of Admitters, kube's
// API defaulting and admission plugins; in berthd pods and pod groups are
// admitted by core/podadmission, through the scheduler's kinds), how to
// apply it (its Upsert: in berthd the scheduler's, which keeps the object
// and raises the cluster events kube's event handlers would), how to
// delete one and how to list what is held (for resyncs). Adding a kind is
// one Register call by whoever holds the objects: no method is added to
// the Store, to the scheduler or to the state service.
//
// Every upsert runs the same stages, in order: the mutators (nodes and
// pods), the kind's admission, the kind's Upsert, the by-node index, the
// publication. An admitter's refusal ends the upsert: nothing is applied
// nor published, and the caller gets the admitter's error as it is (a Sync
// acknowledgement's error for the object). Admission runs after the
// mutators, where the scheduler admitted its pods before the store held
// the stage, so the mutators (Kueue's gate) read the pod as sent. Admit
// runs the stages short of the Upsert, for a caller that checks an object
// before acting on it; a Registry alone (Registry.Upsert, with no Store:
// the simulator, tests) runs the admission and then the Upsert.
//
// Nodes pass through the node mutators before they are applied, in the
// order given (berthd: the taints of node conditions, then the pressure
// taints); the Store keeps each node as it was sent, so that a mutator
// whose answer changed (pressure conditions that began or ended) has the
// node applied again with Refresh, and nobody else keeps a copy.
//
// Pods pass through the pod mutators in the same way (berthd: Kueue's
// admission gate and flavors, server/queuesvc), kept as sent (SentPod) and
// applied again with RefreshPod once a mutator answers differently; with
// Options.KeepSentPod only the pods a mutator may change are kept (berthd:
// those with a queue label or a group), not a second copy of every pod.
// The pod path is hot: a mutator that does not apply returns the pod as it
// is and the Store allocates nothing for it.
//
// Data out: an Event per applied change, to every Subscription, each with
// its own queue and goroutine, as kube's controllers work from their
// informers' events: a subscriber's work (an eviction's commit) never runs
// on the caller's path, and a slow one delays nobody else. Subscriptions
// read the state they need when they handle an event, from the Store
// (Node, PodsOn) and from the scheduler's read side; Wait is the hook a
// test or a caller uses to know every event published before it was
// handled.
//
// Lock order: the Store's mu is taken by Upsert, Admit, Delete and the
// refreshes and held across the mutators, the kind's admission and its
// Upsert or Delete (so the scheduler's locks come after it) and the
// publication of the event; a Subscription's mu is a leaf, and its
// handler runs holding no lock of the Store.
package objstore
