package io.berthsched.berth.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * DecisionService streams the scheduler's decisions to the orchestrator.
 * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
 * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
 * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
 * DecisionService accepts read-only tokens.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: berth/v1/decision_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class DecisionServiceGrpc {

  private DecisionServiceGrpc() {}

  public static final String SERVICE_NAME = "berth.v1.DecisionService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.WatchRequest,
      io.berthsched.berth.v1.WatchResponse> getWatchMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Watch",
      requestType = io.berthsched.berth.v1.WatchRequest.class,
      responseType = io.berthsched.berth.v1.WatchResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.WatchRequest,
      io.berthsched.berth.v1.WatchResponse> getWatchMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.WatchRequest, io.berthsched.berth.v1.WatchResponse> getWatchMethod;
    if ((getWatchMethod = DecisionServiceGrpc.getWatchMethod) == null) {
      synchronized (DecisionServiceGrpc.class) {
        if ((getWatchMethod = DecisionServiceGrpc.getWatchMethod) == null) {
          DecisionServiceGrpc.getWatchMethod = getWatchMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.WatchRequest, io.berthsched.berth.v1.WatchResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Watch"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.WatchRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.WatchResponse.getDefaultInstance()))
              .setSchemaDescriptor(new DecisionServiceMethodDescriptorSupplier("Watch"))
              .build();
        }
      }
    }
    return getWatchMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static DecisionServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionServiceStub>() {
        @java.lang.Override
        public DecisionServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionServiceStub(channel, callOptions);
        }
      };
    return DecisionServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static DecisionServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionServiceBlockingStub>() {
        @java.lang.Override
        public DecisionServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionServiceBlockingStub(channel, callOptions);
        }
      };
    return DecisionServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static DecisionServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<DecisionServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<DecisionServiceFutureStub>() {
        @java.lang.Override
        public DecisionServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new DecisionServiceFutureStub(channel, callOptions);
        }
      };
    return DecisionServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * DecisionService streams the scheduler's decisions to the orchestrator.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * DecisionService accepts read-only tokens.
   * </pre>
   */
  public static abstract class DecisionServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Watch streams decisions in revision order: first those already in the
     * log from from_revision on, then new ones as they are made. A watcher that
     * reconnects with WatchResponse.next_revision misses nothing. Several
     * watchers may watch at once; a slow watcher falls behind without slowing
     * the scheduler and catches up from the log.
     * Berth keeps a bounded window of the log. When from_revision (or the
     * position of a watcher that fell too far behind) is older than the
     * oldest revision kept, the stream ends with OUT_OF_RANGE; its status
     * details carry a google.rpc.ErrorInfo with reason "REVISION_COMPACTED",
     * domain "berth.v1" and metadata "oldest_revision" (decimal). The decisions
     * in between are lost to that watcher: it should watch again (from 0 or
     * from oldest_revision) and find binds still waiting for an outcome with
     * AdminService.ListPending, state QUEUE_STATE_BINDING. Evictions it missed
     * are decided again when their preemptor is retried.
     * Every log has an identity, log_id, created with berthd's data
     * directory and sent in every WatchResponse. Revisions mean something
     * only within one log: a watcher that resumes should send the log_id it
     * watched before, so that resuming against another log (a new data
     * directory, another berthd) fails instead of silently skipping or
     * repeating decisions.
     * Each response is at most about 1 MiB encoded (fewer decisions per
     * response rather than a larger one), so clients with gRPC's default
     * 4 MiB receive limit always get them; a single decision larger than that
     * is sent alone.
     * Fails with:
     *   - INVALID_ARGUMENT: types holds DECISION_TYPE_UNSPECIFIED or an
     *     unknown value;
     *   - OUT_OF_RANGE: from_revision was compacted away, as above; or
     *     from_revision is beyond the end of the log (greater than the newest
     *     revision plus one): no response of this log ever told the caller to
     *     resume there, so it watched another log. The ErrorInfo then has
     *     reason "REVISION_NOT_WRITTEN", domain "berth.v1" and metadata
     *     "next_revision" (decimal, the newest revision plus one) and
     *     "log_id". Resync and watch again from 0;
     *   - FAILED_PRECONDITION: log_id is set and is not this log's; the
     *     ErrorInfo has reason "LOG_ID_MISMATCH" and metadata "log_id" (this
     *     log's). Resync and watch again from 0;
     *   - UNAVAILABLE: the server is shutting down; reconnect.
     * Every OUT_OF_RANGE ErrorInfo also carries "log_id".
     * </pre>
     */
    public void watch(io.berthsched.berth.v1.WatchRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.WatchResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getWatchMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                io.berthsched.berth.v1.WatchRequest,
                io.berthsched.berth.v1.WatchResponse>(
                  this, METHODID_WATCH)))
          .build();
    }
  }

  /**
   * <pre>
   * DecisionService streams the scheduler's decisions to the orchestrator.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * DecisionService accepts read-only tokens.
   * </pre>
   */
  public static final class DecisionServiceStub extends io.grpc.stub.AbstractAsyncStub<DecisionServiceStub> {
    private DecisionServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Watch streams decisions in revision order: first those already in the
     * log from from_revision on, then new ones as they are made. A watcher that
     * reconnects with WatchResponse.next_revision misses nothing. Several
     * watchers may watch at once; a slow watcher falls behind without slowing
     * the scheduler and catches up from the log.
     * Berth keeps a bounded window of the log. When from_revision (or the
     * position of a watcher that fell too far behind) is older than the
     * oldest revision kept, the stream ends with OUT_OF_RANGE; its status
     * details carry a google.rpc.ErrorInfo with reason "REVISION_COMPACTED",
     * domain "berth.v1" and metadata "oldest_revision" (decimal). The decisions
     * in between are lost to that watcher: it should watch again (from 0 or
     * from oldest_revision) and find binds still waiting for an outcome with
     * AdminService.ListPending, state QUEUE_STATE_BINDING. Evictions it missed
     * are decided again when their preemptor is retried.
     * Every log has an identity, log_id, created with berthd's data
     * directory and sent in every WatchResponse. Revisions mean something
     * only within one log: a watcher that resumes should send the log_id it
     * watched before, so that resuming against another log (a new data
     * directory, another berthd) fails instead of silently skipping or
     * repeating decisions.
     * Each response is at most about 1 MiB encoded (fewer decisions per
     * response rather than a larger one), so clients with gRPC's default
     * 4 MiB receive limit always get them; a single decision larger than that
     * is sent alone.
     * Fails with:
     *   - INVALID_ARGUMENT: types holds DECISION_TYPE_UNSPECIFIED or an
     *     unknown value;
     *   - OUT_OF_RANGE: from_revision was compacted away, as above; or
     *     from_revision is beyond the end of the log (greater than the newest
     *     revision plus one): no response of this log ever told the caller to
     *     resume there, so it watched another log. The ErrorInfo then has
     *     reason "REVISION_NOT_WRITTEN", domain "berth.v1" and metadata
     *     "next_revision" (decimal, the newest revision plus one) and
     *     "log_id". Resync and watch again from 0;
     *   - FAILED_PRECONDITION: log_id is set and is not this log's; the
     *     ErrorInfo has reason "LOG_ID_MISMATCH" and metadata "log_id" (this
     *     log's). Resync and watch again from 0;
     *   - UNAVAILABLE: the server is shutting down; reconnect.
     * Every OUT_OF_RANGE ErrorInfo also carries "log_id".
     * </pre>
     */
    public void watch(io.berthsched.berth.v1.WatchRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.WatchResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * DecisionService streams the scheduler's decisions to the orchestrator.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * DecisionService accepts read-only tokens.
   * </pre>
   */
  public static final class DecisionServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<DecisionServiceBlockingStub> {
    private DecisionServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Watch streams decisions in revision order: first those already in the
     * log from from_revision on, then new ones as they are made. A watcher that
     * reconnects with WatchResponse.next_revision misses nothing. Several
     * watchers may watch at once; a slow watcher falls behind without slowing
     * the scheduler and catches up from the log.
     * Berth keeps a bounded window of the log. When from_revision (or the
     * position of a watcher that fell too far behind) is older than the
     * oldest revision kept, the stream ends with OUT_OF_RANGE; its status
     * details carry a google.rpc.ErrorInfo with reason "REVISION_COMPACTED",
     * domain "berth.v1" and metadata "oldest_revision" (decimal). The decisions
     * in between are lost to that watcher: it should watch again (from 0 or
     * from oldest_revision) and find binds still waiting for an outcome with
     * AdminService.ListPending, state QUEUE_STATE_BINDING. Evictions it missed
     * are decided again when their preemptor is retried.
     * Every log has an identity, log_id, created with berthd's data
     * directory and sent in every WatchResponse. Revisions mean something
     * only within one log: a watcher that resumes should send the log_id it
     * watched before, so that resuming against another log (a new data
     * directory, another berthd) fails instead of silently skipping or
     * repeating decisions.
     * Each response is at most about 1 MiB encoded (fewer decisions per
     * response rather than a larger one), so clients with gRPC's default
     * 4 MiB receive limit always get them; a single decision larger than that
     * is sent alone.
     * Fails with:
     *   - INVALID_ARGUMENT: types holds DECISION_TYPE_UNSPECIFIED or an
     *     unknown value;
     *   - OUT_OF_RANGE: from_revision was compacted away, as above; or
     *     from_revision is beyond the end of the log (greater than the newest
     *     revision plus one): no response of this log ever told the caller to
     *     resume there, so it watched another log. The ErrorInfo then has
     *     reason "REVISION_NOT_WRITTEN", domain "berth.v1" and metadata
     *     "next_revision" (decimal, the newest revision plus one) and
     *     "log_id". Resync and watch again from 0;
     *   - FAILED_PRECONDITION: log_id is set and is not this log's; the
     *     ErrorInfo has reason "LOG_ID_MISMATCH" and metadata "log_id" (this
     *     log's). Resync and watch again from 0;
     *   - UNAVAILABLE: the server is shutting down; reconnect.
     * Every OUT_OF_RANGE ErrorInfo also carries "log_id".
     * </pre>
     */
    public java.util.Iterator<io.berthsched.berth.v1.WatchResponse> watch(
        io.berthsched.berth.v1.WatchRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * DecisionService streams the scheduler's decisions to the orchestrator.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * DecisionService accepts read-only tokens.
   * </pre>
   */
  public static final class DecisionServiceFutureStub extends io.grpc.stub.AbstractFutureStub<DecisionServiceFutureStub> {
    private DecisionServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected DecisionServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new DecisionServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_WATCH = 0;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final DecisionServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(DecisionServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_WATCH:
          serviceImpl.watch((io.berthsched.berth.v1.WatchRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.WatchResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class DecisionServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    DecisionServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return io.berthsched.berth.v1.DecisionServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("DecisionService");
    }
  }

  private static final class DecisionServiceFileDescriptorSupplier
      extends DecisionServiceBaseDescriptorSupplier {
    DecisionServiceFileDescriptorSupplier() {}
  }

  private static final class DecisionServiceMethodDescriptorSupplier
      extends DecisionServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    DecisionServiceMethodDescriptorSupplier(String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (DecisionServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new DecisionServiceFileDescriptorSupplier())
              .addMethod(getWatchMethod())
              .build();
        }
      }
    }
    return result;
  }
}
