package io.berthsched.berth.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * EvictionService is Berth's eviction API: the Kubernetes Eviction API
 * (pods/eviction) with PodDisruptionBudgets enforced. An eviction it lets
 * go is an Evict decision of cause API, durable before the call returns
 * and streamed to watchers like any other; the orchestrator stops the pod
 * and deletes it. A pod gets at most one Evict, whatever its causes.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: berth/v1/eviction_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class EvictionServiceGrpc {

  private EvictionServiceGrpc() {}

  public static final String SERVICE_NAME = "berth.v1.EvictionService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.EvictPodRequest,
      io.berthsched.berth.v1.EvictPodResponse> getEvictPodMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "EvictPod",
      requestType = io.berthsched.berth.v1.EvictPodRequest.class,
      responseType = io.berthsched.berth.v1.EvictPodResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.EvictPodRequest,
      io.berthsched.berth.v1.EvictPodResponse> getEvictPodMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.EvictPodRequest, io.berthsched.berth.v1.EvictPodResponse> getEvictPodMethod;
    if ((getEvictPodMethod = EvictionServiceGrpc.getEvictPodMethod) == null) {
      synchronized (EvictionServiceGrpc.class) {
        if ((getEvictPodMethod = EvictionServiceGrpc.getEvictPodMethod) == null) {
          EvictionServiceGrpc.getEvictPodMethod = getEvictPodMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.EvictPodRequest, io.berthsched.berth.v1.EvictPodResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "EvictPod"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.EvictPodRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.EvictPodResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvictionServiceMethodDescriptorSupplier("EvictPod"))
              .build();
        }
      }
    }
    return getEvictPodMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodePodsRequest,
      io.berthsched.berth.v1.ListNodePodsResponse> getListNodePodsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListNodePods",
      requestType = io.berthsched.berth.v1.ListNodePodsRequest.class,
      responseType = io.berthsched.berth.v1.ListNodePodsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodePodsRequest,
      io.berthsched.berth.v1.ListNodePodsResponse> getListNodePodsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodePodsRequest, io.berthsched.berth.v1.ListNodePodsResponse> getListNodePodsMethod;
    if ((getListNodePodsMethod = EvictionServiceGrpc.getListNodePodsMethod) == null) {
      synchronized (EvictionServiceGrpc.class) {
        if ((getListNodePodsMethod = EvictionServiceGrpc.getListNodePodsMethod) == null) {
          EvictionServiceGrpc.getListNodePodsMethod = getListNodePodsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListNodePodsRequest, io.berthsched.berth.v1.ListNodePodsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListNodePods"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNodePodsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNodePodsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvictionServiceMethodDescriptorSupplier("ListNodePods"))
              .build();
        }
      }
    }
    return getListNodePodsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static EvictionServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvictionServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvictionServiceStub>() {
        @java.lang.Override
        public EvictionServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvictionServiceStub(channel, callOptions);
        }
      };
    return EvictionServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static EvictionServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvictionServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvictionServiceBlockingStub>() {
        @java.lang.Override
        public EvictionServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvictionServiceBlockingStub(channel, callOptions);
        }
      };
    return EvictionServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static EvictionServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvictionServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvictionServiceFutureStub>() {
        @java.lang.Override
        public EvictionServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvictionServiceFutureStub(channel, callOptions);
        }
      };
    return EvictionServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * EvictionService is Berth's eviction API: the Kubernetes Eviction API
   * (pods/eviction) with PodDisruptionBudgets enforced. An eviction it lets
   * go is an Evict decision of cause API, durable before the call returns
   * and streamed to watchers like any other; the orchestrator stops the pod
   * and deletes it. A pod gets at most one Evict, whatever its causes.
   * </pre>
   */
  public static abstract class EvictionServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * EvictPod evicts one pod, with the Eviction API's rules:
     *   - a pod that is pending, or terminating already, is evicted without
     *     looking at budgets (one already evicted is not evicted again:
     *     already_evicted is set); a pending pod binding to a node (its Bind
     *     awaiting an outcome) is evicted so, its Evict naming that node;
     *   - a pod covered by no PodDisruptionBudget (none of its namespace
     *     selects its labels) is evicted;
     *   - by exactly one: evicted if the budget allows a disruption now
     *     (minAvailable / maxUnavailable, percentages rounded up; healthy =
     *     bound, ready, not terminating, not among its disrupted pods); a
     *     pod that is not ready is evicted without charging the budget when
     *     its unhealthy_pod_eviction_policy is ALWAYS_ALLOW, or, with
     *     IF_HEALTHY_BUDGET (the default), when the budget has at least as
     *     many healthy pods as it wants (and wants some);
     *   - by more than one: refused.
     * Evictions through this RPC are serialized, so two racing for a
     * budget's last allowed disruption cannot both win.
     * Failure codes: INVALID_ARGUMENT (pod without namespace or name,
     * negative grace_period_seconds); NOT_FOUND (no such pod);
     * FAILED_PRECONDITION (the pod's uid differs from pod.uid; the pod is
     * covered by more than one budget: ErrorInfo reason
     * MULTIPLE_DISRUPTION_BUDGETS, metadata "budgets"); RESOURCE_EXHAUSTED
     * (Kubernetes' 429: the budget allows no disruption now: ErrorInfo
     * reason DISRUPTION_BUDGET with metadata "budget" (namespace/name),
     * "disruptions_allowed", and a RetryInfo delay; the pod is untouched).
     * </pre>
     */
    public void evictPod(io.berthsched.berth.v1.EvictPodRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.EvictPodResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEvictPodMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListNodePods lists the pods on a node by namespace and name: those
     * bound to it and those binding to it (a Bind decision to the node
     * awaiting the orchestrator's outcome; NodePod.binding), what a drain
     * evicts. EvictPod evicts a binding pod as it evicts a pending one, its
     * Evict naming the node it is binding to.
     * Failure codes: INVALID_ARGUMENT (no node).
     * </pre>
     */
    public void listNodePods(io.berthsched.berth.v1.ListNodePodsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodePodsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListNodePodsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getEvictPodMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.EvictPodRequest,
                io.berthsched.berth.v1.EvictPodResponse>(
                  this, METHODID_EVICT_POD)))
          .addMethod(
            getListNodePodsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListNodePodsRequest,
                io.berthsched.berth.v1.ListNodePodsResponse>(
                  this, METHODID_LIST_NODE_PODS)))
          .build();
    }
  }

  /**
   * <pre>
   * EvictionService is Berth's eviction API: the Kubernetes Eviction API
   * (pods/eviction) with PodDisruptionBudgets enforced. An eviction it lets
   * go is an Evict decision of cause API, durable before the call returns
   * and streamed to watchers like any other; the orchestrator stops the pod
   * and deletes it. A pod gets at most one Evict, whatever its causes.
   * </pre>
   */
  public static final class EvictionServiceStub extends io.grpc.stub.AbstractAsyncStub<EvictionServiceStub> {
    private EvictionServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvictionServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvictionServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * EvictPod evicts one pod, with the Eviction API's rules:
     *   - a pod that is pending, or terminating already, is evicted without
     *     looking at budgets (one already evicted is not evicted again:
     *     already_evicted is set); a pending pod binding to a node (its Bind
     *     awaiting an outcome) is evicted so, its Evict naming that node;
     *   - a pod covered by no PodDisruptionBudget (none of its namespace
     *     selects its labels) is evicted;
     *   - by exactly one: evicted if the budget allows a disruption now
     *     (minAvailable / maxUnavailable, percentages rounded up; healthy =
     *     bound, ready, not terminating, not among its disrupted pods); a
     *     pod that is not ready is evicted without charging the budget when
     *     its unhealthy_pod_eviction_policy is ALWAYS_ALLOW, or, with
     *     IF_HEALTHY_BUDGET (the default), when the budget has at least as
     *     many healthy pods as it wants (and wants some);
     *   - by more than one: refused.
     * Evictions through this RPC are serialized, so two racing for a
     * budget's last allowed disruption cannot both win.
     * Failure codes: INVALID_ARGUMENT (pod without namespace or name,
     * negative grace_period_seconds); NOT_FOUND (no such pod);
     * FAILED_PRECONDITION (the pod's uid differs from pod.uid; the pod is
     * covered by more than one budget: ErrorInfo reason
     * MULTIPLE_DISRUPTION_BUDGETS, metadata "budgets"); RESOURCE_EXHAUSTED
     * (Kubernetes' 429: the budget allows no disruption now: ErrorInfo
     * reason DISRUPTION_BUDGET with metadata "budget" (namespace/name),
     * "disruptions_allowed", and a RetryInfo delay; the pod is untouched).
     * </pre>
     */
    public void evictPod(io.berthsched.berth.v1.EvictPodRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.EvictPodResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEvictPodMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListNodePods lists the pods on a node by namespace and name: those
     * bound to it and those binding to it (a Bind decision to the node
     * awaiting the orchestrator's outcome; NodePod.binding), what a drain
     * evicts. EvictPod evicts a binding pod as it evicts a pending one, its
     * Evict naming the node it is binding to.
     * Failure codes: INVALID_ARGUMENT (no node).
     * </pre>
     */
    public void listNodePods(io.berthsched.berth.v1.ListNodePodsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodePodsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListNodePodsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * EvictionService is Berth's eviction API: the Kubernetes Eviction API
   * (pods/eviction) with PodDisruptionBudgets enforced. An eviction it lets
   * go is an Evict decision of cause API, durable before the call returns
   * and streamed to watchers like any other; the orchestrator stops the pod
   * and deletes it. A pod gets at most one Evict, whatever its causes.
   * </pre>
   */
  public static final class EvictionServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<EvictionServiceBlockingStub> {
    private EvictionServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvictionServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvictionServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * EvictPod evicts one pod, with the Eviction API's rules:
     *   - a pod that is pending, or terminating already, is evicted without
     *     looking at budgets (one already evicted is not evicted again:
     *     already_evicted is set); a pending pod binding to a node (its Bind
     *     awaiting an outcome) is evicted so, its Evict naming that node;
     *   - a pod covered by no PodDisruptionBudget (none of its namespace
     *     selects its labels) is evicted;
     *   - by exactly one: evicted if the budget allows a disruption now
     *     (minAvailable / maxUnavailable, percentages rounded up; healthy =
     *     bound, ready, not terminating, not among its disrupted pods); a
     *     pod that is not ready is evicted without charging the budget when
     *     its unhealthy_pod_eviction_policy is ALWAYS_ALLOW, or, with
     *     IF_HEALTHY_BUDGET (the default), when the budget has at least as
     *     many healthy pods as it wants (and wants some);
     *   - by more than one: refused.
     * Evictions through this RPC are serialized, so two racing for a
     * budget's last allowed disruption cannot both win.
     * Failure codes: INVALID_ARGUMENT (pod without namespace or name,
     * negative grace_period_seconds); NOT_FOUND (no such pod);
     * FAILED_PRECONDITION (the pod's uid differs from pod.uid; the pod is
     * covered by more than one budget: ErrorInfo reason
     * MULTIPLE_DISRUPTION_BUDGETS, metadata "budgets"); RESOURCE_EXHAUSTED
     * (Kubernetes' 429: the budget allows no disruption now: ErrorInfo
     * reason DISRUPTION_BUDGET with metadata "budget" (namespace/name),
     * "disruptions_allowed", and a RetryInfo delay; the pod is untouched).
     * </pre>
     */
    public io.berthsched.berth.v1.EvictPodResponse evictPod(io.berthsched.berth.v1.EvictPodRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEvictPodMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListNodePods lists the pods on a node by namespace and name: those
     * bound to it and those binding to it (a Bind decision to the node
     * awaiting the orchestrator's outcome; NodePod.binding), what a drain
     * evicts. EvictPod evicts a binding pod as it evicts a pending one, its
     * Evict naming the node it is binding to.
     * Failure codes: INVALID_ARGUMENT (no node).
     * </pre>
     */
    public io.berthsched.berth.v1.ListNodePodsResponse listNodePods(io.berthsched.berth.v1.ListNodePodsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListNodePodsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * EvictionService is Berth's eviction API: the Kubernetes Eviction API
   * (pods/eviction) with PodDisruptionBudgets enforced. An eviction it lets
   * go is an Evict decision of cause API, durable before the call returns
   * and streamed to watchers like any other; the orchestrator stops the pod
   * and deletes it. A pod gets at most one Evict, whatever its causes.
   * </pre>
   */
  public static final class EvictionServiceFutureStub extends io.grpc.stub.AbstractFutureStub<EvictionServiceFutureStub> {
    private EvictionServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvictionServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvictionServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * EvictPod evicts one pod, with the Eviction API's rules:
     *   - a pod that is pending, or terminating already, is evicted without
     *     looking at budgets (one already evicted is not evicted again:
     *     already_evicted is set); a pending pod binding to a node (its Bind
     *     awaiting an outcome) is evicted so, its Evict naming that node;
     *   - a pod covered by no PodDisruptionBudget (none of its namespace
     *     selects its labels) is evicted;
     *   - by exactly one: evicted if the budget allows a disruption now
     *     (minAvailable / maxUnavailable, percentages rounded up; healthy =
     *     bound, ready, not terminating, not among its disrupted pods); a
     *     pod that is not ready is evicted without charging the budget when
     *     its unhealthy_pod_eviction_policy is ALWAYS_ALLOW, or, with
     *     IF_HEALTHY_BUDGET (the default), when the budget has at least as
     *     many healthy pods as it wants (and wants some);
     *   - by more than one: refused.
     * Evictions through this RPC are serialized, so two racing for a
     * budget's last allowed disruption cannot both win.
     * Failure codes: INVALID_ARGUMENT (pod without namespace or name,
     * negative grace_period_seconds); NOT_FOUND (no such pod);
     * FAILED_PRECONDITION (the pod's uid differs from pod.uid; the pod is
     * covered by more than one budget: ErrorInfo reason
     * MULTIPLE_DISRUPTION_BUDGETS, metadata "budgets"); RESOURCE_EXHAUSTED
     * (Kubernetes' 429: the budget allows no disruption now: ErrorInfo
     * reason DISRUPTION_BUDGET with metadata "budget" (namespace/name),
     * "disruptions_allowed", and a RetryInfo delay; the pod is untouched).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.EvictPodResponse> evictPod(
        io.berthsched.berth.v1.EvictPodRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEvictPodMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListNodePods lists the pods on a node by namespace and name: those
     * bound to it and those binding to it (a Bind decision to the node
     * awaiting the orchestrator's outcome; NodePod.binding), what a drain
     * evicts. EvictPod evicts a binding pod as it evicts a pending one, its
     * Evict naming the node it is binding to.
     * Failure codes: INVALID_ARGUMENT (no node).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListNodePodsResponse> listNodePods(
        io.berthsched.berth.v1.ListNodePodsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListNodePodsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_EVICT_POD = 0;
  private static final int METHODID_LIST_NODE_PODS = 1;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final EvictionServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(EvictionServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_EVICT_POD:
          serviceImpl.evictPod((io.berthsched.berth.v1.EvictPodRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.EvictPodResponse>) responseObserver);
          break;
        case METHODID_LIST_NODE_PODS:
          serviceImpl.listNodePods((io.berthsched.berth.v1.ListNodePodsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodePodsResponse>) responseObserver);
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

  private static abstract class EvictionServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    EvictionServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return io.berthsched.berth.v1.EvictionServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("EvictionService");
    }
  }

  private static final class EvictionServiceFileDescriptorSupplier
      extends EvictionServiceBaseDescriptorSupplier {
    EvictionServiceFileDescriptorSupplier() {}
  }

  private static final class EvictionServiceMethodDescriptorSupplier
      extends EvictionServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    EvictionServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (EvictionServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new EvictionServiceFileDescriptorSupplier())
              .addMethod(getEvictPodMethod())
              .addMethod(getListNodePodsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
