// Package statesvc implements berth.v1 StateService: the caller's cluster
// state coming into the scheduler.
//
// Requests come from gRPC (Sync batches, Apply, Delete, ReportBindResult).
// Each object is converted and validated by server/convert, then applied to
// a Cluster — in berthd the object store (core/objstore) in front of the
// core/scheduler.Scheduler — through one Upsert and one Delete for every
// kind (resyncs list what is held through one List). Failures are reported per
// object in the acknowledgement with a google.rpc code number and the
// offending field; the table mapping scheduler errors to codes is
// server/errmap's.
//
// A request's mutations are applied in order while the service holds its
// lock, so requests from different streams do not interleave, and as one
// batch (Cluster.StartBatch): the pending pods it adds are queued only
// once all of it is applied, so none is tried against half a request.
// Resync markers are tracked per Sync stream (resync.go):
// scheduling stays held from RESYNC_BEGIN to RESYNC_END (or the end of the
// stream, which abandons the resync), and at RESYNC_END the objects of the
// re-listed kinds that nobody upserted since RESYNC_BEGIN are deleted:
// every upsert stamps its object with a sequence number, so what another
// stream or Apply sent during the re-list stays.
package statesvc
