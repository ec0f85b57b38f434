package io.berthsched.berth.client;

import com.google.protobuf.Any;
import io.berthsched.berth.rpc.ErrorInfo;
import io.berthsched.berth.rpc.RetryInfo;
import io.berthsched.berth.v1.ApplyRequest;
import io.berthsched.berth.v1.ApplyResponse;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.DecisionServiceGrpc;
import io.berthsched.berth.v1.DeleteRequest;
import io.berthsched.berth.v1.DeleteResponse;
import io.berthsched.berth.v1.ErrorCode;
import io.berthsched.berth.v1.EvictPodRequest;
import io.berthsched.berth.v1.EvictPodResponse;
import io.berthsched.berth.v1.EvictionServiceGrpc;
import io.berthsched.berth.v1.Mutation;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.ReportBindResultRequest;
import io.berthsched.berth.v1.ReportBindResultResponse;
import io.berthsched.berth.v1.Resync;
import io.berthsched.berth.v1.StateServiceGrpc;
import io.berthsched.berth.v1.SyncRequest;
import io.berthsched.berth.v1.SyncResponse;
import io.berthsched.berth.v1.WatchRequest;
import io.berthsched.berth.v1.WatchResponse;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * An in-process berthd for the client's tests: StateService and DecisionService with berth.v1's
 * semantics where the client depends on them (acknowledgements in order, resync deleting what was
 * not re-sent, NOT_FOUND deletes, watch from a revision with a log id), and switches to make it
 * refuse objects, answer NOT_LEADER, hold acknowledgements or break its streams. Everything it
 * received is recorded. All state is guarded by the fake itself.
 */
final class FakeBerthd implements AutoCloseable {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> AUTH = Context.key("authorization");

  final String name;
  private final Server server;

  // Objects by "kind/namespace/name".
  final Map<String, Object> objects = new LinkedHashMap<>();
  final List<SyncRequest> syncRequests = new ArrayList<>();
  final List<ApplyRequest> applies = new ArrayList<>();
  final List<ReportBindResultRequest> reports = new ArrayList<>();
  final List<WatchRequest> watches = new ArrayList<>();
  final List<EvictPodRequest> evictions = new ArrayList<>();
  final List<String> authorizations = new ArrayList<>();
  int syncStreams; // opened
  /** Refuses an upserted object with this error (index is filled in), or accepts it (null). */
  Function<Object, io.berthsched.berth.v1.ObjectError> refuse = o -> null;
  /** Fails every call with NOT_LEADER naming this leader ("": none known); null: serves. */
  String notLeader;
  /** Fails every call with RESOURCE_EXHAUSTED when a request carries more mutations. */
  int maxBatch = Integer.MAX_VALUE;
  /** Holds acknowledgements of requests with mutations (not the re-list's) while true. */
  boolean holdAcks;

  // Decisions.
  final List<Decision> log = new ArrayList<>();
  String logId = "log-1";
  long compactedBelow; // revisions below are gone
  private final List<StreamObserver<WatchResponse>> watchers = new ArrayList<>();
  private final List<StreamObserver<SyncResponse>> syncs = new ArrayList<>();

  FakeBerthd(String name) throws IOException {
    this.name = name;
    ServerInterceptor auth = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        String a = headers.get(AUTHORIZATION);
        return Contexts.interceptCall(Context.current().withValue(AUTH, a == null ? "" : a), call,
            headers, next);
      }
    };
    this.server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ServerInterceptors.intercept(new State(), auth))
        .addService(ServerInterceptors.intercept(new Decisions(), auth))
        .addService(ServerInterceptors.intercept(new Eviction(), auth))
        .build().start();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  static String key(Object o) {
    Identity id = Identity.of(o);
    return id.kind.getNumber() + "/" + id.namespace + "/" + id.name;
  }

  static String key(ObjectRef r) {
    return r.getKind().getNumber() + "/" + r.getNamespace() + "/" + r.getName();
  }

  static io.berthsched.berth.v1.ObjectError invalid(String field, String message) {
    return io.berthsched.berth.v1.ObjectError.newBuilder().setCode(ErrorCode.ERROR_CODE_INVALID_ARGUMENT)
        .setFieldPath(field).setMessage(message).build();
  }

  /** A gRPC error with an ErrorInfo of this reason and metadata. */
  static StatusRuntimeException withReason(Status.Code code, String message, String reason,
      Map<String, String> metadata) {
    ErrorInfo info = ErrorInfo.newBuilder().setReason(reason).setDomain("berth.dev")
        .putAllMetadata(metadata).build();
    return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
        .setCode(code.value()).setMessage(message).addDetails(Any.pack(info)).build());
  }

  private synchronized StatusRuntimeException refusal() {
    authorizations.add(AUTH.get());
    if (notLeader == null) {
      return null;
    }
    return withReason(Status.Code.UNAVAILABLE, "not the leader", Errors.NOT_LEADER,
        notLeader.isEmpty() ? Map.of() : Map.of("leader", notLeader));
  }

  /** Waits (a test's failure guard, not a measurement) until cond holds under the fake's lock. */
  synchronized void await(BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!cond.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("fake berthd: condition not reached; sync requests " + syncRequests);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** Ends every open Sync and Watch stream with UNAVAILABLE, as a berthd shutting down does. */
  void breakStreams() {
    List<StreamObserver<?>> open;
    synchronized (this) {
      open = new ArrayList<>(syncs);
      open.addAll(watchers);
      syncs.clear();
      watchers.clear();
      pendingAcks.clear();
    }
    for (StreamObserver<?> o : open) {
      try {
        o.onError(Status.UNAVAILABLE.withDescription("fake: stream broken").asRuntimeException());
      } catch (RuntimeException ignored) {
        // already ended by the client
      }
    }
  }

  /** Appends decisions to the log and sends them to the open watches. */
  void append(Decision... ds) {
    List<StreamObserver<WatchResponse>> open;
    WatchResponse resp;
    synchronized (this) {
      for (Decision d : ds) {
        log.add(d.toBuilder().setRevision(log.size() + 1).build());
      }
      resp = WatchResponse.newBuilder().addAllDecisions(log.subList(log.size() - ds.length, log.size()))
          .setNextRevision(log.size() + 1).build();
      open = new ArrayList<>(watchers);
      // Sent under the lock: a watch opening now sends its first response under it too, so
      // the two never interleave on one stream.
      for (StreamObserver<WatchResponse> o : open) {
        o.onNext(resp);
      }
    }
  }

  private final List<Runnable> pendingAcks = new ArrayList<>();

  /** Sends the acknowledgements held while holdAcks was true. */
  void releaseAcks() {
    List<Runnable> acks;
    synchronized (this) {
      holdAcks = false;
      acks = new ArrayList<>(pendingAcks);
      pendingAcks.clear();
    }
    acks.forEach(Runnable::run);
  }

  /** Applies mutations as one batch; returns the acknowledgement's applied count and errors. */
  private synchronized SyncResponse.Builder applyLocked(List<Mutation> ms, Set<String> resynced) {
    SyncResponse.Builder r = SyncResponse.newBuilder();
    int applied = 0;
    for (int i = 0; i < ms.size(); i++) {
      Mutation m = ms.get(i);
      if (m.hasUpsert()) {
        if (resynced != null) {
          resynced.add(key(m.getUpsert()));
        }
        io.berthsched.berth.v1.ObjectError e = refuse.apply(m.getUpsert());
        if (e != null) {
          r.addErrors(e.toBuilder().setIndex(i));
          continue;
        }
        objects.put(key(m.getUpsert()), m.getUpsert());
        applied++;
      } else if (objects.remove(key(m.getDelete())) != null) {
        applied++;
      } else {
        r.addErrors(io.berthsched.berth.v1.ObjectError.newBuilder().setIndex(i)
            .setCode(ErrorCode.ERROR_CODE_NOT_FOUND).setRef(m.getDelete()).setMessage("not found"));
      }
    }
    return r.setApplied(applied);
  }

  private final class State extends StateServiceGrpc.StateServiceImplBase {
    @Override
    public StreamObserver<SyncRequest> sync(StreamObserver<SyncResponse> out) {
      StatusRuntimeException refused = refusal();
      synchronized (FakeBerthd.this) {
        syncStreams++;
        if (refused == null) {
          syncs.add(out);
        }
        FakeBerthd.this.notifyAll();
      }
      if (refused != null) {
        out.onError(refused);
        return new StreamObserver<>() {
          @Override public void onNext(SyncRequest r) {}
          @Override public void onError(Throwable t) {}
          @Override public void onCompleted() {}
        };
      }
      return new StreamObserver<>() {
        private Set<String> resynced; // keys upserted since RESYNC_BEGIN, null when none is open
        private List<ObjectKind> kinds = List.of();

        @Override
        public void onNext(SyncRequest req) {
          Runnable ack;
          synchronized (FakeBerthd.this) {
            syncRequests.add(req);
            FakeBerthd.this.notifyAll();
            if (req.getMutationsCount() > maxBatch) {
              syncs.remove(out);
              ack = () -> out.onError(Status.RESOURCE_EXHAUSTED
                  .withDescription("fake: more than " + maxBatch + " mutations").asRuntimeException());
            } else {
              if (req.getResync() == Resync.RESYNC_BEGIN) {
                resynced = new HashSet<>();
                kinds = req.getResyncKindsList();
              }
              SyncResponse.Builder r = applyLocked(req.getMutationsList(), resynced).setBatchId(req.getBatchId());
              if (req.getResync() == Resync.RESYNC_END && resynced != null) {
                int deleted = 0;
                for (var it = objects.entrySet().iterator(); it.hasNext();) {
                  var e = it.next();
                  ObjectKind k = Identity.of(e.getValue()).kind;
                  if ((kinds.isEmpty() || kinds.contains(k)) && !resynced.contains(e.getKey())) {
                    it.remove();
                    deleted++;
                  }
                }
                r.setResyncDeleted(deleted);
                resynced = null;
              }
              SyncResponse resp = r.build();
              ack = () -> out.onNext(resp);
              if (holdAcks && req.getResync() == Resync.RESYNC_UNSPECIFIED) {
                pendingAcks.add(ack);
                return;
              }
            }
          }
          ack.run();
        }

        @Override
        public void onError(Throwable t) {
          synchronized (FakeBerthd.this) {
            syncs.remove(out);
          }
        }

        @Override
        public void onCompleted() {
          synchronized (FakeBerthd.this) {
            syncs.remove(out);
          }
          out.onCompleted();
        }
      };
    }

    @Override
    public void apply(ApplyRequest req, StreamObserver<ApplyResponse> out) {
      StatusRuntimeException refused = refusal();
      if (refused != null) {
        out.onError(refused);
        return;
      }
      synchronized (FakeBerthd.this) {
        applies.add(req);
        if (req.getObjectsCount() > maxBatch) {
          out.onError(Status.RESOURCE_EXHAUSTED.withDescription("fake: too many objects").asRuntimeException());
          return;
        }
      }
      List<Mutation> ms = new ArrayList<>();
      req.getObjectsList().forEach(o -> ms.add(Mutation.newBuilder().setUpsert(o).build()));
      SyncResponse r = applyLocked(ms, null).build();
      out.onNext(ApplyResponse.newBuilder().setApplied(r.getApplied()).addAllErrors(r.getErrorsList()).build());
      out.onCompleted();
    }

    @Override
    public void delete(DeleteRequest req, StreamObserver<DeleteResponse> out) {
      StatusRuntimeException refused = refusal();
      if (refused != null) {
        out.onError(refused);
        return;
      }
      List<Mutation> ms = new ArrayList<>();
      req.getRefsList().forEach(r -> ms.add(Mutation.newBuilder().setDelete(r).build()));
      SyncResponse r = applyLocked(ms, null).build();
      out.onNext(DeleteResponse.newBuilder().setDeleted(r.getApplied()).addAllErrors(r.getErrorsList()).build());
      out.onCompleted();
    }

    @Override
    public void reportBindResult(ReportBindResultRequest req, StreamObserver<ReportBindResultResponse> out) {
      StatusRuntimeException refused = refusal();
      if (refused != null) {
        out.onError(refused);
        return;
      }
      synchronized (FakeBerthd.this) {
        reports.add(req);
      }
      out.onNext(ReportBindResultResponse.getDefaultInstance());
      out.onCompleted();
    }
  }

  /** Evicts any pod but "guarded" (a budget allowing no disruption) and "nobody" (no such pod). */
  private final class Eviction extends EvictionServiceGrpc.EvictionServiceImplBase {
    @Override
    public void evictPod(EvictPodRequest req, StreamObserver<EvictPodResponse> out) {
      synchronized (FakeBerthd.this) {
        evictions.add(req);
      }
      switch (req.getPod().getName()) {
        case "guarded": {
          ErrorInfo info = ErrorInfo.newBuilder().setReason(Errors.DISRUPTION_BUDGET).setDomain("berth.dev")
              .putMetadata("budget", "ns/web").putMetadata("disruptions_allowed", "0").build();
          RetryInfo retry = RetryInfo.newBuilder()
              .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(5)).build();
          out.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
              .setCode(Status.Code.RESOURCE_EXHAUSTED.value()).setMessage("budget ns/web allows no disruption")
              .addDetails(Any.pack(info)).addDetails(Any.pack(retry)).build()));
          return;
        }
        case "nobody":
          out.onError(Status.NOT_FOUND.withDescription("no such pod").asRuntimeException());
          return;
        default:
          out.onNext(EvictPodResponse.newBuilder().setRevision(req.getDryRun() ? 0 : 7).build());
          out.onCompleted();
      }
    }
  }

  private final class Decisions extends DecisionServiceGrpc.DecisionServiceImplBase {
    @Override
    public void watch(WatchRequest req, StreamObserver<WatchResponse> out) {
      WatchResponse first;
      synchronized (FakeBerthd.this) {
        watches.add(req);
        authorizations.add(AUTH.get());
        FakeBerthd.this.notifyAll();
        long from = Math.max(req.getFromRevision(), 1);
        if (!req.getLogId().isEmpty() && !req.getLogId().equals(logId)) {
          out.onError(withReason(Status.Code.FAILED_PRECONDITION, "another log", Errors.LOG_ID_MISMATCH,
              Map.of("log_id", logId)));
          return;
        }
        if (req.getFromRevision() != 0 && req.getFromRevision() < compactedBelow) {
          out.onError(withReason(Status.Code.OUT_OF_RANGE, "compacted", Errors.REVISION_COMPACTED,
              Map.of("oldest_revision", Long.toString(compactedBelow))));
          return;
        }
        if (from > log.size() + 1) {
          out.onError(withReason(Status.Code.OUT_OF_RANGE, "not written", Errors.REVISION_NOT_WRITTEN,
              Map.of()));
          return;
        }
        List<Decision> ds = req.getFromRevision() == 0 ? List.of() : log.subList((int) from - 1, log.size());
        first = WatchResponse.newBuilder().addAllDecisions(ds).setNextRevision(log.size() + 1)
            .setLogId(logId).build();
        watchers.add(out);
        out.onNext(first);
      }
    }
  }
}
