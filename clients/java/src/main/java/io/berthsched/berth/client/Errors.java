package io.berthsched.berth.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.berthsched.berth.rpc.ErrorInfo;
import io.berthsched.berth.rpc.RetryInfo;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The google.rpc details of Berth's gRPC errors (ErrorInfo reasons such as NOT_LEADER or
 * REVISION_COMPACTED), and which failures a stream reconnects for.
 */
public final class Errors {
  /** A follower's refusal of a write: UNAVAILABLE, metadata "leader" naming the leader. */
  public static final String NOT_LEADER = "NOT_LEADER";
  /** A watch position older than the log keeps (OUT_OF_RANGE). */
  public static final String REVISION_COMPACTED = "REVISION_COMPACTED";
  /** A watch position beyond the end of the log (OUT_OF_RANGE): another log's. */
  public static final String REVISION_NOT_WRITTEN = "REVISION_NOT_WRITTEN";
  /** A watch naming another log (FAILED_PRECONDITION). */
  public static final String LOG_ID_MISMATCH = "LOG_ID_MISMATCH";
  /** An eviction a disruption budget refuses (RESOURCE_EXHAUSTED). */
  public static final String DISRUPTION_BUDGET = "DISRUPTION_BUDGET";

  // Stream failures worth reconnecting for; anything else (INVALID_ARGUMENT, UNAUTHENTICATED,
  // ...) goes to the caller. RESOURCE_EXHAUSTED is not: the same message would be refused again.
  private static final Set<Status.Code> RETRYABLE = Set.of(Status.Code.UNAVAILABLE,
      Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.ABORTED, Status.Code.CANCELLED,
      Status.Code.DEADLINE_EXCEEDED);

  private Errors() {}

  /** The gRPC status code of e, or UNKNOWN when e is not a gRPC error. */
  public static Status.Code code(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      Status s = statusOf(t);
      if (s != null) {
        return s.getCode();
      }
    }
    return Status.Code.UNKNOWN;
  }

  private static Status statusOf(Throwable t) {
    if (t instanceof io.grpc.StatusRuntimeException) {
      return ((io.grpc.StatusRuntimeException) t).getStatus();
    }
    if (t instanceof io.grpc.StatusException) {
      return ((io.grpc.StatusException) t).getStatus();
    }
    return null;
  }

  static boolean isGrpc(Throwable e) {
    return e != null && statusOf(e) != null;
  }

  static boolean retryable(Throwable e) {
    return isGrpc(e) && RETRYABLE.contains(code(e));
  }

  /** The first google.rpc.ErrorInfo of a gRPC error's status details, if any. */
  public static Optional<ErrorInfo> errorInfo(Throwable e) {
    if (!isGrpc(e)) {
      return Optional.empty();
    }
    com.google.rpc.Status st = StatusProto.fromThrowable(e);
    if (st == null) {
      return Optional.empty();
    }
    for (Any detail : st.getDetailsList()) {
      if (detail.is(ErrorInfo.class)) {
        try {
          return Optional.of(detail.unpack(ErrorInfo.class));
        } catch (InvalidProtocolBufferException ignored) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The BudgetRefusedException an eviction's error is: RESOURCE_EXHAUSTED with reason
   * DISRUPTION_BUDGET, the budget from its metadata and the delay from a RetryInfo; empty for
   * any other error.
   */
  public static Optional<BudgetRefusedException> budgetRefused(Throwable e) {
    Optional<ErrorInfo> info = errorInfo(e);
    if (code(e) != Status.Code.RESOURCE_EXHAUSTED || info.isEmpty()
        || !DISRUPTION_BUDGET.equals(info.get().getReason())) {
      return Optional.empty();
    }
    Duration retryAfter = Duration.ZERO;
    com.google.rpc.Status st = StatusProto.fromThrowable(e);
    for (Any detail : st == null ? List.<Any>of() : st.getDetailsList()) {
      if (detail.is(RetryInfo.class)) {
        try {
          com.google.protobuf.Duration d = detail.unpack(RetryInfo.class).getRetryDelay();
          retryAfter = Duration.ofSeconds(d.getSeconds(), d.getNanos());
        } catch (InvalidProtocolBufferException ignored) {
          // no delay to suggest, then
        }
      }
    }
    String message = e instanceof io.grpc.StatusRuntimeException
        ? ((io.grpc.StatusRuntimeException) e).getStatus().getDescription() : e.getMessage();
    return Optional.of(new BudgetRefusedException(message,
        info.get().getMetadataOrDefault("budget", ""), retryAfter, e));
  }

  /** The ErrorInfo reason of a gRPC error ("REVISION_COMPACTED", ...), or "". */
  public static String errorReason(Throwable e) {
    return errorInfo(e).map(ErrorInfo::getReason).orElse("");
  }

  /**
   * The leader a replica's NOT_LEADER refusal names ("" while no leader is known), or empty when
   * e is no such refusal.
   */
  public static Optional<String> notLeader(Throwable e) {
    if (code(e) != Status.Code.UNAVAILABLE || !isGrpc(e)) {
      return Optional.empty();
    }
    return errorInfo(e)
        .filter(i -> NOT_LEADER.equals(i.getReason()))
        .map(i -> i.getMetadataOrDefault("leader", ""));
  }
}
