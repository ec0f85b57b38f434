package io.berthsched.berth.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * StateService is how the caller, the orchestrator that owns the cluster,
 * tells Berth what exists: nodes, pods, priority classes, disruption budgets
 * and namespaces. The caller is the source of truth. Berth keeps these
 * objects in memory and does not persist them: after Berth restarts (a
 * broken stream is the sign) the caller re-lists everything, bracketed by
 * resync markers.
 * Upserts replace whole objects; there is no partial update. Mutations are
 * applied in the order sent, each on its own: one that fails leaves its
 * object as it was and does not stop the others, and its failure is
 * reported as an ObjectError. The scheduler sees the accepted mutations of
 * a request together, never half of a request: the pending pods a request
 * adds are queued only once the whole request is applied, so a pod early
 * in a request is placed knowing the nodes later in it.
 * A pod that Berth holds as bound (sent with node_name, or confirmed) does
 * not become pending again under the same uid: an upsert of it without
 * node_name is refused with FAILED_PRECONDITION on pod.node_name, and the
 * pod keeps its node. To run it elsewhere, delete it and send it under a
 * new uid. The only way back to pending is ReportBindResult FAILED for a
 * bind not yet confirmed.
 * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
 * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
 * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
 * Every StateService RPC changes state, so with --token-file it needs a
 * read-write token: a read-only one gets PERMISSION_DENIED.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: berth/v1/state_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class StateServiceGrpc {

  private StateServiceGrpc() {}

  public static final String SERVICE_NAME = "berth.v1.StateService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.SyncRequest,
      io.berthsched.berth.v1.SyncResponse> getSyncMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Sync",
      requestType = io.berthsched.berth.v1.SyncRequest.class,
      responseType = io.berthsched.berth.v1.SyncResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.SyncRequest,
      io.berthsched.berth.v1.SyncResponse> getSyncMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.SyncRequest, io.berthsched.berth.v1.SyncResponse> getSyncMethod;
    if ((getSyncMethod = StateServiceGrpc.getSyncMethod) == null) {
      synchronized (StateServiceGrpc.class) {
        if ((getSyncMethod = StateServiceGrpc.getSyncMethod) == null) {
          StateServiceGrpc.getSyncMethod = getSyncMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.SyncRequest, io.berthsched.berth.v1.SyncResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Sync"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.SyncRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.SyncResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StateServiceMethodDescriptorSupplier("Sync"))
              .build();
        }
      }
    }
    return getSyncMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ApplyRequest,
      io.berthsched.berth.v1.ApplyResponse> getApplyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Apply",
      requestType = io.berthsched.berth.v1.ApplyRequest.class,
      responseType = io.berthsched.berth.v1.ApplyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ApplyRequest,
      io.berthsched.berth.v1.ApplyResponse> getApplyMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ApplyRequest, io.berthsched.berth.v1.ApplyResponse> getApplyMethod;
    if ((getApplyMethod = StateServiceGrpc.getApplyMethod) == null) {
      synchronized (StateServiceGrpc.class) {
        if ((getApplyMethod = StateServiceGrpc.getApplyMethod) == null) {
          StateServiceGrpc.getApplyMethod = getApplyMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ApplyRequest, io.berthsched.berth.v1.ApplyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Apply"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ApplyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ApplyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StateServiceMethodDescriptorSupplier("Apply"))
              .build();
        }
      }
    }
    return getApplyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.DeleteRequest,
      io.berthsched.berth.v1.DeleteResponse> getDeleteMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Delete",
      requestType = io.berthsched.berth.v1.DeleteRequest.class,
      responseType = io.berthsched.berth.v1.DeleteResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.DeleteRequest,
      io.berthsched.berth.v1.DeleteResponse> getDeleteMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.DeleteRequest, io.berthsched.berth.v1.DeleteResponse> getDeleteMethod;
    if ((getDeleteMethod = StateServiceGrpc.getDeleteMethod) == null) {
      synchronized (StateServiceGrpc.class) {
        if ((getDeleteMethod = StateServiceGrpc.getDeleteMethod) == null) {
          StateServiceGrpc.getDeleteMethod = getDeleteMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.DeleteRequest, io.berthsched.berth.v1.DeleteResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Delete"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.DeleteRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.DeleteResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StateServiceMethodDescriptorSupplier("Delete"))
              .build();
        }
      }
    }
    return getDeleteMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportBindResultRequest,
      io.berthsched.berth.v1.ReportBindResultResponse> getReportBindResultMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReportBindResult",
      requestType = io.berthsched.berth.v1.ReportBindResultRequest.class,
      responseType = io.berthsched.berth.v1.ReportBindResultResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportBindResultRequest,
      io.berthsched.berth.v1.ReportBindResultResponse> getReportBindResultMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportBindResultRequest, io.berthsched.berth.v1.ReportBindResultResponse> getReportBindResultMethod;
    if ((getReportBindResultMethod = StateServiceGrpc.getReportBindResultMethod) == null) {
      synchronized (StateServiceGrpc.class) {
        if ((getReportBindResultMethod = StateServiceGrpc.getReportBindResultMethod) == null) {
          StateServiceGrpc.getReportBindResultMethod = getReportBindResultMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ReportBindResultRequest, io.berthsched.berth.v1.ReportBindResultResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReportBindResult"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ReportBindResultRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ReportBindResultResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StateServiceMethodDescriptorSupplier("ReportBindResult"))
              .build();
        }
      }
    }
    return getReportBindResultMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static StateServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StateServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StateServiceStub>() {
        @java.lang.Override
        public StateServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StateServiceStub(channel, callOptions);
        }
      };
    return StateServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static StateServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StateServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StateServiceBlockingStub>() {
        @java.lang.Override
        public StateServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StateServiceBlockingStub(channel, callOptions);
        }
      };
    return StateServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static StateServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StateServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StateServiceFutureStub>() {
        @java.lang.Override
        public StateServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StateServiceFutureStub(channel, callOptions);
        }
      };
    return StateServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * StateService is how the caller, the orchestrator that owns the cluster,
   * tells Berth what exists: nodes, pods, priority classes, disruption budgets
   * and namespaces. The caller is the source of truth. Berth keeps these
   * objects in memory and does not persist them: after Berth restarts (a
   * broken stream is the sign) the caller re-lists everything, bracketed by
   * resync markers.
   * Upserts replace whole objects; there is no partial update. Mutations are
   * applied in the order sent, each on its own: one that fails leaves its
   * object as it was and does not stop the others, and its failure is
   * reported as an ObjectError. The scheduler sees the accepted mutations of
   * a request together, never half of a request: the pending pods a request
   * adds are queued only once the whole request is applied, so a pod early
   * in a request is placed knowing the nodes later in it.
   * A pod that Berth holds as bound (sent with node_name, or confirmed) does
   * not become pending again under the same uid: an upsert of it without
   * node_name is refused with FAILED_PRECONDITION on pod.node_name, and the
   * pod keeps its node. To run it elsewhere, delete it and send it under a
   * new uid. The only way back to pending is ReportBindResult FAILED for a
   * bind not yet confirmed.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * Every StateService RPC changes state, so with --token-file it needs a
   * read-write token: a read-only one gets PERMISSION_DENIED.
   * </pre>
   */
  public static abstract class StateServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Sync is the main channel for state: a long-lived stream of batches of
     * upserts and deletes, each answered by exactly one SyncResponse, in the
     * order the requests were sent. The caller may send further batches
     * before earlier ones are acknowledged.
     * A full re-list is bracketed by resync markers. RESYNC_BEGIN opens a
     * resync on this stream for the kinds in resync_kinds (all kinds when
     * empty). At RESYNC_END, Berth deletes every object of those kinds that
     * it holds but that nobody upserted since RESYNC_BEGIN, with the same
     * effects as a Delete, and reports how many in resync_deleted. An upsert
     * through Apply or another stream counts too: an object created or
     * updated by another caller during the re-list is newer than the
     * re-list and stays. So does an object named by an upsert that was
     * refused (Berth keeps the version it holds). A second RESYNC_BEGIN
     * restarts the resync.
     * While any resync is open, on any stream, Berth starts no scheduling
     * attempt (pending pods stay queued): the re-list may send nodes and
     * pending pods before the running pods that fill the nodes. A stream
     * that ends during a resync abandons it: what it upserted stays, nothing
     * is deleted, and its hold on scheduling ends. After a restart, berthd
     * waits for the first RESYNC_END of a resync covering pods (or
     * --initial-sync-timeout) before it schedules anything.
     * Per-object failures are reported in the acknowledgement, never by
     * ending the stream. The stream itself ends with:
     *   - FAILED_PRECONDITION: RESYNC_END without an open resync, or
     *     resync_kinds given with a marker other than RESYNC_BEGIN;
     *   - INVALID_ARGUMENT: an unknown resync value, or resync_kinds holding
     *     OBJECT_KIND_UNSPECIFIED or an unknown kind;
     *   - RESOURCE_EXHAUSTED: a request larger than the server's message size
     *     limit (16 MiB), or holding more mutations than berthd's
     *     --max-batch-objects (10000 by default); send smaller batches;
     *   - UNAVAILABLE: the server is shutting down; reconnect and re-list.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SyncRequest> sync(
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SyncResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getSyncMethod(), responseObserver);
    }

    /**
     * <pre>
     * Apply upserts objects, for callers that do not keep a stream. It
     * behaves like one Sync batch without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more objects than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public void apply(io.berthsched.berth.v1.ApplyRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ApplyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApplyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Delete removes objects, for callers that do not keep a stream. It
     * behaves like one Sync batch of deletes without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more references than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public void delete(io.berthsched.berth.v1.DeleteRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DeleteResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReportBindResult tells Berth what became of a Bind decision. CONFIRMED
     * means the pod now runs on the node: it has the same effect as upserting
     * the pod with node_name set, which also confirms a bind. FAILED means the
     * orchestrator could not place the pod there: Berth forgets the placement,
     * frees the node's resources and requeues the pod with backoff. Reporting
     * the same result twice is harmless. A report may be sent as soon as the
     * Bind is received on a watch.
     * The bind is identified by the pod, the node and the revision. When
     * Berth no longer knows the revision of the pod's outstanding bind (a
     * bind made before a restart whose record was compacted away from the
     * log), the pod and node identify it and any revision is accepted.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace, pod.name, pod.uid, node, revision or
     *     outcome missing;
     *   - NOT_FOUND: Berth holds no pod with that namespace, name and uid;
     *   - FAILED_PRECONDITION: the revision is not the pod's outstanding Bind
     *     to that node (superseded, or already settled the other way).
     * </pre>
     */
    public void reportBindResult(io.berthsched.berth.v1.ReportBindResultRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportBindResultResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReportBindResultMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getSyncMethod(),
            io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
              new MethodHandlers<
                io.berthsched.berth.v1.SyncRequest,
                io.berthsched.berth.v1.SyncResponse>(
                  this, METHODID_SYNC)))
          .addMethod(
            getApplyMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ApplyRequest,
                io.berthsched.berth.v1.ApplyResponse>(
                  this, METHODID_APPLY)))
          .addMethod(
            getDeleteMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.DeleteRequest,
                io.berthsched.berth.v1.DeleteResponse>(
                  this, METHODID_DELETE)))
          .addMethod(
            getReportBindResultMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ReportBindResultRequest,
                io.berthsched.berth.v1.ReportBindResultResponse>(
                  this, METHODID_REPORT_BIND_RESULT)))
          .build();
    }
  }

  /**
   * <pre>
   * StateService is how the caller, the orchestrator that owns the cluster,
   * tells Berth what exists: nodes, pods, priority classes, disruption budgets
   * and namespaces. The caller is the source of truth. Berth keeps these
   * objects in memory and does not persist them: after Berth restarts (a
   * broken stream is the sign) the caller re-lists everything, bracketed by
   * resync markers.
   * Upserts replace whole objects; there is no partial update. Mutations are
   * applied in the order sent, each on its own: one that fails leaves its
   * object as it was and does not stop the others, and its failure is
   * reported as an ObjectError. The scheduler sees the accepted mutations of
   * a request together, never half of a request: the pending pods a request
   * adds are queued only once the whole request is applied, so a pod early
   * in a request is placed knowing the nodes later in it.
   * A pod that Berth holds as bound (sent with node_name, or confirmed) does
   * not become pending again under the same uid: an upsert of it without
   * node_name is refused with FAILED_PRECONDITION on pod.node_name, and the
   * pod keeps its node. To run it elsewhere, delete it and send it under a
   * new uid. The only way back to pending is ReportBindResult FAILED for a
   * bind not yet confirmed.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * Every StateService RPC changes state, so with --token-file it needs a
   * read-write token: a read-only one gets PERMISSION_DENIED.
   * </pre>
   */
  public static final class StateServiceStub extends io.grpc.stub.AbstractAsyncStub<StateServiceStub> {
    private StateServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StateServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StateServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Sync is the main channel for state: a long-lived stream of batches of
     * upserts and deletes, each answered by exactly one SyncResponse, in the
     * order the requests were sent. The caller may send further batches
     * before earlier ones are acknowledged.
     * A full re-list is bracketed by resync markers. RESYNC_BEGIN opens a
     * resync on this stream for the kinds in resync_kinds (all kinds when
     * empty). At RESYNC_END, Berth deletes every object of those kinds that
     * it holds but that nobody upserted since RESYNC_BEGIN, with the same
     * effects as a Delete, and reports how many in resync_deleted. An upsert
     * through Apply or another stream counts too: an object created or
     * updated by another caller during the re-list is newer than the
     * re-list and stays. So does an object named by an upsert that was
     * refused (Berth keeps the version it holds). A second RESYNC_BEGIN
     * restarts the resync.
     * While any resync is open, on any stream, Berth starts no scheduling
     * attempt (pending pods stay queued): the re-list may send nodes and
     * pending pods before the running pods that fill the nodes. A stream
     * that ends during a resync abandons it: what it upserted stays, nothing
     * is deleted, and its hold on scheduling ends. After a restart, berthd
     * waits for the first RESYNC_END of a resync covering pods (or
     * --initial-sync-timeout) before it schedules anything.
     * Per-object failures are reported in the acknowledgement, never by
     * ending the stream. The stream itself ends with:
     *   - FAILED_PRECONDITION: RESYNC_END without an open resync, or
     *     resync_kinds given with a marker other than RESYNC_BEGIN;
     *   - INVALID_ARGUMENT: an unknown resync value, or resync_kinds holding
     *     OBJECT_KIND_UNSPECIFIED or an unknown kind;
     *   - RESOURCE_EXHAUSTED: a request larger than the server's message size
     *     limit (16 MiB), or holding more mutations than berthd's
     *     --max-batch-objects (10000 by default); send smaller batches;
     *   - UNAVAILABLE: the server is shutting down; reconnect and re-list.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SyncRequest> sync(
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SyncResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getSyncMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Apply upserts objects, for callers that do not keep a stream. It
     * behaves like one Sync batch without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more objects than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public void apply(io.berthsched.berth.v1.ApplyRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ApplyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApplyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Delete removes objects, for callers that do not keep a stream. It
     * behaves like one Sync batch of deletes without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more references than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public void delete(io.berthsched.berth.v1.DeleteRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DeleteResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReportBindResult tells Berth what became of a Bind decision. CONFIRMED
     * means the pod now runs on the node: it has the same effect as upserting
     * the pod with node_name set, which also confirms a bind. FAILED means the
     * orchestrator could not place the pod there: Berth forgets the placement,
     * frees the node's resources and requeues the pod with backoff. Reporting
     * the same result twice is harmless. A report may be sent as soon as the
     * Bind is received on a watch.
     * The bind is identified by the pod, the node and the revision. When
     * Berth no longer knows the revision of the pod's outstanding bind (a
     * bind made before a restart whose record was compacted away from the
     * log), the pod and node identify it and any revision is accepted.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace, pod.name, pod.uid, node, revision or
     *     outcome missing;
     *   - NOT_FOUND: Berth holds no pod with that namespace, name and uid;
     *   - FAILED_PRECONDITION: the revision is not the pod's outstanding Bind
     *     to that node (superseded, or already settled the other way).
     * </pre>
     */
    public void reportBindResult(io.berthsched.berth.v1.ReportBindResultRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportBindResultResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReportBindResultMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * StateService is how the caller, the orchestrator that owns the cluster,
   * tells Berth what exists: nodes, pods, priority classes, disruption budgets
   * and namespaces. The caller is the source of truth. Berth keeps these
   * objects in memory and does not persist them: after Berth restarts (a
   * broken stream is the sign) the caller re-lists everything, bracketed by
   * resync markers.
   * Upserts replace whole objects; there is no partial update. Mutations are
   * applied in the order sent, each on its own: one that fails leaves its
   * object as it was and does not stop the others, and its failure is
   * reported as an ObjectError. The scheduler sees the accepted mutations of
   * a request together, never half of a request: the pending pods a request
   * adds are queued only once the whole request is applied, so a pod early
   * in a request is placed knowing the nodes later in it.
   * A pod that Berth holds as bound (sent with node_name, or confirmed) does
   * not become pending again under the same uid: an upsert of it without
   * node_name is refused with FAILED_PRECONDITION on pod.node_name, and the
   * pod keeps its node. To run it elsewhere, delete it and send it under a
   * new uid. The only way back to pending is ReportBindResult FAILED for a
   * bind not yet confirmed.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * Every StateService RPC changes state, so with --token-file it needs a
   * read-write token: a read-only one gets PERMISSION_DENIED.
   * </pre>
   */
  public static final class StateServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<StateServiceBlockingStub> {
    private StateServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StateServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StateServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Apply upserts objects, for callers that do not keep a stream. It
     * behaves like one Sync batch without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more objects than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public io.berthsched.berth.v1.ApplyResponse apply(io.berthsched.berth.v1.ApplyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApplyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Delete removes objects, for callers that do not keep a stream. It
     * behaves like one Sync batch of deletes without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more references than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public io.berthsched.berth.v1.DeleteResponse delete(io.berthsched.berth.v1.DeleteRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReportBindResult tells Berth what became of a Bind decision. CONFIRMED
     * means the pod now runs on the node: it has the same effect as upserting
     * the pod with node_name set, which also confirms a bind. FAILED means the
     * orchestrator could not place the pod there: Berth forgets the placement,
     * frees the node's resources and requeues the pod with backoff. Reporting
     * the same result twice is harmless. A report may be sent as soon as the
     * Bind is received on a watch.
     * The bind is identified by the pod, the node and the revision. When
     * Berth no longer knows the revision of the pod's outstanding bind (a
     * bind made before a restart whose record was compacted away from the
     * log), the pod and node identify it and any revision is accepted.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace, pod.name, pod.uid, node, revision or
     *     outcome missing;
     *   - NOT_FOUND: Berth holds no pod with that namespace, name and uid;
     *   - FAILED_PRECONDITION: the revision is not the pod's outstanding Bind
     *     to that node (superseded, or already settled the other way).
     * </pre>
     */
    public io.berthsched.berth.v1.ReportBindResultResponse reportBindResult(io.berthsched.berth.v1.ReportBindResultRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReportBindResultMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * StateService is how the caller, the orchestrator that owns the cluster,
   * tells Berth what exists: nodes, pods, priority classes, disruption budgets
   * and namespaces. The caller is the source of truth. Berth keeps these
   * objects in memory and does not persist them: after Berth restarts (a
   * broken stream is the sign) the caller re-lists everything, bracketed by
   * resync markers.
   * Upserts replace whole objects; there is no partial update. Mutations are
   * applied in the order sent, each on its own: one that fails leaves its
   * object as it was and does not stop the others, and its failure is
   * reported as an ObjectError. The scheduler sees the accepted mutations of
   * a request together, never half of a request: the pending pods a request
   * adds are queued only once the whole request is applied, so a pod early
   * in a request is placed knowing the nodes later in it.
   * A pod that Berth holds as bound (sent with node_name, or confirmed) does
   * not become pending again under the same uid: an upsert of it without
   * node_name is refused with FAILED_PRECONDITION on pod.node_name, and the
   * pod keeps its node. To run it elsewhere, delete it and send it under a
   * new uid. The only way back to pending is ReportBindResult FAILED for a
   * bind not yet confirmed.
   * Besides the codes each RPC lists, every RPC of berth.v1 may fail with
   * UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE, RESOURCE_EXHAUSTED,
   * DEADLINE_EXCEEDED, CANCELLED and INTERNAL, as AdminService describes.
   * Every StateService RPC changes state, so with --token-file it needs a
   * read-write token: a read-only one gets PERMISSION_DENIED.
   * </pre>
   */
  public static final class StateServiceFutureStub extends io.grpc.stub.AbstractFutureStub<StateServiceFutureStub> {
    private StateServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StateServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StateServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Apply upserts objects, for callers that do not keep a stream. It
     * behaves like one Sync batch without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more objects than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ApplyResponse> apply(
        io.berthsched.berth.v1.ApplyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApplyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Delete removes objects, for callers that do not keep a stream. It
     * behaves like one Sync batch of deletes without markers.
     * Per-object failures are in the response. The call itself fails with:
     *   - RESOURCE_EXHAUSTED: the request exceeds the message size limit
     *     (16 MiB), or holds more references than berthd's --max-batch-objects
     *     (10000 by default);
     *   - UNAVAILABLE: the server is shutting down.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.DeleteResponse> delete(
        io.berthsched.berth.v1.DeleteRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReportBindResult tells Berth what became of a Bind decision. CONFIRMED
     * means the pod now runs on the node: it has the same effect as upserting
     * the pod with node_name set, which also confirms a bind. FAILED means the
     * orchestrator could not place the pod there: Berth forgets the placement,
     * frees the node's resources and requeues the pod with backoff. Reporting
     * the same result twice is harmless. A report may be sent as soon as the
     * Bind is received on a watch.
     * The bind is identified by the pod, the node and the revision. When
     * Berth no longer knows the revision of the pod's outstanding bind (a
     * bind made before a restart whose record was compacted away from the
     * log), the pod and node identify it and any revision is accepted.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace, pod.name, pod.uid, node, revision or
     *     outcome missing;
     *   - NOT_FOUND: Berth holds no pod with that namespace, name and uid;
     *   - FAILED_PRECONDITION: the revision is not the pod's outstanding Bind
     *     to that node (superseded, or already settled the other way).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ReportBindResultResponse> reportBindResult(
        io.berthsched.berth.v1.ReportBindResultRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReportBindResultMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_APPLY = 0;
  private static final int METHODID_DELETE = 1;
  private static final int METHODID_REPORT_BIND_RESULT = 2;
  private static final int METHODID_SYNC = 3;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final StateServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(StateServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_APPLY:
          serviceImpl.apply((io.berthsched.berth.v1.ApplyRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ApplyResponse>) responseObserver);
          break;
        case METHODID_DELETE:
          serviceImpl.delete((io.berthsched.berth.v1.DeleteRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DeleteResponse>) responseObserver);
          break;
        case METHODID_REPORT_BIND_RESULT:
          serviceImpl.reportBindResult((io.berthsched.berth.v1.ReportBindResultRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportBindResultResponse>) responseObserver);
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
        case METHODID_SYNC:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.sync(
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SyncResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class StateServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    StateServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return io.berthsched.berth.v1.StateServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("StateService");
    }
  }

  private static final class StateServiceFileDescriptorSupplier
      extends StateServiceBaseDescriptorSupplier {
    StateServiceFileDescriptorSupplier() {}
  }

  private static final class StateServiceMethodDescriptorSupplier
      extends StateServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    StateServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (StateServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new StateServiceFileDescriptorSupplier())
              .addMethod(getSyncMethod())
              .addMethod(getApplyMethod())
              .addMethod(getDeleteMethod())
              .addMethod(getReportBindResultMethod())
              .build();
        }
      }
    }
    return result;
  }
}
