// The errors of the TypeScript client, and which gRPC failures are retried.
import * as grpc from "@grpc/grpc-js";

import { ObjectRef } from "./gen/berth/v1/object.js";
import { ObjectError as WireObjectError } from "./gen/berth/v1/state_service.js";

/** One object Berth refused; index counts from the caller's first object. */
export class ObjectError extends Error {
  constructor(
    readonly index: number,
    readonly ref: ObjectRef | undefined,
    /** A gRPC status code: 3 INVALID_ARGUMENT, 5 NOT_FOUND, 9 FAILED_PRECONDITION, 13 INTERNAL. */
    readonly code: grpc.status,
    readonly fieldPath: string,
    readonly detail: string,
  ) {
    const name = [ref?.namespace, ref?.name].filter(Boolean).join("/");
    super([`object ${index}${name ? ` (${name})` : ""}`, grpc.status[code], fieldPath, detail].filter(Boolean).join(": "));
  }
}

/** Converts a wire ObjectError about the caller's object index. */
export function objectError(index: number, e: WireObjectError): ObjectError {
  return new ObjectError(index, e.ref, e.code as number, e.fieldPath, e.message);
}

export const isNotFound = (e: WireObjectError) => (e.code as number) === grpc.status.NOT_FOUND;

/** The objects of one call that Berth refused; the others took effect. */
export class BatchError extends Error {
  constructor(readonly applied: number, readonly errors: ObjectError[]) {
    super(`${errors.length} object(s) refused: ${errors.map((e) => e.message).join("; ")}`);
  }
}

/** The watch position was compacted out of Berth's log (OUT_OF_RANGE). */
export class CompactedError extends Error {
  constructor(readonly fromRevision: number, readonly oldest: number) {
    super(`watch from revision ${fromRevision}: compacted, oldest revision kept is ${oldest}`);
  }
}

/** Raised by Session calls still waiting when the session closes. */
export class SessionClosed extends Error {}

/**
 * A Session's upsert() of an object whose kind the session does not re-list
 * (resyncKinds): refused, nothing of the call sent. Its re-lists would not
 * keep berthd's objects of that kind in step with the orchestrator's (they
 * remove none of them), and the upsert would not be superseded by a re-list
 * like the others. kind is the first such object's, index its place in the
 * call.
 */
export class UntrackedKind extends Error {
  constructor(readonly index: number, readonly kind: string, readonly resyncKinds: string[]) {
    super(`berth: upsert of object ${index}: the session does not track ${kind} (its resyncKinds: ${resyncKinds.join(", ")}), ` +
      `so its re-lists would not keep berthd's objects of that kind in step with yours; ` +
      `add ${kind} to resyncKinds to track it, or send it with client.apply()`);
  }
}

/**
 * berthd refused a request with RESOURCE_EXHAUSTED: more objects than its
 * --max-batch-objects, or more bytes than its message size limit. Not
 * retried; lower maxBatch. cause is the gRPC error.
 */
export class RequestTooLarge extends Error {
  constructor(message: string, readonly cause: grpc.ServiceError) {
    super(`${message}: ${cause.details ?? cause.message}`);
  }
}

/**
 * A watcher's handler failed on the decision at revision; run() rejects with
 * it, whatever the error (a gRPC error from a call the handler made is not
 * taken for a broken watch stream).
 */
export class HandlerError extends Error {
  constructor(readonly revision: number, readonly error: unknown) {
    super(`handle decision ${revision}: ${(error as Error)?.message ?? error}`);
  }
}

/**
 * Stream failures worth reconnecting for; anything else (INVALID_ARGUMENT,
 * UNAUTHENTICATED, ...) is returned. RESOURCE_EXHAUSTED is not retried: the
 * same message would be refused again.
 */
export const RETRYABLE: ReadonlySet<number> = new Set([
  grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.INTERNAL, grpc.status.ABORTED,
  grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED,
]);

/** A gRPC status error (as opposed to any other Error). */
export function grpcCode(e: unknown): number | undefined {
  const code = (e as grpc.ServiceError | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}
