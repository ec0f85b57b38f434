// The google.rpc.Status details of a gRPC error (trailer
// grpc-status-details-bin), decoded with the generated google.rpc stubs.
import * as grpc from "@grpc/grpc-js";

import { ErrorInfo } from "./gen/google/rpc/error_details.js";
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
