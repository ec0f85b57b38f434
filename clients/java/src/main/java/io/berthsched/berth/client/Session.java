package io.berthsched.berth.client;

import io.berthsched.berth.v1.Mutation;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import io.berthsched.berth.v1.ObjectRef;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Keeps one Sync stream open in a background thread.
 *
 * <p>Each time it connects it re-lists everything the lister returns between resync markers, so
 * Berth drops what the orchestrator no longer holds, then sends {@link #upsert}/{@link #delete}
 * calls, several per request when they queue up, and a call of more than maxBatch mutations over
 * several requests (Berth may then apply part of it before the rest). Calls block until Berth
 * acknowledges them and throw {@link BatchException} for refused objects, {@link
 * RequestTooLargeException} when berthd refused the request as too large (not retried), {@link
 * SessionClosedException} when the session stops first.
 *
 * <p>The re-list is the truth. Upserts and deletes of a re-listed kind still waiting when the
 * lister is called (never sent, or sent on a stream that broke before their acknowledgement) are
 * not sent: the re-list supersedes them. They are answered once the re-list is acknowledged, with
 * Berth's refusal of the re-listed object of the same identity if any, else success. Sending them
 * after the re-list could undo newer state (a pod the re-list sent with node_name set, replaced
 * by an older pending copy, is scheduled again); sending them before would show the scheduler
 * stale state. So the orchestrator updates what the lister returns before calling upsert/delete
 * for the same change. Calls made after the lister was called are sent after the re-list, in
 * order. Mutations of kinds not in resyncKinds are never superseded: they are sent again.
 *
 * <p>resyncKinds scopes the re-list; none (the default) re-lists every kind: Berth then deletes
 * every object, of every kind, this session did not re-send, other orchestrators' included.
 */
public final class Session implements AutoCloseable {
  /** What the orchestrator holds: re-listed on every (re)connect. */
  public interface Lister {
    List<Object> list() throws Exception;
  }

  /** How a session re-lists. */
  public static final class Options {
    private final List<ObjectKind> resyncKinds = new ArrayList<>();
    private int maxBatch;
    private Consumer<ResyncResult> onResync;

    /** Re-list only these kinds (all kinds when none). */
    public Options resyncKinds(ObjectKind... kinds) {
      resyncKinds.addAll(Arrays.asList(kinds));
      return this;
    }

    /** Mutations per request (the client's maxBatch when 0). */
    public Options maxBatch(int n) {
      this.maxBatch = n;
      return this;
    }

    /** Called when a re-list was acknowledged, on a gRPC thread: it must not wait for the session. */
    public Options onResync(Consumer<ResyncResult> f) {
      this.onResync = f;
      return this;
    }
  }

  public static Options options() {
    return new Options();
  }

  /** What one re-list did: objects sent, deleted by Berth as not re-sent, refused. */
  public static final class ResyncResult {
    private final int sent;
    private final int deleted;
    private final List<ObjectError> errors;

    ResyncResult(int sent, int deleted, List<ObjectError> errors) {
      this.sent = sent;
      this.deleted = deleted;
      this.errors = List.copyOf(errors);
    }

    public int sent() {
      return sent;
    }

    public int deleted() {
      return deleted;
    }

    /** The refused objects, by index in the lister's list. */
    public List<ObjectError> errors() {
      return errors;
    }
  }

  /**
   * One upsert or delete call waiting for its answer. Guarded by the session's lock; its future
   * is completed after the lock is released, on the common pool ({@link #completeSettled}).
   */
  static final class Call {
    final List<Mutation> mutations;
    List<Integer> todo = new ArrayList<>(); // indexes neither sent nor superseded
    int pending; // indexes not yet answered
    int applied;
    final List<ObjectError> errors = new ArrayList<>();
    boolean finished;
    Throwable result; // set when finished: null for success
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final List<Call> settled; // the session's, where a finished call waits for completion

    Call(List<Mutation> mutations, List<Call> settled) {
      this.mutations = mutations;
      this.settled = settled;
      for (int i = 0; i < mutations.size(); i++) {
        todo.add(i);
      }
      this.pending = mutations.size();
    }

    void answer(int n, int ok, List<ObjectError> errs) {
      if (finished) {
        return;
      }
      pending -= n;
      applied += ok;
      errors.addAll(errs);
      if (pending <= 0) {
        errors.sort(Comparator.comparingInt(ObjectError::index));
        finish(errors.isEmpty() ? null : new BatchException(applied, errors));
      }
    }

    void finish(Throwable error) {
      if (finished) {
        return;
      }
      finished = true;
      result = error;
      todo = new ArrayList<>();
      settled.add(this);
    }
  }

  /** Some of one call's mutations, sent together in one request or superseded together. */
  static final class Segment {
    final Call call;
    final List<Integer> idx;

    Segment(Call call, List<Integer> idx) {
      this.call = call;
      this.idx = idx;
    }
  }

  /**
   * One request sent and not yet acknowledged: a re-list request (segs null, offset into the
   * lister's objects; end when it carries RESYNC_END) or one of calls.
   */
  static final class Batch {
    final long id;
    final int size;
    final List<Segment> segs;
    final int offset;
    final boolean end;

    Batch(long id, int size, List<Segment> segs, int offset, boolean end) {
      this.id = id;
      this.size = size;
      this.segs = segs;
      this.offset = offset;
      this.end = end;
    }
  }

  private final Client client;
  private final Lister lister;
  private final List<ObjectKind> kinds;
  private final int maxBatch;
  private final Consumer<ResyncResult> onResync;

  // Lock order: lock, then nothing: callbacks (futures, onResync) run outside it where they can.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private Deque<Call> queue = new ArrayDeque<>(); // calls with todo, in call order
  private final List<Call> settled = new ArrayList<>(); // finished, future not yet completed
  private boolean closed;
  private boolean resynced; // whether the current stream completed its re-list
  private SyncStream stream; // the open one, for close()
  private long batchId;
  private Throwable error; // why the session stopped, if not close()
  private Thread thread;

  Session(Client client, Lister lister, Options opts) {
    this.client = client;
    this.lister = lister;
    this.kinds = List.copyOf(opts.resyncKinds);
    this.maxBatch = Math.max(opts.maxBatch > 0 ? opts.maxBatch : client.maxBatch(), 1);
    this.onResync = opts.onResync;
  }

  /** Starts the session's thread (a daemon named berth-sync). */
  public Session start() {
    lock.lock();
    try {
      if (thread != null) {
        throw new IllegalStateException("berth: session already started");
      }
      thread = new Thread(this::runLoop, "berth-sync");
      thread.setDaemon(true);
      thread.start();
    } finally {
      lock.unlock();
    }
    return this;
  }

  /** Whether the session stopped: {@link #close}, or a failure not retried ({@link #error}). */
  public boolean stopped() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Why the session stopped (a refused stream, a re-list too large), or the lister's last error. */
  public Throwable error() {
    lock.lock();
    try {
      return error;
    } finally {
      lock.unlock();
    }
  }

  /** Stops the session; calls still waiting fail with {@link SessionClosedException}. */
  @Override
  public void close() {
    Thread t;
    SyncStream s;
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
      s = stream;
      t = thread;
    } finally {
      lock.unlock();
    }
    if (s != null) {
      s.cancel();
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    finishQueued();
  }

  /** Creates or replaces objects and waits for Berth's acknowledgement. */
  public void upsert(Object... objects) {
    upsert(Arrays.asList(objects));
  }

  public void upsert(List<Object> objects) {
    await(upsertAsync(objects), null);
  }

  /** As {@link #upsert}, waiting at most timeout (the objects may still be sent after it). */
  public void upsert(Duration timeout, List<Object> objects) {
    await(upsertAsync(objects), timeout);
  }

  /**
   * Queues the upserts; the future completes, on the common pool, when Berth acknowledged them
   * (what is chained to it may block, call the session again, and so on).
   */
  public CompletableFuture<Void> upsertAsync(List<Object> objects) {
    List<Mutation> ms = new ArrayList<>();
    objects.forEach(o -> ms.add(Mutation.newBuilder().setUpsert(o).build()));
    return submit(ms);
  }

  /** Removes objects; one Berth does not hold counts as deleted. */
  public void delete(ObjectRef... refs) {
    delete(Arrays.asList(refs));
  }

  public void delete(List<ObjectRef> refs) {
    await(deleteAsync(refs), null);
  }

  public CompletableFuture<Void> deleteAsync(List<ObjectRef> refs) {
    List<Mutation> ms = new ArrayList<>();
    refs.forEach(r -> ms.add(Mutation.newBuilder().setDelete(r).build()));
    return submit(ms);
  }

  private CompletableFuture<Void> submit(List<Mutation> mutations) {
    if (mutations.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    lock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(new SessionClosedException("berth: session closed", error));
      }
      Call c = new Call(mutations, settled);
      queue.add(c);
      changed.signalAll();
      return c.done;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Completes the futures of the calls that finished; called without the lock held. They are
   * completed on the common pool, not on the caller's thread: that is a gRPC callback, and what a
   * caller chains to a future may block, say on another upsert whose acknowledgement can arrive
   * only once that callback returned (gRPC delivers one call's messages one at a time).
   */
  void completeSettled() {
    List<Call> done;
    lock.lock();
    try {
      if (settled.isEmpty()) {
        return;
      }
      done = new ArrayList<>(settled);
      settled.clear();
    } finally {
      lock.unlock();
    }
    for (Call c : done) {
      ForkJoinPool.commonPool().execute(() -> {
        if (c.result == null) {
          c.done.complete(null);
        } else {
          c.done.completeExceptionally(c.result);
        }
      });
    }
  }

  private static void await(CompletableFuture<Void> f, Duration timeout) {
    try {
      if (timeout == null) {
        f.get();
      } else {
        f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new BerthException("berth: " + c, c);
    } catch (TimeoutException e) {
      throw new BerthException("berth: no acknowledgement within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BerthException("berth: interrupted waiting for an acknowledgement", e);
    }
  }

  private void runLoop() {
    Router router = client.router();
    int attempt = 0;
    int[] hops = {0};
    boolean atOnce = false; // the router moved past a replica that is down: no wait
    Throwable failure = null; // the previous stream's
    try {
      while (!stopped()) {
        if (attempt > 0 && !atOnce && waitClosed(router.retryDelay(failure, attempt))) {
          break;
        }
        failure = null;
        try {
          connect();
        } catch (RequestTooLargeException e) {
          setError(e);
          break;
        } catch (StatusRuntimeException e) {
          if (stopped()) {
            break;
          }
          if (!Errors.retryable(e)) {
            setError(e);
            break;
          }
          failure = e;
        } catch (Exception e) { // the lister failed, or a broken acknowledgement: retry
          if (stopped()) {
            break;
          }
          setError(e);
        }
        attempt = resynced() ? 0 : attempt + 1;
        atOnce = router.hop(failure, hops);
        if (atOnce && attempt > 0) {
          attempt--; // another replica, at once: not a failure of its own
        }
      }
    } finally {
      lock.lock();
      try {
        closed = true;
      } finally {
        lock.unlock();
      }
      finishQueued();
    }
  }

  private void finishQueued() {
    List<Call> pending;
    Throwable why;
    lock.lock();
    try {
      pending = new ArrayList<>(queue);
      queue = new ArrayDeque<>();
      why = error;
      for (Call c : pending) {
        c.finish(new SessionClosedException(
            why == null ? "berth: session closed" : "berth: session stopped: " + why, why));
      }
    } finally {
      lock.unlock();
    }
    completeSettled();
  }

  private void setError(Throwable e) {
    lock.lock();
    try {
      error = e;
    } finally {
      lock.unlock();
    }
  }

  private boolean resynced() {
    lock.lock();
    try {
      return resynced;
    } finally {
      lock.unlock();
    }
  }

  /** Waits d, or until close(); true when closed (or the thread was interrupted). */
  private boolean waitClosed(Duration d) {
    long left = d.toNanos();
    lock.lock();
    try {
      while (!closed && left > 0) {
        left = changed.awaitNanos(left);
      }
      return closed;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    } finally {
      lock.unlock();
    }
  }

  private boolean relisted(ObjectKind kind) {
    return kinds.isEmpty() || kinds.contains(kind);
  }

  /**
   * Removes from the queue, before the lister is called, the mutations the re-list supersedes
   * (those of re-listed kinds), and returns them. Under lock.
   */
  List<Segment> supersedeLocked() {
    List<Segment> out = new ArrayList<>();
    Deque<Call> keep = new ArrayDeque<>();
    for (Call c : queue) {
      List<Integer> sup = new ArrayList<>();
      List<Integer> rest = new ArrayList<>();
      for (int i : c.todo) {
        (relisted(Identity.kindOf(c.mutations.get(i))) ? sup : rest).add(i);
      }
      c.todo = rest;
      if (!sup.isEmpty()) {
        out.add(new Segment(c, sup));
      }
      if (!rest.isEmpty()) {
        keep.add(c);
      }
    }
    queue = keep;
    return out;
  }

  /** Puts segments back at the head of the queue, in order. Under lock. */
  void requeueLocked(List<Segment> segs) {
    List<Call> head = new ArrayList<>();
    for (Segment s : segs) {
      if (s.call.finished) {
        continue;
      }
      List<Integer> todo = new ArrayList<>(s.call.todo);
      todo.addAll(s.idx);
      Collections.sort(todo);
      s.call.todo = todo;
      if (!head.contains(s.call)) {
        head.add(s.call);
      }
    }
    Deque<Call> q = new ArrayDeque<>(head);
    for (Call c : queue) {
      if (!head.contains(c)) {
        q.add(c);
      }
    }
    queue = q;
  }

  /** The mutations of the next request: up to maxBatch, from as many calls as fit. Under lock. */
  List<Segment> takeLocked() {
    List<Segment> segs = new ArrayList<>();
    int room = maxBatch;
    while (room > 0 && !queue.isEmpty()) {
      Call c = queue.peekFirst();
      int n = Math.min(c.todo.size(), room);
      if (n > 0) {
        segs.add(new Segment(c, new ArrayList<>(c.todo.subList(0, n))));
        c.todo = new ArrayList<>(c.todo.subList(n, c.todo.size()));
        room -= n;
      }
      if (c.todo.isEmpty()) {
        queue.pollFirst();
      }
    }
    return segs;
  }

  long nextBatchIdLocked() {
    return ++batchId;
  }

  /**
   * Runs one stream: supersede, re-list, then the queue, until the stream ends. What was
   * neither answered nor superseded goes back to the head of the queue.
   */
  private void connect() throws Exception {
    List<Segment> superseded;
    lock.lock();
    try {
      resynced = false;
      superseded = supersedeLocked();
    } finally {
      lock.unlock();
    }
    SyncStream s = null;
    try {
      List<Object> objects = List.copyOf(lister.list());
      s = new SyncStream(this, client, objects, superseded, onResync);
      lock.lock();
      try {
        if (closed) {
          return;
        }
        stream = s;
      } finally {
        lock.unlock();
      }
      s.run();
    } finally {
      lock.lock();
      try {
        if (!resynced) {
          requeueLocked(superseded);
        }
        if (s != null) {
          requeueLocked(s.unansweredLocked());
        }
        stream = null;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      if (s != null) {
        s.cancel();
      }
    }
  }

  // For SyncStream, which shares the session's lock and state.

  ReentrantLock lock() {
    return lock;
  }

  Condition changed() {
    return changed;
  }

  boolean closedLocked() {
    return closed;
  }

  boolean queueEmptyLocked() {
    return queue.isEmpty();
  }

  List<ObjectKind> kinds() {
    return kinds;
  }

  int maxBatch() {
    return maxBatch;
  }

  void markResyncedLocked() {
    resynced = true;
    error = null;
  }
}
