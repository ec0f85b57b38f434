package io.berthsched.berth.client;

import io.berthsched.berth.v1.ApplyRequest;
import io.berthsched.berth.v1.ApplyResponse;
import io.berthsched.berth.v1.BindOutcome;
import io.berthsched.berth.v1.Decision;
import io.berthsched.berth.v1.DeleteRequest;
import io.berthsched.berth.v1.DeleteResponse;
import io.berthsched.berth.v1.EvictPodRequest;
import io.berthsched.berth.v1.EvictPodResponse;
import io.berthsched.berth.v1.EvictionServiceGrpc;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectRef;
import io.berthsched.berth.v1.PodRef;
import io.berthsched.berth.v1.ReportBindResultRequest;
import io.berthsched.berth.v1.StateServiceGrpc;
import io.grpc.Channel;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import io.netty.handler.ssl.BerthJdkAlpn;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * A connection to berthd: unary calls, bind reports, and the factory of {@link Session}s and
 * {@link Watcher}s. The target is "host:port", or for the replicas of a highly available berthd
 * several of them with commas between ("a:7070,b:7070,c:7070").
 *
 * <p>With several replicas, calls go to one at a time, the first at start. A write refused by a
 * replica that is not the leader (UNAVAILABLE, ErrorInfo reason NOT_LEADER) moves the client to
 * the leader the replica names (connected to the first time, with the same credentials), or to
 * the next endpoint when it names none; a replica that cannot be reached moves it to the next
 * endpoint. Unary calls are retried there; a Session reconnects there and re-lists; a Watcher
 * resumes there from its revision with its log id. {@link #target()} says where calls go now.
 *
 * <p>Thread-safe; close it when done (it is {@link AutoCloseable}).
 */
public final class Client implements AutoCloseable {
  /** Mutations per request, far below berthd's default --max-batch-objects (10000). */
  public static final int DEFAULT_MAX_BATCH = 500;

  private final Router router;
  private final ClientInterceptor auth; // null without a token
  private final Backoff backoff;
  private final int maxBatch;
  private final Duration callTimeout; // null: none

  private Client(Builder b, Function<String, ManagedChannel> dial) {
    this.backoff = b.backoff;
    this.maxBatch = Math.max(b.maxBatch, 1);
    this.callTimeout = b.callTimeout;
    if (b.token != null && !b.token.isEmpty()) {
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + b.token);
      this.auth = MetadataUtils.newAttachHeadersInterceptor(md);
    } else {
      this.auth = null;
    }
    this.router = new Router(b.endpoints, dial, b.backoff, b.sleeper);
  }

  /** A builder of a client of the berthd (or replicas) at target: "host:port[,host:port...]". */
  public static Builder builder(String target) {
    return new Builder(Router.splitEndpoints(target));
  }

  /** A builder of a client of the replicas at these endpoints. */
  public static Builder builder(List<String> endpoints) {
    List<String> all = new ArrayList<>();
    endpoints.forEach(e -> all.addAll(Router.splitEndpoints(e)));
    return new Builder(all);
  }

  /** How a {@link Client} connects. */
  public static final class Builder {
    private final List<String> endpoints;
    private String token;
    private boolean tls;
    private byte[] rootCertificates;
    private byte[] certificateChain;
    private byte[] privateKey;
    private String authority;
    private Backoff backoff = Backoff.DEFAULT;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private Duration callTimeout;
    private Function<String, ManagedChannelBuilder<?>> channelBuilder;
    private Router.Sleeper sleeper = d -> TimeUnit.NANOSECONDS.sleep(d.toNanos());

    private Builder(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    /** Every call carries "authorization: Bearer token" (berthd's --token-file). */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** TLS with the JVM's default trust roots. */
    public Builder tls() {
      this.tls = true;
      return this;
    }

    /** TLS trusting these PEM certificates (berthd's --tls-cert or its CA). */
    public Builder rootCertificates(byte[] pem) {
      this.tls = true;
      this.rootCertificates = pem.clone();
      return this;
    }

    /**
     * The client certificate (PEM chain, PKCS#8 PEM key) berthd asks for when it runs with
     * --tls-client-ca (mutual TLS).
     */
    public Builder clientCertificate(byte[] chainPem, byte[] pkcs8KeyPem) {
      this.tls = true;
      this.certificateChain = chainPem.clone();
      this.privateKey = pkcs8KeyPem.clone();
      return this;
    }

    /** The name TLS checks berthd's certificate against, instead of the target's host. */
    public Builder authority(String authority) {
      this.authority = authority;
      return this;
    }

    /** The waits between reconnection attempts of sessions and watchers. */
    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    /** At most this many mutations per request of apply, delete and sessions. */
    public Builder maxBatch(int maxBatch) {
      this.maxBatch = maxBatch;
      return this;
    }

    /** A deadline for each unary call, every retry included (none by default). */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = timeout;
      return this;
    }

    /**
     * How to make the channel of an address, instead of Netty with the TLS settings above (an
     * in-process channel in tests, say). Leaders that replicas name are dialled the same way.
     */
    public Builder channelBuilder(Function<String, ManagedChannelBuilder<?>> channelBuilder) {
      this.channelBuilder = channelBuilder;
      return this;
    }

    Builder sleeper(Router.Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    /**
     * The client; it connects lazily, on the first call.
     *
     * @throws IllegalArgumentException no endpoint, or unreadable certificates
     */
    public Client build() {
      if ((certificateChain == null) != (privateKey == null)) {
        throw new IllegalArgumentException("berth: the certificate chain and the key go together");
      }
      SslContext ssl = tls && channelBuilder == null ? sslContext() : null;
      Function<String, ManagedChannel> dial = addr -> {
        ManagedChannelBuilder<?> cb;
        if (channelBuilder != null) {
          cb = channelBuilder.apply(addr);
        } else if (ssl != null) {
          cb = NettyChannelBuilder.forTarget(addr).sslContext(ssl);
        } else {
          cb = NettyChannelBuilder.forTarget(addr).usePlaintext();
        }
        if (authority != null) {
          cb.overrideAuthority(authority);
        }
        return cb.build();
      };
      return new Client(this, dial);
    }

    private SslContext sslContext() {
      try {
        // Trust and key material as gRPC's own helper sets them up, over the JDK's TLS.
        SslContextBuilder b = GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK);
        if (rootCertificates != null) {
          b.trustManager(new ByteArrayInputStream(rootCertificates));
        }
        if (certificateChain != null) {
          b.keyManager(new ByteArrayInputStream(certificateChain), new ByteArrayInputStream(privateKey));
        }
        try {
          return b.build();
        } catch (UnsupportedOperationException noAlpn) {
          // Debian's Netty has no JDK ALPN negotiator (see BerthJdkAlpn): the same material,
          // with ALPN assembled from the parts of Netty that are there.
          SslContext plain = b.applicationProtocolConfig(null).build();
          return BerthJdkAlpn.clientContext(((JdkSslContext) plain).context());
        }
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalArgumentException("berth: TLS settings: " + e.getMessage(), e);
      }
    }
  }

  /** The address calls go to now: the first endpoint, or the replica a redirect chose since. */
  public String target() {
    return router.target();
  }

  Router router() {
    return router;
  }

  Backoff backoff() {
    return backoff;
  }

  int maxBatch() {
    return maxBatch;
  }

  /** The channel with the client's token attached. */
  Channel authed(Channel ch) {
    return auth == null ? ch : ClientInterceptors.intercept(ch, auth);
  }

  /**
   * Runs a unary call through the router, with the token and the client's call timeout: {@code
   * client.call(ch -> AdminServiceGrpc.newBlockingStub(ch).explain(req))}. A NOT_LEADER refusal
   * sends it again to the leader; with several replicas an unreachable one, to the next.
   */
  public <T> T call(Function<Channel, T> call) {
    return router.unary((ch, several) -> call.apply(authed(ch)));
  }

  /** The client's call timeout from now, shared by every retry of one call; null for none. */
  private Deadline deadline() {
    return callTimeout == null ? null : Deadline.after(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static <S extends AbstractStub<S>> S withDeadline(S stub, Deadline d) {
    return d == null ? stub : stub.withDeadline(d);
  }

  /**
   * Upserts objects, maxBatch per request.
   *
   * @throws BatchException for the refused objects (the others took effect)
   * @throws RequestTooLargeException berthd refused a request as too large, the ones before it
   *     applied
   * @throws StatusRuntimeException a call that failed as a whole, the ones before it applied
   */
  public void apply(List<Object> objects) {
    chunked(objects.size(), false, (lo, hi) -> {
      Deadline d = deadline();
      ApplyResponse r = call(ch -> withDeadline(StateServiceGrpc.newBlockingStub(ch), d)
          .apply(ApplyRequest.newBuilder().addAllObjects(objects.subList(lo, hi)).build()));
      return new Answer(r.getApplied(), r.getErrorsList());
    });
  }

  public void apply(Object... objects) {
    apply(Arrays.asList(objects));
  }

  /**
   * Deletes objects, maxBatch per request; one Berth does not hold counts as deleted.
   *
   * @throws BatchException for the others Berth refused; as {@link #apply} for failed calls
   */
  public void delete(List<ObjectRef> refs) {
    chunked(refs.size(), true, (lo, hi) -> {
      Deadline d = deadline();
      DeleteResponse r = call(ch -> withDeadline(StateServiceGrpc.newBlockingStub(ch), d)
          .delete(DeleteRequest.newBuilder().addAllRefs(refs.subList(lo, hi)).build()));
      return new Answer(r.getDeleted(), r.getErrorsList());
    });
  }

  public void delete(ObjectRef... refs) {
    delete(Arrays.asList(refs));
  }

  private static final class Answer {
    final int ok;
    final List<io.berthsched.berth.v1.ObjectError> errors;

    Answer(int ok, List<io.berthsched.berth.v1.ObjectError> errors) {
      this.ok = ok;
      this.errors = errors;
    }
  }

  private interface Chunk {
    Answer send(int lo, int hi);
  }

  private void chunked(int n, boolean deletes, Chunk one) {
    int applied = 0;
    List<ObjectError> refused = new ArrayList<>();
    for (int lo = 0; lo < n; lo += maxBatch) {
      int hi = Math.min(lo + maxBatch, n);
      Answer a;
      try {
        a = one.send(lo, hi);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
          throw new RequestTooLargeException("berth: objects " + lo + ".." + (hi - 1)
              + " refused as too large (lower maxBatch): " + e.getStatus().getDescription(), e);
        }
        throw e;
      }
      applied += a.ok;
      for (io.berthsched.berth.v1.ObjectError oe : a.errors) {
        if (deletes && ObjectError.isNotFound(oe)) {
          applied++; // deleting what Berth does not hold is success
        } else {
          refused.add(ObjectError.of(lo + oe.getIndex(), oe));
        }
      }
    }
    if (!refused.isEmpty()) {
      throw new BatchException(applied, refused);
    }
  }

  /** Reports that the pod of a Bind decision runs on its node. */
  public void confirmBind(Decision d) {
    report(d, BindOutcome.BIND_OUTCOME_CONFIRMED, "");
  }

  /** Reports that a Bind could not be carried out; Berth requeues the pod with backoff. */
  public void failBind(Decision d, String reason) {
    report(d, BindOutcome.BIND_OUTCOME_FAILED, reason);
  }

  private void report(Decision d, BindOutcome outcome, String reason) {
    if (!d.hasBind()) {
      throw new IllegalArgumentException("berth: decision " + d.getRevision() + " is not a Bind");
    }
    ReportBindResultRequest req = ReportBindResultRequest.newBuilder().setPod(d.getPod())
        .setNode(d.getBind().getNode()).setRevision(d.getRevision()).setOutcome(outcome)
        .setReason(reason).build();
    Deadline dl = deadline();
    call(ch -> withDeadline(StateServiceGrpc.newBlockingStub(ch), dl).reportBindResult(req));
  }

  /** How {@link #evict} evicts. */
  public static final class EvictOptions {
    private boolean dryRun;
    private Long gracePeriodSeconds;

    /** Check the pod's budget only: nothing is evicted. */
    public EvictOptions dryRun(boolean dryRun) {
      this.dryRun = dryRun;
      return this;
    }

    /** The grace period the Evict decision carries (the pod's own when not set). */
    public EvictOptions gracePeriodSeconds(long seconds) {
      this.gracePeriodSeconds = seconds;
      return this;
    }
  }

  public static EvictOptions evictOptions() {
    return new EvictOptions();
  }

  /**
   * Evicts a pod through berthd's eviction API, disruption budgets enforced: an Evict decision
   * (cause API) follows on the watch.
   *
   * @throws BudgetRefusedException the pod's budget allows no disruption now
   * @throws StatusRuntimeException NOT_FOUND (no such pod), FAILED_PRECONDITION, ...
   */
  public EvictPodResponse evict(String namespace, String name, EvictOptions opts) {
    EvictPodRequest.Builder req = EvictPodRequest.newBuilder()
        .setPod(PodRef.newBuilder().setNamespace(namespace).setName(name)).setDryRun(opts.dryRun);
    if (opts.gracePeriodSeconds != null) {
      req.setGracePeriodSeconds(opts.gracePeriodSeconds);
    }
    Deadline dl = deadline();
    try {
      return call(ch -> withDeadline(EvictionServiceGrpc.newBlockingStub(ch), dl).evictPod(req.build()));
    } catch (StatusRuntimeException e) {
      throw Errors.budgetRefused(e).map(RuntimeException.class::cast).orElse(e);
    }
  }

  /** A Sync session re-listing what lister returns; start it with {@link Session#start()}. */
  public Session newSession(Session.Lister lister, Session.Options options) {
    return new Session(this, lister, options);
  }

  public Session newSession(Session.Lister lister) {
    return newSession(lister, Session.options());
  }

  /** A resuming decision watcher; run it with {@link Watcher#run()}. */
  public Watcher newWatcher(Checkpoint checkpoint, Watcher.Handler handler, Watcher.Options options) {
    return new Watcher(this, checkpoint, handler, options);
  }

  @Override
  public void close() {
    router.close();
  }
}
