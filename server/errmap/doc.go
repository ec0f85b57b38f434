// Package errmap is berthd's one table from errors to gRPC status codes.
//
// core, store and server/convert return typed errors and sentinels (a
// *convert.FieldError, a *priority.UnknownClassError, scheduler.ErrNotFound,
// a *store.CompactedError, ...); the services wrap them with %w and, at the
// edge, hand them to Status (an RPC failing as a whole) or ObjectError (one
// object of a Sync, Apply or Delete refused). Refusals the server raises
// itself (a missing token, a limit of calls in flight, a resync marker out
// of order) are Refuse with one of the kinds of refusal.go, so that their
// codes are in the table too. Nothing else in berthd decides a code.
//
// Errors that are about one field of the request are located with Field
// (or any error with a FieldPath method); the field path goes into the
// status message, a google.rpc.BadRequest detail for INVALID_ARGUMENT, and
// ObjectError.field_path.
//
// Errors clients match on by more than their code name their
// google.rpc.ErrorInfo themselves: an ErrorReason method gives the reason
// ("REVISION_COMPACTED" on a *store.CompactedError) and ErrorMetadata
// methods, on the error or on errors wrapping it, the metadata
// ("oldest_revision", "log_id"). Status sends them as an ErrorInfo in
// the domain "berth.v1".
package errmap
