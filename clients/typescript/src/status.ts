// The google.rpc.Status details of a gRPC error (trailer
// grpc-status-details-bin), decoded with the generated google.rpc stubs.
import * as grpc from "@grpc/grpc-js";

import { ErrorInfo, RetryInfo } from "./gen/google/rpc/error_details.js";
import { Status } from "./gen/google/rpc/status.js";

export { ErrorInfo, Status };

/** ErrorInfo reasons of berth.v1's watch errors (decision_service.proto). */
export const REVISION_COMPACTED = "REVISION_COMPACTED";
export const REVISION_NOT_WRITTEN = "REVISION_NOT_WRITTEN";
export const LOG_ID_MISMATCH = "LOG_ID_MISMATCH";

const errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo";

/** The google.rpc.Status a gRPC error carries, or undefined. */
export function statusDetails(e: unknown): Status | undefined {
  const raw = (e as grpc.ServiceError | undefined)?.metadata?.get("grpc-status-details-bin")[0];
  if (!(raw instanceof Buffer)) return undefined;
  try {
    return Status.decode(raw);
  } catch {
    return undefined;
  }
}

/** The first google.rpc.ErrorInfo of a gRPC error's status details, or undefined. */
export function errorInfo(e: unknown): ErrorInfo | undefined {
  for (const d of statusDetails(e)?.details ?? []) {
    if (d.typeUrl !== errorInfoType) continue;
    try {
      return ErrorInfo.decode(d.value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The ErrorInfo reason of a gRPC error ("REVISION_COMPACTED", ...), or "". */
export function errorReason(e: unknown): string {
  return errorInfo(e)?.reason ?? "";
}

/** The ErrorInfo reason of an eviction refused by a disruption budget. */
export const DISRUPTION_BUDGET = "DISRUPTION_BUDGET";

const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo";

/** An eviction refused by a disruption budget: which one, and the delay berthd suggests (seconds). */
export class BudgetRefused extends Error {
  constructor(message: string, readonly budget: string, readonly retryAfter: number, readonly cause: grpc.ServiceError) {
    super(message);
  }
}

/** The BudgetRefused an eviction's gRPC error is, or undefined. */
export function budgetRefused(e: grpc.ServiceError): BudgetRefused | undefined {
  const info = errorInfo(e);
  if (e.code !== grpc.status.RESOURCE_EXHAUSTED || info?.reason !== DISRUPTION_BUDGET) return undefined;
  let retryAfter = 0;
  for (const d of statusDetails(e)?.details ?? []) {
    if (d.typeUrl !== retryInfoType) continue;
    const delay = RetryInfo.decode(d.value).retryDelay;
    if (delay) retryAfter = Number(delay.seconds) + delay.nanos / 1e9;
  }
  return new BudgetRefused(e.details, info.metadata.budget ?? "", retryAfter, e);
}
