package io.berthsched.berth.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * StatsService takes node agents' usage reports and runs the kubelet's
 * node-pressure eviction manager on them, centrally: a threshold met sets
 * the node's pressure condition (and its NoSchedule taint, so scheduling
 * avoids the node at once), and the pod the kubelet would evict for it gets
 * an Evict decision with cause NODE_PRESSURE, streamed like any other.
 * Its RPCs change state: they need a read-write token.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: berth/v1/stats.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class StatsServiceGrpc {

  private StatsServiceGrpc() {}

  public static final String SERVICE_NAME = "berth.v1.StatsService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportNodeStatsRequest,
      io.berthsched.berth.v1.ReportNodeStatsResponse> getReportNodeStatsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReportNodeStats",
      requestType = io.berthsched.berth.v1.ReportNodeStatsRequest.class,
      responseType = io.berthsched.berth.v1.ReportNodeStatsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportNodeStatsRequest,
      io.berthsched.berth.v1.ReportNodeStatsResponse> getReportNodeStatsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ReportNodeStatsRequest, io.berthsched.berth.v1.ReportNodeStatsResponse> getReportNodeStatsMethod;
    if ((getReportNodeStatsMethod = StatsServiceGrpc.getReportNodeStatsMethod) == null) {
      synchronized (StatsServiceGrpc.class) {
        if ((getReportNodeStatsMethod = StatsServiceGrpc.getReportNodeStatsMethod) == null) {
          StatsServiceGrpc.getReportNodeStatsMethod = getReportNodeStatsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ReportNodeStatsRequest, io.berthsched.berth.v1.ReportNodeStatsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReportNodeStats"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ReportNodeStatsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ReportNodeStatsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StatsServiceMethodDescriptorSupplier("ReportNodeStats"))
              .build();
        }
      }
    }
    return getReportNodeStatsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.GetNodePressureRequest,
      io.berthsched.berth.v1.GetNodePressureResponse> getGetNodePressureMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetNodePressure",
      requestType = io.berthsched.berth.v1.GetNodePressureRequest.class,
      responseType = io.berthsched.berth.v1.GetNodePressureResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.GetNodePressureRequest,
      io.berthsched.berth.v1.GetNodePressureResponse> getGetNodePressureMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.GetNodePressureRequest, io.berthsched.berth.v1.GetNodePressureResponse> getGetNodePressureMethod;
    if ((getGetNodePressureMethod = StatsServiceGrpc.getGetNodePressureMethod) == null) {
      synchronized (StatsServiceGrpc.class) {
        if ((getGetNodePressureMethod = StatsServiceGrpc.getGetNodePressureMethod) == null) {
          StatsServiceGrpc.getGetNodePressureMethod = getGetNodePressureMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.GetNodePressureRequest, io.berthsched.berth.v1.GetNodePressureResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetNodePressure"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.GetNodePressureRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.GetNodePressureResponse.getDefaultInstance()))
              .setSchemaDescriptor(new StatsServiceMethodDescriptorSupplier("GetNodePressure"))
              .build();
        }
      }
    }
    return getGetNodePressureMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static StatsServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StatsServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StatsServiceStub>() {
        @java.lang.Override
        public StatsServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StatsServiceStub(channel, callOptions);
        }
      };
    return StatsServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static StatsServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StatsServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StatsServiceBlockingStub>() {
        @java.lang.Override
        public StatsServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StatsServiceBlockingStub(channel, callOptions);
        }
      };
    return StatsServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static StatsServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<StatsServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<StatsServiceFutureStub>() {
        @java.lang.Override
        public StatsServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new StatsServiceFutureStub(channel, callOptions);
        }
      };
    return StatsServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * StatsService takes node agents' usage reports and runs the kubelet's
   * node-pressure eviction manager on them, centrally: a threshold met sets
   * the node's pressure condition (and its NoSchedule taint, so scheduling
   * avoids the node at once), and the pod the kubelet would evict for it gets
   * an Evict decision with cause NODE_PRESSURE, streamed like any other.
   * Its RPCs change state: they need a read-write token.
   * </pre>
   */
  public static abstract class StatsServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * ReportNodeStats hands Berth one observation of a node: a kubelet Summary
     * (the stats/v1alpha1 format of the kubelet's /stats/summary endpoint, as
     * JSON). The node is the Summary's node.nodeName. Each report is one pass
     * of the eviction manager, which evicts at most one pod per report.
     * Fails with:
     *   - INVALID_ARGUMENT: summary_json is empty, not a Summary (unknown
     *     fields included), or lacks node.nodeName or a pod's podRef;
     *   - NOT_FOUND: Berth holds no node of that name;
     *   - FAILED_PRECONDITION: a pod of the Summary is not on that node (or its
     *     podRef.uid is another pod's).
     * A report whose measurements are older than berthd's evictionStatsMaxAge
     * is answered with stale set and changes nothing.
     * </pre>
     */
    public void reportNodeStats(io.berthsched.berth.v1.ReportNodeStatsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportNodeStatsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReportNodeStatsMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetNodePressure lists the pressure of every node that reported stats:
     * its conditions and the thresholds met.
     * </pre>
     */
    public void getNodePressure(io.berthsched.berth.v1.GetNodePressureRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.GetNodePressureResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetNodePressureMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getReportNodeStatsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ReportNodeStatsRequest,
                io.berthsched.berth.v1.ReportNodeStatsResponse>(
                  this, METHODID_REPORT_NODE_STATS)))
          .addMethod(
            getGetNodePressureMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.GetNodePressureRequest,
                io.berthsched.berth.v1.GetNodePressureResponse>(
                  this, METHODID_GET_NODE_PRESSURE)))
          .build();
    }
  }

  /**
   * <pre>
   * StatsService takes node agents' usage reports and runs the kubelet's
   * node-pressure eviction manager on them, centrally: a threshold met sets
   * the node's pressure condition (and its NoSchedule taint, so scheduling
   * avoids the node at once), and the pod the kubelet would evict for it gets
   * an Evict decision with cause NODE_PRESSURE, streamed like any other.
   * Its RPCs change state: they need a read-write token.
   * </pre>
   */
  public static final class StatsServiceStub extends io.grpc.stub.AbstractAsyncStub<StatsServiceStub> {
    private StatsServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StatsServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StatsServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * ReportNodeStats hands Berth one observation of a node: a kubelet Summary
     * (the stats/v1alpha1 format of the kubelet's /stats/summary endpoint, as
     * JSON). The node is the Summary's node.nodeName. Each report is one pass
     * of the eviction manager, which evicts at most one pod per report.
     * Fails with:
     *   - INVALID_ARGUMENT: summary_json is empty, not a Summary (unknown
     *     fields included), or lacks node.nodeName or a pod's podRef;
     *   - NOT_FOUND: Berth holds no node of that name;
     *   - FAILED_PRECONDITION: a pod of the Summary is not on that node (or its
     *     podRef.uid is another pod's).
     * A report whose measurements are older than berthd's evictionStatsMaxAge
     * is answered with stale set and changes nothing.
     * </pre>
     */
    public void reportNodeStats(io.berthsched.berth.v1.ReportNodeStatsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportNodeStatsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReportNodeStatsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetNodePressure lists the pressure of every node that reported stats:
     * its conditions and the thresholds met.
     * </pre>
     */
    public void getNodePressure(io.berthsched.berth.v1.GetNodePressureRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.GetNodePressureResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetNodePressureMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * StatsService takes node agents' usage reports and runs the kubelet's
   * node-pressure eviction manager on them, centrally: a threshold met sets
   * the node's pressure condition (and its NoSchedule taint, so scheduling
   * avoids the node at once), and the pod the kubelet would evict for it gets
   * an Evict decision with cause NODE_PRESSURE, streamed like any other.
   * Its RPCs change state: they need a read-write token.
   * </pre>
   */
  public static final class StatsServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<StatsServiceBlockingStub> {
    private StatsServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StatsServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StatsServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * ReportNodeStats hands Berth one observation of a node: a kubelet Summary
     * (the stats/v1alpha1 format of the kubelet's /stats/summary endpoint, as
     * JSON). The node is the Summary's node.nodeName. Each report is one pass
     * of the eviction manager, which evicts at most one pod per report.
     * Fails with:
     *   - INVALID_ARGUMENT: summary_json is empty, not a Summary (unknown
     *     fields included), or lacks node.nodeName or a pod's podRef;
     *   - NOT_FOUND: Berth holds no node of that name;
     *   - FAILED_PRECONDITION: a pod of the Summary is not on that node (or its
     *     podRef.uid is another pod's).
     * A report whose measurements are older than berthd's evictionStatsMaxAge
     * is answered with stale set and changes nothing.
     * </pre>
     */
    public io.berthsched.berth.v1.ReportNodeStatsResponse reportNodeStats(io.berthsched.berth.v1.ReportNodeStatsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReportNodeStatsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetNodePressure lists the pressure of every node that reported stats:
     * its conditions and the thresholds met.
     * </pre>
     */
    public io.berthsched.berth.v1.GetNodePressureResponse getNodePressure(io.berthsched.berth.v1.GetNodePressureRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetNodePressureMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * StatsService takes node agents' usage reports and runs the kubelet's
   * node-pressure eviction manager on them, centrally: a threshold met sets
   * the node's pressure condition (and its NoSchedule taint, so scheduling
   * avoids the node at once), and the pod the kubelet would evict for it gets
   * an Evict decision with cause NODE_PRESSURE, streamed like any other.
   * Its RPCs change state: they need a read-write token.
   * </pre>
   */
  public static final class StatsServiceFutureStub extends io.grpc.stub.AbstractFutureStub<StatsServiceFutureStub> {
    private StatsServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected StatsServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new StatsServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * ReportNodeStats hands Berth one observation of a node: a kubelet Summary
     * (the stats/v1alpha1 format of the kubelet's /stats/summary endpoint, as
     * JSON). The node is the Summary's node.nodeName. Each report is one pass
     * of the eviction manager, which evicts at most one pod per report.
     * Fails with:
     *   - INVALID_ARGUMENT: summary_json is empty, not a Summary (unknown
     *     fields included), or lacks node.nodeName or a pod's podRef;
     *   - NOT_FOUND: Berth holds no node of that name;
     *   - FAILED_PRECONDITION: a pod of the Summary is not on that node (or its
     *     podRef.uid is another pod's).
     * A report whose measurements are older than berthd's evictionStatsMaxAge
     * is answered with stale set and changes nothing.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ReportNodeStatsResponse> reportNodeStats(
        io.berthsched.berth.v1.ReportNodeStatsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReportNodeStatsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetNodePressure lists the pressure of every node that reported stats:
     * its conditions and the thresholds met.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.GetNodePressureResponse> getNodePressure(
        io.berthsched.berth.v1.GetNodePressureRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetNodePressureMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_REPORT_NODE_STATS = 0;
  private static final int METHODID_GET_NODE_PRESSURE = 1;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final StatsServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(StatsServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_REPORT_NODE_STATS:
          serviceImpl.reportNodeStats((io.berthsched.berth.v1.ReportNodeStatsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ReportNodeStatsResponse>) responseObserver);
          break;
        case METHODID_GET_NODE_PRESSURE:
          serviceImpl.getNodePressure((io.berthsched.berth.v1.GetNodePressureRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.GetNodePressureResponse>) responseObserver);
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

  private static abstract class StatsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    StatsServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return io.berthsched.berth.v1.StatsProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("StatsService");
    }
  }

  private static final class StatsServiceFileDescriptorSupplier
      extends StatsServiceBaseDescriptorSupplier {
    StatsServiceFileDescriptorSupplier() {}
  }

  private static final class StatsServiceMethodDescriptorSupplier
      extends StatsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    StatsServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (StatsServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new StatsServiceFileDescriptorSupplier())
              .addMethod(getReportNodeStatsMethod())
              .addMethod(getGetNodePressureMethod())
              .build();
        }
      }
    }
    return result;
  }
}
