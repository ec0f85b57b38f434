package io.berthsched.berth.client;

import io.berthsched.berth.v1.Mutation;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.Resync;
import io.berthsched.berth.v1.StateServiceGrpc;
import io.berthsched.berth.v1.SyncRequest;
import io.berthsched.berth.v1.SyncResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One Sync stream of a {@link Session}: the re-list, then the session's queue, each request
 * answered in order by one acknowledgement. It shares the session's lock: the queue, the calls
 * and this stream's in-flight batches are guarded by it.
 */
final class SyncStream {
  private final Session session;
  private final Client client;
  private final List<Object> objects; // the lister's, this stream's re-list
  private final List<Session.Segment> superseded;
  private final Consumer<Session.ResyncResult> onResync;

  // Guarded by the session's lock.
  private final Deque<Session.Batch> inflight = new ArrayDeque<>();
  private boolean ended;
  private Throwable endError; // null: the server ended the stream with OK

  // Touched by the gRPC callback thread only (acknowledgements arrive one at a time).
  private final Map<Identity, io.berthsched.berth.v1.ObjectError> relistErrors = new HashMap<>();
  private final List<ObjectError> resyncErrors = new ArrayList<>();

  private final java.lang.Object sendLock = new java.lang.Object(); // guards requests, cancelled
  private ClientCallStreamObserver<SyncRequest> requests;
  private boolean cancelled;

  SyncStream(Session session, Client client, List<Object> objects,
      List<Session.Segment> superseded, Consumer<Session.ResyncResult> onResync) {
    this.session = session;
    this.client = client;
    this.objects = objects;
    this.superseded = superseded;
    this.onResync = onResync;
  }

  /** Runs the stream until it ends or the session closes; throws why it ended. */
  void run() throws Exception {
    Router router = client.router();
    Router.Endpoint ep = router.current();
    StateServiceGrpc.StateServiceStub stub = StateServiceGrpc.newStub(client.authed(ep.channel));
    if (!router.several()) {
      stub = stub.withWaitForReady(); // one berthd: wait for it to come back
    }
    synchronized (sendLock) {
      if (cancelled) {
        return;
      }
      requests = (ClientCallStreamObserver<SyncRequest>) stub.sync(new Acks());
    }
    int step = session.maxBatch();
    for (int off = 0; off < Math.max(objects.size(), 1); off += step) {
      SyncRequest.Builder req = SyncRequest.newBuilder();
      for (Object o : objects.subList(off, Math.min(off + step, objects.size()))) {
        req.addMutations(Mutation.newBuilder().setUpsert(o));
      }
      if (off == 0) {
        req.setResync(Resync.RESYNC_BEGIN).addAllResyncKinds(session.kinds());
      }
      if (!send(req, new Session.Batch(0, req.getMutationsCount(), null, off, false))) {
        ended();
        return;
      }
    }
    if (!send(SyncRequest.newBuilder().setResync(Resync.RESYNC_END),
        new Session.Batch(0, 0, null, 0, true))) {
      ended();
      return;
    }
    while (true) {
      List<Session.Segment> segs;
      session.lock().lock();
      try {
        while (session.queueEmptyLocked() && !ended && !session.closedLocked()) {
          session.changed().await();
        }
        if (ended || session.closedLocked()) {
          break;
        }
        segs = session.takeLocked();
      } finally {
        session.lock().unlock();
      }
      if (segs.isEmpty()) {
        continue;
      }
      SyncRequest.Builder req = SyncRequest.newBuilder();
      int n = 0;
      for (Session.Segment s : segs) {
        for (int i : s.idx) {
          req.addMutations(s.call.mutations.get(i));
          n++;
        }
      }
      if (!send(req, new Session.Batch(0, n, segs, 0, false))) {
        break;
      }
    }
    ended();
  }

  /**
   * Sends a request, recording it as in flight first (its acknowledgement may come at once).
   * False when the stream ended or the session closed: the batch then stays in flight, to be
   * requeued.
   */
  private boolean send(SyncRequest.Builder req, Session.Batch proto) {
    Session.Batch b;
    session.lock().lock();
    try {
      if (ended || session.closedLocked()) {
        if (proto.segs != null) {
          inflight.add(proto); // requeued by the session
        }
        return false;
      }
      long id = session.nextBatchIdLocked();
      b = new Session.Batch(id, proto.size, proto.segs, proto.offset, proto.end);
      req.setBatchId(id);
      inflight.add(b);
    } finally {
      session.lock().unlock();
    }
    synchronized (sendLock) {
      if (cancelled) {
        return false;
      }
      requests.onNext(req.build());
    }
    return true;
  }

  /** After the loop: nothing when the session closed or the server ended the stream with OK. */
  private void ended() throws Exception {
    Throwable err;
    session.lock().lock();
    try {
      if (!ended) {
        return; // the session closed
      }
      err = endError;
    } finally {
      session.lock().unlock();
    }
    if (err == null) {
      return;
    }
    client.router().observe(client.router().current(), err);
    if (err instanceof StatusRuntimeException
        && ((StatusRuntimeException) err).getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      String why = ((StatusRuntimeException) err).getStatus().getDescription();
      session.lock().lock();
      try {
        Session.Batch b = inflight.peekFirst();
        if (b != null && b.segs == null) {
          throw new RequestTooLargeException("berth: a re-list request of " + b.size
              + " objects was refused as too large (lower maxBatch): " + why, err);
        }
        if (b != null) {
          inflight.pollFirst();
          RequestTooLargeException tooLarge = new RequestTooLargeException("berth: a request of "
              + b.size + " mutations carrying this call was refused as too large (lower maxBatch): "
              + why, err);
          for (Session.Segment s : b.segs) {
            s.call.finish(tooLarge);
          }
          return; // reconnect: the calls concerned were answered
        }
      } finally {
        session.lock().unlock();
        session.completeSettled();
      }
    }
    if (err instanceof Exception) {
      throw (Exception) err;
    }
    throw new BerthException("berth: sync stream: " + err, err);
  }

  /** The calls' segments sent and not acknowledged; clears the in-flight list. Under lock. */
  List<Session.Segment> unansweredLocked() {
    List<Session.Segment> out = new ArrayList<>();
    for (Session.Batch b : inflight) {
      if (b.segs != null) {
        out.addAll(b.segs);
      }
    }
    inflight.clear();
    return out;
  }

  /** Ends the gRPC call, if it is still open. */
  void cancel() {
    synchronized (sendLock) {
      if (!cancelled && requests != null) {
        requests.cancel("berth: session stream closed", null);
      }
      cancelled = true;
    }
  }

  private void end(Throwable err) {
    session.lock().lock();
    try {
      if (!ended) {
        ended = true;
        endError = err;
      }
      session.changed().signalAll();
    } finally {
      session.lock().unlock();
    }
  }

  /** The acknowledgements, on a gRPC thread. */
  private final class Acks implements StreamObserver<SyncResponse> {
    @Override
    public void onNext(SyncResponse resp) {
      Session.ResyncResult result = null;
      session.lock().lock();
      try {
        Session.Batch b = inflight.pollFirst();
        if (b == null || b.id != resp.getBatchId()) {
          ended = true;
          endError = new BerthException("berth: acknowledgement of batch " + resp.getBatchId()
              + " does not match a request");
          session.changed().signalAll();
        } else if (b.segs != null) {
          answerLocked(b, resp);
        } else {
          for (io.berthsched.berth.v1.ObjectError e : resp.getErrorsList()) {
            int i = b.offset + e.getIndex();
            if (i >= 0 && i < objects.size()) {
              relistErrors.put(Identity.of(objects.get(i)), e);
            }
            resyncErrors.add(ObjectError.of(i, e));
          }
          if (b.end) {
            session.markResyncedLocked();
            answerSupersededLocked();
            result = new Session.ResyncResult(objects.size(), resp.getResyncDeleted(), resyncErrors);
          }
        }
      } finally {
        session.lock().unlock();
      }
      session.completeSettled();
      if (endErrorIsMismatch()) {
        cancel();
      }
      if (result != null && onResync != null) {
        onResync.accept(result);
      }
    }

    @Override
    public void onError(Throwable t) {
      end(t);
    }

    @Override
    public void onCompleted() {
      end(null);
    }
  }

  private boolean endErrorIsMismatch() {
    session.lock().lock();
    try {
      return ended && endError instanceof BerthException;
    } finally {
      session.lock().unlock();
    }
  }

  /**
   * Answers the calls the re-list superseded: with Berth's refusal of the re-listed object of
   * the same identity, if any, else success. Under lock.
   */
  private void answerSupersededLocked() {
    for (Session.Segment s : superseded) {
      List<ObjectError> errs = new ArrayList<>();
      for (int i : s.idx) {
        Mutation m = s.call.mutations.get(i);
        if (m.hasUpsert()) {
          io.berthsched.berth.v1.ObjectError e = relistErrors.get(Identity.of(m.getUpsert()));
          if (e != null) {
            errs.add(ObjectError.of(i, e));
          }
        }
      }
      s.call.answer(s.idx.size(), s.idx.size() - errs.size(), errs);
    }
  }

  /** Answers the calls of an acknowledged request. Under lock. */
  private static void answerLocked(Session.Batch b, SyncResponse resp) {
    Map<Integer, io.berthsched.berth.v1.ObjectError> byIndex = new HashMap<>();
    resp.getErrorsList().forEach(e -> byIndex.put(e.getIndex(), e));
    int pos = 0;
    for (Session.Segment s : b.segs) {
      List<ObjectError> errs = new ArrayList<>();
      int applied = 0;
      for (int j = 0; j < s.idx.size(); j++) {
        int i = s.idx.get(j);
        io.berthsched.berth.v1.ObjectError e = byIndex.get(pos + j);
        if (e == null || (ObjectError.isNotFound(e) && s.call.mutations.get(i).hasDelete())) {
          applied++; // deleting what Berth does not hold is success
        } else {
          errs.add(ObjectError.of(i, e));
        }
      }
      s.call.answer(s.idx.size(), applied, errs);
      pos += s.idx.size();
    }
  }
}
