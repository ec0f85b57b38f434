package io.berthsched.berth.client;

import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.DecisionServiceGrpc;
import io.berthsched.berth.v1.DecisionType;
import io.berthsched.berth.v1.WatchRequest;
import io.berthsched.berth.v1.WatchResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Streams decisions to a handler, in revision order, resuming from its {@link Checkpoint} after
 * a disconnect or a berthd restart, on any replica.
 *
 * <p>{@code startAt} is the revision used when the checkpoint holds none: 0 for only new
 * decisions, 1 for the whole log Berth keeps. When the position was compacted away (OUT_OF_RANGE,
 * REVISION_COMPACTED), {@code onCompacted} is called; it should recover (list binds awaiting an
 * outcome with AdminService.ListPending) and return the revision to watch from; without it
 * {@link #run} throws the {@link CompactedException}. A revision beyond the end of the log
 * (REVISION_NOT_WRITTEN) or a log id of another log (FAILED_PRECONDITION, LOG_ID_MISMATCH) is
 * not a compaction: run throws that gRPC error; resync and watch again from 0.
 *
 * <p>The log id (learnt from the first response, or given) is sent on every reconnect, so that a
 * berthd that lost its log refuses the watch rather than skip decisions. Delivery is at least
 * once: handlers must be idempotent. An exception from the handler stops run with a {@link
 * HandlerException}; the checkpoint then holds that decision.
 */
public final class Watcher {
  /** Acts on one decision; an exception stops the watcher. */
  public interface Handler {
    void handle(Decision d) throws Exception;
  }

  /** Recovers from a compacted position and returns the revision to watch from. */
  public interface OnCompacted {
    long recover(CompactedException e) throws Exception;
  }

  /** What a watcher watches from, and what. */
  public static final class Options {
    private long startAt;
    private OnCompacted onCompacted;
    private String schedulerName = "";
    private final List<DecisionType> types = new ArrayList<>();
    private String logId = "";

    public Options startAt(long revision) {
      this.startAt = revision;
      return this;
    }

    public Options onCompacted(OnCompacted f) {
      this.onCompacted = f;
      return this;
    }

    /** Only the decisions of this profile. */
    public Options schedulerName(String name) {
      this.schedulerName = name;
      return this;
    }

    /** Only decisions of these types (all when none). */
    public Options types(DecisionType... t) {
      this.types.addAll(List.of(t));
      return this;
    }

    /** The log the checkpoint's revision belongs to (a WatchResponse.log_id kept earlier). */
    public Options logId(String id) {
      this.logId = id;
      return this;
    }
  }

  public static Options options() {
    return new Options();
  }

  private final Client client;
  private final Checkpoint checkpoint;
  private final Handler handler;
  private final Options opts;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile String logId;
  private volatile Context.CancellableContext stream; // the open Watch call's

  Watcher(Client client, Checkpoint checkpoint, Handler handler, Options opts) {
    this.client = client;
    this.checkpoint = checkpoint;
    this.handler = handler;
    this.opts = opts;
    this.logId = opts.logId;
  }

  /** The id of the log the watched revisions belong to ("" until the first response). */
  public String logId() {
    return logId;
  }

  /** Makes {@link #run} return. */
  public void stop() {
    stopped.countDown();
    Context.CancellableContext s = stream;
    if (s != null) {
      s.cancel(null);
    }
  }

  private boolean isStopped() {
    return stopped.getCount() == 0;
  }

  /**
   * Watches until {@link #stop}.
   *
   * @throws StatusRuntimeException a refused watch (UNAUTHENTICATED, INVALID_ARGUMENT, ...), or a
   *     position in another log (REVISION_NOT_WRITTEN, LOG_ID_MISMATCH)
   * @throws CompactedException a compacted position without onCompacted
   * @throws HandlerException the handler threw
   */
  public void run() throws InterruptedException {
    Router router = client.router();
    long rev = checkpoint.load();
    if (rev == 0) {
      rev = opts.startAt;
    }
    int attempt = 0;
    int[] hops = {0};
    boolean atOnce = false; // the router moved past a replica that is down: no wait
    Throwable failure = null;
    while (!isStopped()) {
      if (attempt > 0 && !atOnce) {
        Duration d = router.retryDelay(failure, attempt);
        if (stopped.await(d.toNanos(), TimeUnit.NANOSECONDS)) {
          return;
        }
      }
      atOnce = false;
      failure = null;
      Router.Endpoint ep = router.current();
      WatchRequest req = WatchRequest.newBuilder().setFromRevision(rev)
          .setSchedulerName(opts.schedulerName).addAllTypes(opts.types).setLogId(logId).build();
      Context.CancellableContext ctx = Context.current().withCancellation();
      stream = ctx;
      if (isStopped()) {
        ctx.cancel(null);
      }
      boolean progressed = false;
      Context prev = ctx.attach();
      try {
        DecisionServiceGrpc.DecisionServiceBlockingStub stub =
            DecisionServiceGrpc.newBlockingStub(client.authed(ep.channel));
        if (!router.several()) {
          stub = stub.withWaitForReady(); // one berthd: wait for it to come back
        }
        Iterator<WatchResponse> it = stub.watch(req);
        while (it.hasNext()) {
          WatchResponse resp = it.next();
          progressed = true;
          if (!resp.getLogId().isEmpty()) {
            logId = resp.getLogId();
          }
          for (Decision d : resp.getDecisionsList()) {
            if (rev != 0 && d.getRevision() < rev) {
              continue; // never deliver a revision twice
            }
            try {
              handler.handle(d);
            } catch (Exception e) {
              checkpoint.save(d.getRevision());
              throw new HandlerException(d.getRevision(), e);
            }
            rev = d.getRevision() + 1;
          }
          rev = Math.max(rev, resp.getNextRevision());
          checkpoint.save(rev);
        }
        attempt = progressed ? 0 : attempt + 1; // the server closed the stream
      } catch (StatusRuntimeException e) {
        if (isStopped()) {
          return;
        }
        router.observe(ep, e);
        CompactedException ce = compacted(rev, e);
        if (ce != null) {
          if (opts.onCompacted == null) {
            throw ce;
          }
          try {
            rev = opts.onCompacted.recover(ce);
          } catch (Exception he) {
            throw new HandlerException(rev, he);
          }
          checkpoint.save(rev);
          attempt = 0;
          continue;
        }
        if (!Errors.retryable(e)) {
          throw e;
        }
        failure = e;
        attempt = progressed ? 0 : attempt + 1;
        atOnce = router.hop(e, hops);
        if (atOnce && attempt > 0) {
          attempt--; // another replica, at once: not a failure of its own
        }
      } finally {
        ctx.detach(prev);
        ctx.cancel(null); // ends the stream when a handler error leaves it
        stream = null;
      }
    }
  }

  /**
   * The CompactedException of a watch error: OUT_OF_RANGE with reason REVISION_COMPACTED, or
   * without an ErrorInfo (a berthd older than the reason); null for any other error,
   * REVISION_NOT_WRITTEN included.
   */
  static CompactedException compacted(long rev, StatusRuntimeException e) {
    if (e.getStatus().getCode() != Status.Code.OUT_OF_RANGE) {
      return null;
    }
    var info = Errors.errorInfo(e);
    if (info.isEmpty()) {
      return new CompactedException(rev, 0, e);
    }
    if (!Errors.REVISION_COMPACTED.equals(info.get().getReason())) {
      return null;
    }
    long oldest = 0;
    try {
      oldest = Long.parseLong(info.get().getMetadataOrDefault("oldest_revision", "0"));
    } catch (NumberFormatException ignored) {
      // a berthd that sent no number: the caller recovers without it
    }
    return new CompactedException(rev, oldest, e);
  }
}
