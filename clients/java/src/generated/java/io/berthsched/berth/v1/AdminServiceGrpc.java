package io.berthsched.berth.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AdminService answers questions about the scheduler for operators and
 * tools. Nothing in it changes what the scheduler does.
 * Every RPC of berth.v1 may also fail with these codes, which no RPC lists
 * again:
 *   - UNAUTHENTICATED: berthd runs with --token-file and the call carries no
 *     "authorization: Bearer &lt;token&gt;" metadata, a malformed one, or a token
 *     the file does not list;
 *   - PERMISSION_DENIED: the token is read-only and the RPC changes state
 *     (every StateService RPC); DecisionService and AdminService accept
 *     read-only tokens;
 *   - UNAVAILABLE: berthd is unreachable or shutting down; also what client
 *     libraries report when the TLS handshake fails, for example without a
 *     client certificate berthd's --tls-client-ca accepts;
 *   - RESOURCE_EXHAUSTED: a request message larger than berthd accepts
 *     (16 MiB);
 *   - DEADLINE_EXCEEDED, CANCELLED: the caller's deadline passed or the
 *     caller cancelled;
 *   - INTERNAL: a bug in Berth; the status message says what failed.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: berth/v1/admin_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class AdminServiceGrpc {

  private AdminServiceGrpc() {}

  public static final String SERVICE_NAME = "berth.v1.AdminService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ExplainRequest,
      io.berthsched.berth.v1.ExplainResponse> getExplainMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Explain",
      requestType = io.berthsched.berth.v1.ExplainRequest.class,
      responseType = io.berthsched.berth.v1.ExplainResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ExplainRequest,
      io.berthsched.berth.v1.ExplainResponse> getExplainMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ExplainRequest, io.berthsched.berth.v1.ExplainResponse> getExplainMethod;
    if ((getExplainMethod = AdminServiceGrpc.getExplainMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getExplainMethod = AdminServiceGrpc.getExplainMethod) == null) {
          AdminServiceGrpc.getExplainMethod = getExplainMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ExplainRequest, io.berthsched.berth.v1.ExplainResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Explain"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ExplainRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ExplainResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("Explain"))
              .build();
        }
      }
    }
    return getExplainMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.SimulateRequest,
      io.berthsched.berth.v1.SimulateResponse> getSimulateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Simulate",
      requestType = io.berthsched.berth.v1.SimulateRequest.class,
      responseType = io.berthsched.berth.v1.SimulateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.SimulateRequest,
      io.berthsched.berth.v1.SimulateResponse> getSimulateMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.SimulateRequest, io.berthsched.berth.v1.SimulateResponse> getSimulateMethod;
    if ((getSimulateMethod = AdminServiceGrpc.getSimulateMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getSimulateMethod = AdminServiceGrpc.getSimulateMethod) == null) {
          AdminServiceGrpc.getSimulateMethod = getSimulateMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.SimulateRequest, io.berthsched.berth.v1.SimulateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Simulate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.SimulateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.SimulateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("Simulate"))
              .build();
        }
      }
    }
    return getSimulateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPendingRequest,
      io.berthsched.berth.v1.ListPendingResponse> getListPendingMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPending",
      requestType = io.berthsched.berth.v1.ListPendingRequest.class,
      responseType = io.berthsched.berth.v1.ListPendingResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPendingRequest,
      io.berthsched.berth.v1.ListPendingResponse> getListPendingMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPendingRequest, io.berthsched.berth.v1.ListPendingResponse> getListPendingMethod;
    if ((getListPendingMethod = AdminServiceGrpc.getListPendingMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListPendingMethod = AdminServiceGrpc.getListPendingMethod) == null) {
          AdminServiceGrpc.getListPendingMethod = getListPendingMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListPendingRequest, io.berthsched.berth.v1.ListPendingResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPending"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListPendingRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListPendingResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListPending"))
              .build();
        }
      }
    }
    return getListPendingMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPodsRequest,
      io.berthsched.berth.v1.ListPodsResponse> getListPodsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPods",
      requestType = io.berthsched.berth.v1.ListPodsRequest.class,
      responseType = io.berthsched.berth.v1.ListPodsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPodsRequest,
      io.berthsched.berth.v1.ListPodsResponse> getListPodsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListPodsRequest, io.berthsched.berth.v1.ListPodsResponse> getListPodsMethod;
    if ((getListPodsMethod = AdminServiceGrpc.getListPodsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListPodsMethod = AdminServiceGrpc.getListPodsMethod) == null) {
          AdminServiceGrpc.getListPodsMethod = getListPodsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListPodsRequest, io.berthsched.berth.v1.ListPodsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPods"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListPodsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListPodsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListPods"))
              .build();
        }
      }
    }
    return getListPodsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNominationsRequest,
      io.berthsched.berth.v1.ListNominationsResponse> getListNominationsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListNominations",
      requestType = io.berthsched.berth.v1.ListNominationsRequest.class,
      responseType = io.berthsched.berth.v1.ListNominationsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNominationsRequest,
      io.berthsched.berth.v1.ListNominationsResponse> getListNominationsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNominationsRequest, io.berthsched.berth.v1.ListNominationsResponse> getListNominationsMethod;
    if ((getListNominationsMethod = AdminServiceGrpc.getListNominationsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListNominationsMethod = AdminServiceGrpc.getListNominationsMethod) == null) {
          AdminServiceGrpc.getListNominationsMethod = getListNominationsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListNominationsRequest, io.berthsched.berth.v1.ListNominationsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListNominations"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNominationsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNominationsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListNominations"))
              .build();
        }
      }
    }
    return getListNominationsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.QueueStatsRequest,
      io.berthsched.berth.v1.QueueStatsResponse> getQueueStatsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "QueueStats",
      requestType = io.berthsched.berth.v1.QueueStatsRequest.class,
      responseType = io.berthsched.berth.v1.QueueStatsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.QueueStatsRequest,
      io.berthsched.berth.v1.QueueStatsResponse> getQueueStatsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.QueueStatsRequest, io.berthsched.berth.v1.QueueStatsResponse> getQueueStatsMethod;
    if ((getQueueStatsMethod = AdminServiceGrpc.getQueueStatsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getQueueStatsMethod = AdminServiceGrpc.getQueueStatsMethod) == null) {
          AdminServiceGrpc.getQueueStatsMethod = getQueueStatsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.QueueStatsRequest, io.berthsched.berth.v1.QueueStatsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "QueueStats"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.QueueStatsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.QueueStatsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("QueueStats"))
              .build();
        }
      }
    }
    return getQueueStatsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodesRequest,
      io.berthsched.berth.v1.ListNodesResponse> getListNodesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListNodes",
      requestType = io.berthsched.berth.v1.ListNodesRequest.class,
      responseType = io.berthsched.berth.v1.ListNodesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodesRequest,
      io.berthsched.berth.v1.ListNodesResponse> getListNodesMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListNodesRequest, io.berthsched.berth.v1.ListNodesResponse> getListNodesMethod;
    if ((getListNodesMethod = AdminServiceGrpc.getListNodesMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListNodesMethod = AdminServiceGrpc.getListNodesMethod) == null) {
          AdminServiceGrpc.getListNodesMethod = getListNodesMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListNodesRequest, io.berthsched.berth.v1.ListNodesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListNodes"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNodesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListNodesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListNodes"))
              .build();
        }
      }
    }
    return getListNodesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ServerInfoRequest,
      io.berthsched.berth.v1.ServerInfoResponse> getServerInfoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ServerInfo",
      requestType = io.berthsched.berth.v1.ServerInfoRequest.class,
      responseType = io.berthsched.berth.v1.ServerInfoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ServerInfoRequest,
      io.berthsched.berth.v1.ServerInfoResponse> getServerInfoMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ServerInfoRequest, io.berthsched.berth.v1.ServerInfoResponse> getServerInfoMethod;
    if ((getServerInfoMethod = AdminServiceGrpc.getServerInfoMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getServerInfoMethod = AdminServiceGrpc.getServerInfoMethod) == null) {
          AdminServiceGrpc.getServerInfoMethod = getServerInfoMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ServerInfoRequest, io.berthsched.berth.v1.ServerInfoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ServerInfo"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ServerInfoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ServerInfoResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ServerInfo"))
              .build();
        }
      }
    }
    return getServerInfoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListDeviceObjectsRequest,
      io.berthsched.berth.v1.ListDeviceObjectsResponse> getListDeviceObjectsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDeviceObjects",
      requestType = io.berthsched.berth.v1.ListDeviceObjectsRequest.class,
      responseType = io.berthsched.berth.v1.ListDeviceObjectsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListDeviceObjectsRequest,
      io.berthsched.berth.v1.ListDeviceObjectsResponse> getListDeviceObjectsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListDeviceObjectsRequest, io.berthsched.berth.v1.ListDeviceObjectsResponse> getListDeviceObjectsMethod;
    if ((getListDeviceObjectsMethod = AdminServiceGrpc.getListDeviceObjectsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListDeviceObjectsMethod = AdminServiceGrpc.getListDeviceObjectsMethod) == null) {
          AdminServiceGrpc.getListDeviceObjectsMethod = getListDeviceObjectsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListDeviceObjectsRequest, io.berthsched.berth.v1.ListDeviceObjectsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDeviceObjects"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListDeviceObjectsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListDeviceObjectsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListDeviceObjects"))
              .build();
        }
      }
    }
    return getListDeviceObjectsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.DescheduleRequest,
      io.berthsched.berth.v1.DescheduleResponse> getDescheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Deschedule",
      requestType = io.berthsched.berth.v1.DescheduleRequest.class,
      responseType = io.berthsched.berth.v1.DescheduleResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.DescheduleRequest,
      io.berthsched.berth.v1.DescheduleResponse> getDescheduleMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.DescheduleRequest, io.berthsched.berth.v1.DescheduleResponse> getDescheduleMethod;
    if ((getDescheduleMethod = AdminServiceGrpc.getDescheduleMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getDescheduleMethod = AdminServiceGrpc.getDescheduleMethod) == null) {
          AdminServiceGrpc.getDescheduleMethod = getDescheduleMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.DescheduleRequest, io.berthsched.berth.v1.DescheduleResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Deschedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.DescheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.DescheduleResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("Deschedule"))
              .build();
        }
      }
    }
    return getDescheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListVolumeObjectsRequest,
      io.berthsched.berth.v1.ListVolumeObjectsResponse> getListVolumeObjectsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListVolumeObjects",
      requestType = io.berthsched.berth.v1.ListVolumeObjectsRequest.class,
      responseType = io.berthsched.berth.v1.ListVolumeObjectsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListVolumeObjectsRequest,
      io.berthsched.berth.v1.ListVolumeObjectsResponse> getListVolumeObjectsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListVolumeObjectsRequest, io.berthsched.berth.v1.ListVolumeObjectsResponse> getListVolumeObjectsMethod;
    if ((getListVolumeObjectsMethod = AdminServiceGrpc.getListVolumeObjectsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListVolumeObjectsMethod = AdminServiceGrpc.getListVolumeObjectsMethod) == null) {
          AdminServiceGrpc.getListVolumeObjectsMethod = getListVolumeObjectsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListVolumeObjectsRequest, io.berthsched.berth.v1.ListVolumeObjectsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListVolumeObjects"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListVolumeObjectsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListVolumeObjectsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListVolumeObjects"))
              .build();
        }
      }
    }
    return getListVolumeObjectsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListQueueObjectsRequest,
      io.berthsched.berth.v1.ListQueueObjectsResponse> getListQueueObjectsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListQueueObjects",
      requestType = io.berthsched.berth.v1.ListQueueObjectsRequest.class,
      responseType = io.berthsched.berth.v1.ListQueueObjectsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListQueueObjectsRequest,
      io.berthsched.berth.v1.ListQueueObjectsResponse> getListQueueObjectsMethod() {
    io.grpc.MethodDescriptor<io.berthsched.berth.v1.ListQueueObjectsRequest, io.berthsched.berth.v1.ListQueueObjectsResponse> getListQueueObjectsMethod;
    if ((getListQueueObjectsMethod = AdminServiceGrpc.getListQueueObjectsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListQueueObjectsMethod = AdminServiceGrpc.getListQueueObjectsMethod) == null) {
          AdminServiceGrpc.getListQueueObjectsMethod = getListQueueObjectsMethod =
              io.grpc.MethodDescriptor.<io.berthsched.berth.v1.ListQueueObjectsRequest, io.berthsched.berth.v1.ListQueueObjectsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListQueueObjects"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListQueueObjectsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  io.berthsched.berth.v1.ListQueueObjectsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListQueueObjects"))
              .build();
        }
      }
    }
    return getListQueueObjectsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AdminServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub>() {
        @java.lang.Override
        public AdminServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceStub(channel, callOptions);
        }
      };
    return AdminServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AdminServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub>() {
        @java.lang.Override
        public AdminServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingStub(channel, callOptions);
        }
      };
    return AdminServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AdminServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub>() {
        @java.lang.Override
        public AdminServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceFutureStub(channel, callOptions);
        }
      };
    return AdminServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * AdminService answers questions about the scheduler for operators and
   * tools. Nothing in it changes what the scheduler does.
   * Every RPC of berth.v1 may also fail with these codes, which no RPC lists
   * again:
   *   - UNAUTHENTICATED: berthd runs with --token-file and the call carries no
   *     "authorization: Bearer &lt;token&gt;" metadata, a malformed one, or a token
   *     the file does not list;
   *   - PERMISSION_DENIED: the token is read-only and the RPC changes state
   *     (every StateService RPC); DecisionService and AdminService accept
   *     read-only tokens;
   *   - UNAVAILABLE: berthd is unreachable or shutting down; also what client
   *     libraries report when the TLS handshake fails, for example without a
   *     client certificate berthd's --tls-client-ca accepts;
   *   - RESOURCE_EXHAUSTED: a request message larger than berthd accepts
   *     (16 MiB);
   *   - DEADLINE_EXCEEDED, CANCELLED: the caller's deadline passed or the
   *     caller cancelled;
   *   - INTERNAL: a bug in Berth; the status message says what failed.
   * </pre>
   */
  public static abstract class AdminServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Explain tells where a pod stands: its sub-queue, attempts, backoff,
     * nomination and the diagnosis of its last failed attempt, with, for a
     * pod claiming devices, which claim or request each node cannot satisfy.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace or pod.name missing;
     *   - NOT_FOUND: Berth holds no such pod (or none with pod.uid, if set).
     * </pre>
     */
    public void explain(io.berthsched.berth.v1.ExplainRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ExplainResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExplainMethod(), responseObserver);
    }

    /**
     * <pre>
     * Simulate answers "what if": it copies the current cluster, applies
     * cluster_delta and cluster_removals to the copy, and schedules pods on
     * it one at a time. Nothing is committed: no decision is made, the queue
     * and the cluster are untouched.
     * The simulation is the one berthctl simulate runs offline, and
     * deterministic, unlike the live scheduler: pods go in queue order (the
     * first profile's QueueSort, by default priority then creation_time,
     * then the order given); ties between nodes of equal score go to the
     * smallest node name; a bound pod starts one simulated second after the
     * previous one; the victims of a preemption are removed at once and the
     * preemptor is tried again immediately. Pods with node_name set are
     * placed as given, not scheduled. Pending pods Berth holds are not
     * scheduled, but their nominations keep room as they do live. A pod
     * refused at admission (an unknown PriorityClass) is reported as ERROR,
     * one no profile serves as SKIPPED.
     * Fails with:
     *   - INVALID_ARGUMENT: an object or pod is malformed; the status carries
     *     a google.rpc.BadRequest naming the field, for example
     *     "pods[2].containers[0].name";
     *   - FAILED_PRECONDITION: scheduler_name names no profile Berth runs, or
     *     a pod of cluster_delta names an unknown PriorityClass;
     *   - RESOURCE_EXHAUSTED: the request or its work goes beyond one of
     *     berthd's simulation limits: more cluster_delta plus
     *     cluster_removals entries or more pods than allowed, more attempts,
     *     a response larger than allowed (ask again with summary set, or
     *     fewer pods), or a run longer than allowed (a call beyond the
     *     simulations allowed at once waits for one to end, within its own
     *     deadline). The message names the limit and the berthd flag
     *     raising it; the status carries a google.rpc.ErrorInfo of reason
     *     SIMULATION_LIMIT whose metadata "limit" is the flag's name and
     *     "value" its setting;
     *   - UNAVAILABLE: berthd is shutting down (a simulation in flight is
     *     stopped);
     *   - UNIMPLEMENTED: this berthd was built without a plugin registry to
     *     simulate with (berthd itself always has one).
     * </pre>
     */
    public void simulate(io.berthsched.berth.v1.SimulateRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SimulateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSimulateMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListPending lists the pods Berth holds that are not bound yet, ordered
     * by namespace then name, one page at a time. Pages are read from the
     * live queue, not a snapshot: a pod added or removed between pages may be
     * missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * or states holding QUEUE_STATE_UNSPECIFIED or QUEUE_STATE_BOUND.
     * </pre>
     */
    public void listPending(io.berthsched.berth.v1.ListPendingRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPendingResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPendingMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListPods lists every pod Berth holds, bound ones included, each with
     * where it stands (state), ordered by namespace then name, one page at a
     * time: ListPending's pods and the bound ones, which ListPending leaves
     * out. Pages are read from the live cluster, not a snapshot: a pod added
     * or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * states holding QUEUE_STATE_UNSPECIFIED or an unknown value, namespace
     * or node not a DNS-1123 name, or contains longer than 253 bytes.
     * </pre>
     */
    public void listPods(io.berthsched.berth.v1.ListPodsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPodsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPodsMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListNominations lists the nominations in force (see Nominate), ordered
     * by pod namespace then name, one page at a time.
     * Nominations restored from Berth's store at startup are listed too, with
     * restored set, until their pods are re-sent (see Nomination.restored).
     * With --store etcd, a follower replica answers it too, from the
     * nominations in the shared store: the leader's, with the same order and
     * page tokens (a listing may go on from one replica to another), each
     * with restored set (a follower holds no pods), as the next leader lists
     * them when it takes over.
     * Fails with INVALID_ARGUMENT: page_size negative or page_token
     * malformed.
     * </pre>
     */
    public void listNominations(io.berthsched.berth.v1.ListNominationsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNominationsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListNominationsMethod(), responseObserver);
    }

    /**
     * <pre>
     * QueueStats counts the pods in each state and the scheduling attempts
     * made since Berth started.
     * Fails with NOT_FOUND: scheduler_name is set, Berth runs no profile of
     * that name and holds no pod naming it.
     * </pre>
     */
    public void queueStats(io.berthsched.berth.v1.QueueStatsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.QueueStatsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getQueueStatsMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListNodes lists the nodes Berth holds with what their pods use, ordered
     * by name, one page at a time: the scheduler's own accounting, the
     * numbers its filters and scores work with. Pods count on a node from the
     * moment Berth binds them there (QUEUE_STATE_BINDING) or the caller sends
     * them with node_name set, until they are deleted, whether or not they
     * are terminating. Pages are read from the live cluster, not a snapshot:
     * a node added or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed
     * or match_labels holding an empty key.
     * </pre>
     */
    public void listNodes(io.berthsched.berth.v1.ListNodesRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListNodesMethod(), responseObserver);
    }

    /**
     * <pre>
     * ServerInfo says which build of berthd answers and whether it still
     * waits for the orchestrator's first re-list after a restart. berthd
     * keeps its decisions, nominations and binds awaiting an outcome across
     * restarts, not nodes and pods: after a restart it holds only what was
     * sent since, so listings may be empty and Explain may answer NOT_FOUND
     * until the orchestrator re-lists (see StateService.Sync). Tools call it
     * to say so. With --store etcd, every replica answers it, with its role
     * and the leader's address and term.
     * Fails with no code of its own.
     * </pre>
     */
    public void serverInfo(io.berthsched.berth.v1.ServerInfoRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ServerInfoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getServerInfoMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListDeviceObjects lists the dynamic resource allocation objects Berth
     * holds of one kind, by namespace and name: DeviceClasses,
     * ResourceSlices, ResourceClaimTemplates, or ResourceClaims with their
     * allocation and the pods they are reserved for (status), claims made
     * from templates included. A claim whose allocation is in flight (its
     * pod reserved, its Bind not yet written) is shown with it.
     * Fails with INVALID_ARGUMENT: kind not one of the four, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listDeviceObjects(io.berthsched.berth.v1.ListDeviceObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListDeviceObjectsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDeviceObjectsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deschedule runs berthd's descheduler policy (--descheduler-policy): one
     * pass of the Kubernetes Descheduler's strategies, each eviction kept
     * only if Berth's scheduler places the pod's replacement on another node
     * and the violation or imbalance is reduced there. Unless dry_run, the
     * moves are evicted (cause DESCHEDULE, within disruption budgets, at most
     * one Evict per pod). With last, returns the last plan made.
     * Fails with FAILED_PRECONDITION: berthd runs no descheduler policy.
     * </pre>
     */
    public void deschedule(io.berthsched.berth.v1.DescheduleRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DescheduleResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDescheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListVolumeObjects lists the storage objects Berth holds of one kind,
     * by namespace and name: PersistentVolumes, PersistentVolumeClaims
     * (those made for pods' ephemeral volumes included), StorageClasses,
     * CSINodes, CSIDrivers or CSIStorageCapacities.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listVolumeObjects(io.berthsched.berth.v1.ListVolumeObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListVolumeObjectsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListVolumeObjectsMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListQueueObjects lists the queueing objects (Kueue's) Berth holds of
     * one kind, by namespace and name: ResourceFlavors, ClusterQueues,
     * Cohorts, LocalQueues, WorkloadPriorityClasses or Workloads. For
     * ClusterQueues and Workloads it adds their status from the admission
     * controller, when berthd runs one; workloads derived from pods and pod
     * groups exist only there, and are listed by their status alone.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listQueueObjects(io.berthsched.berth.v1.ListQueueObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListQueueObjectsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListQueueObjectsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getExplainMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ExplainRequest,
                io.berthsched.berth.v1.ExplainResponse>(
                  this, METHODID_EXPLAIN)))
          .addMethod(
            getSimulateMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.SimulateRequest,
                io.berthsched.berth.v1.SimulateResponse>(
                  this, METHODID_SIMULATE)))
          .addMethod(
            getListPendingMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListPendingRequest,
                io.berthsched.berth.v1.ListPendingResponse>(
                  this, METHODID_LIST_PENDING)))
          .addMethod(
            getListPodsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListPodsRequest,
                io.berthsched.berth.v1.ListPodsResponse>(
                  this, METHODID_LIST_PODS)))
          .addMethod(
            getListNominationsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListNominationsRequest,
                io.berthsched.berth.v1.ListNominationsResponse>(
                  this, METHODID_LIST_NOMINATIONS)))
          .addMethod(
            getQueueStatsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.QueueStatsRequest,
                io.berthsched.berth.v1.QueueStatsResponse>(
                  this, METHODID_QUEUE_STATS)))
          .addMethod(
            getListNodesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListNodesRequest,
                io.berthsched.berth.v1.ListNodesResponse>(
                  this, METHODID_LIST_NODES)))
          .addMethod(
            getServerInfoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ServerInfoRequest,
                io.berthsched.berth.v1.ServerInfoResponse>(
                  this, METHODID_SERVER_INFO)))
          .addMethod(
            getListDeviceObjectsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListDeviceObjectsRequest,
                io.berthsched.berth.v1.ListDeviceObjectsResponse>(
                  this, METHODID_LIST_DEVICE_OBJECTS)))
          .addMethod(
            getDescheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.DescheduleRequest,
                io.berthsched.berth.v1.DescheduleResponse>(
                  this, METHODID_DESCHEDULE)))
          .addMethod(
            getListVolumeObjectsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListVolumeObjectsRequest,
                io.berthsched.berth.v1.ListVolumeObjectsResponse>(
                  this, METHODID_LIST_VOLUME_OBJECTS)))
          .addMethod(
            getListQueueObjectsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                io.berthsched.berth.v1.ListQueueObjectsRequest,
                io.berthsched.berth.v1.ListQueueObjectsResponse>(
                  this, METHODID_LIST_QUEUE_OBJECTS)))
          .build();
    }
  }

  /**
   * <pre>
   * AdminService answers questions about the scheduler for operators and
   * tools. Nothing in it changes what the scheduler does.
   * Every RPC of berth.v1 may also fail with these codes, which no RPC lists
   * again:
   *   - UNAUTHENTICATED: berthd runs with --token-file and the call carries no
   *     "authorization: Bearer &lt;token&gt;" metadata, a malformed one, or a token
   *     the file does not list;
   *   - PERMISSION_DENIED: the token is read-only and the RPC changes state
   *     (every StateService RPC); DecisionService and AdminService accept
   *     read-only tokens;
   *   - UNAVAILABLE: berthd is unreachable or shutting down; also what client
   *     libraries report when the TLS handshake fails, for example without a
   *     client certificate berthd's --tls-client-ca accepts;
   *   - RESOURCE_EXHAUSTED: a request message larger than berthd accepts
   *     (16 MiB);
   *   - DEADLINE_EXCEEDED, CANCELLED: the caller's deadline passed or the
   *     caller cancelled;
   *   - INTERNAL: a bug in Berth; the status message says what failed.
   * </pre>
   */
  public static final class AdminServiceStub extends io.grpc.stub.AbstractAsyncStub<AdminServiceStub> {
    private AdminServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Explain tells where a pod stands: its sub-queue, attempts, backoff,
     * nomination and the diagnosis of its last failed attempt, with, for a
     * pod claiming devices, which claim or request each node cannot satisfy.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace or pod.name missing;
     *   - NOT_FOUND: Berth holds no such pod (or none with pod.uid, if set).
     * </pre>
     */
    public void explain(io.berthsched.berth.v1.ExplainRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ExplainResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExplainMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Simulate answers "what if": it copies the current cluster, applies
     * cluster_delta and cluster_removals to the copy, and schedules pods on
     * it one at a time. Nothing is committed: no decision is made, the queue
     * and the cluster are untouched.
     * The simulation is the one berthctl simulate runs offline, and
     * deterministic, unlike the live scheduler: pods go in queue order (the
     * first profile's QueueSort, by default priority then creation_time,
     * then the order given); ties between nodes of equal score go to the
     * smallest node name; a bound pod starts one simulated second after the
     * previous one; the victims of a preemption are removed at once and the
     * preemptor is tried again immediately. Pods with node_name set are
     * placed as given, not scheduled. Pending pods Berth holds are not
     * scheduled, but their nominations keep room as they do live. A pod
     * refused at admission (an unknown PriorityClass) is reported as ERROR,
     * one no profile serves as SKIPPED.
     * Fails with:
     *   - INVALID_ARGUMENT: an object or pod is malformed; the status carries
     *     a google.rpc.BadRequest naming the field, for example
     *     "pods[2].containers[0].name";
     *   - FAILED_PRECONDITION: scheduler_name names no profile Berth runs, or
     *     a pod of cluster_delta names an unknown PriorityClass;
     *   - RESOURCE_EXHAUSTED: the request or its work goes beyond one of
     *     berthd's simulation limits: more cluster_delta plus
     *     cluster_removals entries or more pods than allowed, more attempts,
     *     a response larger than allowed (ask again with summary set, or
     *     fewer pods), or a run longer than allowed (a call beyond the
     *     simulations allowed at once waits for one to end, within its own
     *     deadline). The message names the limit and the berthd flag
     *     raising it; the status carries a google.rpc.ErrorInfo of reason
     *     SIMULATION_LIMIT whose metadata "limit" is the flag's name and
     *     "value" its setting;
     *   - UNAVAILABLE: berthd is shutting down (a simulation in flight is
     *     stopped);
     *   - UNIMPLEMENTED: this berthd was built without a plugin registry to
     *     simulate with (berthd itself always has one).
     * </pre>
     */
    public void simulate(io.berthsched.berth.v1.SimulateRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SimulateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSimulateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListPending lists the pods Berth holds that are not bound yet, ordered
     * by namespace then name, one page at a time. Pages are read from the
     * live queue, not a snapshot: a pod added or removed between pages may be
     * missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * or states holding QUEUE_STATE_UNSPECIFIED or QUEUE_STATE_BOUND.
     * </pre>
     */
    public void listPending(io.berthsched.berth.v1.ListPendingRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPendingResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPendingMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListPods lists every pod Berth holds, bound ones included, each with
     * where it stands (state), ordered by namespace then name, one page at a
     * time: ListPending's pods and the bound ones, which ListPending leaves
     * out. Pages are read from the live cluster, not a snapshot: a pod added
     * or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * states holding QUEUE_STATE_UNSPECIFIED or an unknown value, namespace
     * or node not a DNS-1123 name, or contains longer than 253 bytes.
     * </pre>
     */
    public void listPods(io.berthsched.berth.v1.ListPodsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPodsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPodsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListNominations lists the nominations in force (see Nominate), ordered
     * by pod namespace then name, one page at a time.
     * Nominations restored from Berth's store at startup are listed too, with
     * restored set, until their pods are re-sent (see Nomination.restored).
     * With --store etcd, a follower replica answers it too, from the
     * nominations in the shared store: the leader's, with the same order and
     * page tokens (a listing may go on from one replica to another), each
     * with restored set (a follower holds no pods), as the next leader lists
     * them when it takes over.
     * Fails with INVALID_ARGUMENT: page_size negative or page_token
     * malformed.
     * </pre>
     */
    public void listNominations(io.berthsched.berth.v1.ListNominationsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNominationsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListNominationsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * QueueStats counts the pods in each state and the scheduling attempts
     * made since Berth started.
     * Fails with NOT_FOUND: scheduler_name is set, Berth runs no profile of
     * that name and holds no pod naming it.
     * </pre>
     */
    public void queueStats(io.berthsched.berth.v1.QueueStatsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.QueueStatsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getQueueStatsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListNodes lists the nodes Berth holds with what their pods use, ordered
     * by name, one page at a time: the scheduler's own accounting, the
     * numbers its filters and scores work with. Pods count on a node from the
     * moment Berth binds them there (QUEUE_STATE_BINDING) or the caller sends
     * them with node_name set, until they are deleted, whether or not they
     * are terminating. Pages are read from the live cluster, not a snapshot:
     * a node added or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed
     * or match_labels holding an empty key.
     * </pre>
     */
    public void listNodes(io.berthsched.berth.v1.ListNodesRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListNodesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ServerInfo says which build of berthd answers and whether it still
     * waits for the orchestrator's first re-list after a restart. berthd
     * keeps its decisions, nominations and binds awaiting an outcome across
     * restarts, not nodes and pods: after a restart it holds only what was
     * sent since, so listings may be empty and Explain may answer NOT_FOUND
     * until the orchestrator re-lists (see StateService.Sync). Tools call it
     * to say so. With --store etcd, every replica answers it, with its role
     * and the leader's address and term.
     * Fails with no code of its own.
     * </pre>
     */
    public void serverInfo(io.berthsched.berth.v1.ServerInfoRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ServerInfoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getServerInfoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListDeviceObjects lists the dynamic resource allocation objects Berth
     * holds of one kind, by namespace and name: DeviceClasses,
     * ResourceSlices, ResourceClaimTemplates, or ResourceClaims with their
     * allocation and the pods they are reserved for (status), claims made
     * from templates included. A claim whose allocation is in flight (its
     * pod reserved, its Bind not yet written) is shown with it.
     * Fails with INVALID_ARGUMENT: kind not one of the four, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listDeviceObjects(io.berthsched.berth.v1.ListDeviceObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListDeviceObjectsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDeviceObjectsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deschedule runs berthd's descheduler policy (--descheduler-policy): one
     * pass of the Kubernetes Descheduler's strategies, each eviction kept
     * only if Berth's scheduler places the pod's replacement on another node
     * and the violation or imbalance is reduced there. Unless dry_run, the
     * moves are evicted (cause DESCHEDULE, within disruption budgets, at most
     * one Evict per pod). With last, returns the last plan made.
     * Fails with FAILED_PRECONDITION: berthd runs no descheduler policy.
     * </pre>
     */
    public void deschedule(io.berthsched.berth.v1.DescheduleRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DescheduleResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDescheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListVolumeObjects lists the storage objects Berth holds of one kind,
     * by namespace and name: PersistentVolumes, PersistentVolumeClaims
     * (those made for pods' ephemeral volumes included), StorageClasses,
     * CSINodes, CSIDrivers or CSIStorageCapacities.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listVolumeObjects(io.berthsched.berth.v1.ListVolumeObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListVolumeObjectsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListVolumeObjectsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListQueueObjects lists the queueing objects (Kueue's) Berth holds of
     * one kind, by namespace and name: ResourceFlavors, ClusterQueues,
     * Cohorts, LocalQueues, WorkloadPriorityClasses or Workloads. For
     * ClusterQueues and Workloads it adds their status from the admission
     * controller, when berthd runs one; workloads derived from pods and pod
     * groups exist only there, and are listed by their status alone.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public void listQueueObjects(io.berthsched.berth.v1.ListQueueObjectsRequest request,
        io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListQueueObjectsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListQueueObjectsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * AdminService answers questions about the scheduler for operators and
   * tools. Nothing in it changes what the scheduler does.
   * Every RPC of berth.v1 may also fail with these codes, which no RPC lists
   * again:
   *   - UNAUTHENTICATED: berthd runs with --token-file and the call carries no
   *     "authorization: Bearer &lt;token&gt;" metadata, a malformed one, or a token
   *     the file does not list;
   *   - PERMISSION_DENIED: the token is read-only and the RPC changes state
   *     (every StateService RPC); DecisionService and AdminService accept
   *     read-only tokens;
   *   - UNAVAILABLE: berthd is unreachable or shutting down; also what client
   *     libraries report when the TLS handshake fails, for example without a
   *     client certificate berthd's --tls-client-ca accepts;
   *   - RESOURCE_EXHAUSTED: a request message larger than berthd accepts
   *     (16 MiB);
   *   - DEADLINE_EXCEEDED, CANCELLED: the caller's deadline passed or the
   *     caller cancelled;
   *   - INTERNAL: a bug in Berth; the status message says what failed.
   * </pre>
   */
  public static final class AdminServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingStub> {
    private AdminServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Explain tells where a pod stands: its sub-queue, attempts, backoff,
     * nomination and the diagnosis of its last failed attempt, with, for a
     * pod claiming devices, which claim or request each node cannot satisfy.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace or pod.name missing;
     *   - NOT_FOUND: Berth holds no such pod (or none with pod.uid, if set).
     * </pre>
     */
    public io.berthsched.berth.v1.ExplainResponse explain(io.berthsched.berth.v1.ExplainRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExplainMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Simulate answers "what if": it copies the current cluster, applies
     * cluster_delta and cluster_removals to the copy, and schedules pods on
     * it one at a time. Nothing is committed: no decision is made, the queue
     * and the cluster are untouched.
     * The simulation is the one berthctl simulate runs offline, and
     * deterministic, unlike the live scheduler: pods go in queue order (the
     * first profile's QueueSort, by default priority then creation_time,
     * then the order given); ties between nodes of equal score go to the
     * smallest node name; a bound pod starts one simulated second after the
     * previous one; the victims of a preemption are removed at once and the
     * preemptor is tried again immediately. Pods with node_name set are
     * placed as given, not scheduled. Pending pods Berth holds are not
     * scheduled, but their nominations keep room as they do live. A pod
     * refused at admission (an unknown PriorityClass) is reported as ERROR,
     * one no profile serves as SKIPPED.
     * Fails with:
     *   - INVALID_ARGUMENT: an object or pod is malformed; the status carries
     *     a google.rpc.BadRequest naming the field, for example
     *     "pods[2].containers[0].name";
     *   - FAILED_PRECONDITION: scheduler_name names no profile Berth runs, or
     *     a pod of cluster_delta names an unknown PriorityClass;
     *   - RESOURCE_EXHAUSTED: the request or its work goes beyond one of
     *     berthd's simulation limits: more cluster_delta plus
     *     cluster_removals entries or more pods than allowed, more attempts,
     *     a response larger than allowed (ask again with summary set, or
     *     fewer pods), or a run longer than allowed (a call beyond the
     *     simulations allowed at once waits for one to end, within its own
     *     deadline). The message names the limit and the berthd flag
     *     raising it; the status carries a google.rpc.ErrorInfo of reason
     *     SIMULATION_LIMIT whose metadata "limit" is the flag's name and
     *     "value" its setting;
     *   - UNAVAILABLE: berthd is shutting down (a simulation in flight is
     *     stopped);
     *   - UNIMPLEMENTED: this berthd was built without a plugin registry to
     *     simulate with (berthd itself always has one).
     * </pre>
     */
    public io.berthsched.berth.v1.SimulateResponse simulate(io.berthsched.berth.v1.SimulateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSimulateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListPending lists the pods Berth holds that are not bound yet, ordered
     * by namespace then name, one page at a time. Pages are read from the
     * live queue, not a snapshot: a pod added or removed between pages may be
     * missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * or states holding QUEUE_STATE_UNSPECIFIED or QUEUE_STATE_BOUND.
     * </pre>
     */
    public io.berthsched.berth.v1.ListPendingResponse listPending(io.berthsched.berth.v1.ListPendingRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPendingMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListPods lists every pod Berth holds, bound ones included, each with
     * where it stands (state), ordered by namespace then name, one page at a
     * time: ListPending's pods and the bound ones, which ListPending leaves
     * out. Pages are read from the live cluster, not a snapshot: a pod added
     * or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * states holding QUEUE_STATE_UNSPECIFIED or an unknown value, namespace
     * or node not a DNS-1123 name, or contains longer than 253 bytes.
     * </pre>
     */
    public io.berthsched.berth.v1.ListPodsResponse listPods(io.berthsched.berth.v1.ListPodsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPodsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListNominations lists the nominations in force (see Nominate), ordered
     * by pod namespace then name, one page at a time.
     * Nominations restored from Berth's store at startup are listed too, with
     * restored set, until their pods are re-sent (see Nomination.restored).
     * With --store etcd, a follower replica answers it too, from the
     * nominations in the shared store: the leader's, with the same order and
     * page tokens (a listing may go on from one replica to another), each
     * with restored set (a follower holds no pods), as the next leader lists
     * them when it takes over.
     * Fails with INVALID_ARGUMENT: page_size negative or page_token
     * malformed.
     * </pre>
     */
    public io.berthsched.berth.v1.ListNominationsResponse listNominations(io.berthsched.berth.v1.ListNominationsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListNominationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * QueueStats counts the pods in each state and the scheduling attempts
     * made since Berth started.
     * Fails with NOT_FOUND: scheduler_name is set, Berth runs no profile of
     * that name and holds no pod naming it.
     * </pre>
     */
    public io.berthsched.berth.v1.QueueStatsResponse queueStats(io.berthsched.berth.v1.QueueStatsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getQueueStatsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListNodes lists the nodes Berth holds with what their pods use, ordered
     * by name, one page at a time: the scheduler's own accounting, the
     * numbers its filters and scores work with. Pods count on a node from the
     * moment Berth binds them there (QUEUE_STATE_BINDING) or the caller sends
     * them with node_name set, until they are deleted, whether or not they
     * are terminating. Pages are read from the live cluster, not a snapshot:
     * a node added or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed
     * or match_labels holding an empty key.
     * </pre>
     */
    public io.berthsched.berth.v1.ListNodesResponse listNodes(io.berthsched.berth.v1.ListNodesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListNodesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ServerInfo says which build of berthd answers and whether it still
     * waits for the orchestrator's first re-list after a restart. berthd
     * keeps its decisions, nominations and binds awaiting an outcome across
     * restarts, not nodes and pods: after a restart it holds only what was
     * sent since, so listings may be empty and Explain may answer NOT_FOUND
     * until the orchestrator re-lists (see StateService.Sync). Tools call it
     * to say so. With --store etcd, every replica answers it, with its role
     * and the leader's address and term.
     * Fails with no code of its own.
     * </pre>
     */
    public io.berthsched.berth.v1.ServerInfoResponse serverInfo(io.berthsched.berth.v1.ServerInfoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getServerInfoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListDeviceObjects lists the dynamic resource allocation objects Berth
     * holds of one kind, by namespace and name: DeviceClasses,
     * ResourceSlices, ResourceClaimTemplates, or ResourceClaims with their
     * allocation and the pods they are reserved for (status), claims made
     * from templates included. A claim whose allocation is in flight (its
     * pod reserved, its Bind not yet written) is shown with it.
     * Fails with INVALID_ARGUMENT: kind not one of the four, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public io.berthsched.berth.v1.ListDeviceObjectsResponse listDeviceObjects(io.berthsched.berth.v1.ListDeviceObjectsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDeviceObjectsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deschedule runs berthd's descheduler policy (--descheduler-policy): one
     * pass of the Kubernetes Descheduler's strategies, each eviction kept
     * only if Berth's scheduler places the pod's replacement on another node
     * and the violation or imbalance is reduced there. Unless dry_run, the
     * moves are evicted (cause DESCHEDULE, within disruption budgets, at most
     * one Evict per pod). With last, returns the last plan made.
     * Fails with FAILED_PRECONDITION: berthd runs no descheduler policy.
     * </pre>
     */
    public io.berthsched.berth.v1.DescheduleResponse deschedule(io.berthsched.berth.v1.DescheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDescheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListVolumeObjects lists the storage objects Berth holds of one kind,
     * by namespace and name: PersistentVolumes, PersistentVolumeClaims
     * (those made for pods' ephemeral volumes included), StorageClasses,
     * CSINodes, CSIDrivers or CSIStorageCapacities.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public io.berthsched.berth.v1.ListVolumeObjectsResponse listVolumeObjects(io.berthsched.berth.v1.ListVolumeObjectsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListVolumeObjectsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListQueueObjects lists the queueing objects (Kueue's) Berth holds of
     * one kind, by namespace and name: ResourceFlavors, ClusterQueues,
     * Cohorts, LocalQueues, WorkloadPriorityClasses or Workloads. For
     * ClusterQueues and Workloads it adds their status from the admission
     * controller, when berthd runs one; workloads derived from pods and pod
     * groups exist only there, and are listed by their status alone.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public io.berthsched.berth.v1.ListQueueObjectsResponse listQueueObjects(io.berthsched.berth.v1.ListQueueObjectsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListQueueObjectsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * AdminService answers questions about the scheduler for operators and
   * tools. Nothing in it changes what the scheduler does.
   * Every RPC of berth.v1 may also fail with these codes, which no RPC lists
   * again:
   *   - UNAUTHENTICATED: berthd runs with --token-file and the call carries no
   *     "authorization: Bearer &lt;token&gt;" metadata, a malformed one, or a token
   *     the file does not list;
   *   - PERMISSION_DENIED: the token is read-only and the RPC changes state
   *     (every StateService RPC); DecisionService and AdminService accept
   *     read-only tokens;
   *   - UNAVAILABLE: berthd is unreachable or shutting down; also what client
   *     libraries report when the TLS handshake fails, for example without a
   *     client certificate berthd's --tls-client-ca accepts;
   *   - RESOURCE_EXHAUSTED: a request message larger than berthd accepts
   *     (16 MiB);
   *   - DEADLINE_EXCEEDED, CANCELLED: the caller's deadline passed or the
   *     caller cancelled;
   *   - INTERNAL: a bug in Berth; the status message says what failed.
   * </pre>
   */
  public static final class AdminServiceFutureStub extends io.grpc.stub.AbstractFutureStub<AdminServiceFutureStub> {
    private AdminServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Explain tells where a pod stands: its sub-queue, attempts, backoff,
     * nomination and the diagnosis of its last failed attempt, with, for a
     * pod claiming devices, which claim or request each node cannot satisfy.
     * Fails with:
     *   - INVALID_ARGUMENT: pod.namespace or pod.name missing;
     *   - NOT_FOUND: Berth holds no such pod (or none with pod.uid, if set).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ExplainResponse> explain(
        io.berthsched.berth.v1.ExplainRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExplainMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Simulate answers "what if": it copies the current cluster, applies
     * cluster_delta and cluster_removals to the copy, and schedules pods on
     * it one at a time. Nothing is committed: no decision is made, the queue
     * and the cluster are untouched.
     * The simulation is the one berthctl simulate runs offline, and
     * deterministic, unlike the live scheduler: pods go in queue order (the
     * first profile's QueueSort, by default priority then creation_time,
     * then the order given); ties between nodes of equal score go to the
     * smallest node name; a bound pod starts one simulated second after the
     * previous one; the victims of a preemption are removed at once and the
     * preemptor is tried again immediately. Pods with node_name set are
     * placed as given, not scheduled. Pending pods Berth holds are not
     * scheduled, but their nominations keep room as they do live. A pod
     * refused at admission (an unknown PriorityClass) is reported as ERROR,
     * one no profile serves as SKIPPED.
     * Fails with:
     *   - INVALID_ARGUMENT: an object or pod is malformed; the status carries
     *     a google.rpc.BadRequest naming the field, for example
     *     "pods[2].containers[0].name";
     *   - FAILED_PRECONDITION: scheduler_name names no profile Berth runs, or
     *     a pod of cluster_delta names an unknown PriorityClass;
     *   - RESOURCE_EXHAUSTED: the request or its work goes beyond one of
     *     berthd's simulation limits: more cluster_delta plus
     *     cluster_removals entries or more pods than allowed, more attempts,
     *     a response larger than allowed (ask again with summary set, or
     *     fewer pods), or a run longer than allowed (a call beyond the
     *     simulations allowed at once waits for one to end, within its own
     *     deadline). The message names the limit and the berthd flag
     *     raising it; the status carries a google.rpc.ErrorInfo of reason
     *     SIMULATION_LIMIT whose metadata "limit" is the flag's name and
     *     "value" its setting;
     *   - UNAVAILABLE: berthd is shutting down (a simulation in flight is
     *     stopped);
     *   - UNIMPLEMENTED: this berthd was built without a plugin registry to
     *     simulate with (berthd itself always has one).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.SimulateResponse> simulate(
        io.berthsched.berth.v1.SimulateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSimulateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListPending lists the pods Berth holds that are not bound yet, ordered
     * by namespace then name, one page at a time. Pages are read from the
     * live queue, not a snapshot: a pod added or removed between pages may be
     * missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * or states holding QUEUE_STATE_UNSPECIFIED or QUEUE_STATE_BOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListPendingResponse> listPending(
        io.berthsched.berth.v1.ListPendingRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPendingMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListPods lists every pod Berth holds, bound ones included, each with
     * where it stands (state), ordered by namespace then name, one page at a
     * time: ListPending's pods and the bound ones, which ListPending leaves
     * out. Pages are read from the live cluster, not a snapshot: a pod added
     * or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed,
     * states holding QUEUE_STATE_UNSPECIFIED or an unknown value, namespace
     * or node not a DNS-1123 name, or contains longer than 253 bytes.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListPodsResponse> listPods(
        io.berthsched.berth.v1.ListPodsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPodsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListNominations lists the nominations in force (see Nominate), ordered
     * by pod namespace then name, one page at a time.
     * Nominations restored from Berth's store at startup are listed too, with
     * restored set, until their pods are re-sent (see Nomination.restored).
     * With --store etcd, a follower replica answers it too, from the
     * nominations in the shared store: the leader's, with the same order and
     * page tokens (a listing may go on from one replica to another), each
     * with restored set (a follower holds no pods), as the next leader lists
     * them when it takes over.
     * Fails with INVALID_ARGUMENT: page_size negative or page_token
     * malformed.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListNominationsResponse> listNominations(
        io.berthsched.berth.v1.ListNominationsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListNominationsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * QueueStats counts the pods in each state and the scheduling attempts
     * made since Berth started.
     * Fails with NOT_FOUND: scheduler_name is set, Berth runs no profile of
     * that name and holds no pod naming it.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.QueueStatsResponse> queueStats(
        io.berthsched.berth.v1.QueueStatsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getQueueStatsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListNodes lists the nodes Berth holds with what their pods use, ordered
     * by name, one page at a time: the scheduler's own accounting, the
     * numbers its filters and scores work with. Pods count on a node from the
     * moment Berth binds them there (QUEUE_STATE_BINDING) or the caller sends
     * them with node_name set, until they are deleted, whether or not they
     * are terminating. Pages are read from the live cluster, not a snapshot:
     * a node added or removed between pages may be missed.
     * Fails with INVALID_ARGUMENT: page_size negative, page_token malformed
     * or match_labels holding an empty key.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListNodesResponse> listNodes(
        io.berthsched.berth.v1.ListNodesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListNodesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ServerInfo says which build of berthd answers and whether it still
     * waits for the orchestrator's first re-list after a restart. berthd
     * keeps its decisions, nominations and binds awaiting an outcome across
     * restarts, not nodes and pods: after a restart it holds only what was
     * sent since, so listings may be empty and Explain may answer NOT_FOUND
     * until the orchestrator re-lists (see StateService.Sync). Tools call it
     * to say so. With --store etcd, every replica answers it, with its role
     * and the leader's address and term.
     * Fails with no code of its own.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ServerInfoResponse> serverInfo(
        io.berthsched.berth.v1.ServerInfoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getServerInfoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListDeviceObjects lists the dynamic resource allocation objects Berth
     * holds of one kind, by namespace and name: DeviceClasses,
     * ResourceSlices, ResourceClaimTemplates, or ResourceClaims with their
     * allocation and the pods they are reserved for (status), claims made
     * from templates included. A claim whose allocation is in flight (its
     * pod reserved, its Bind not yet written) is shown with it.
     * Fails with INVALID_ARGUMENT: kind not one of the four, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListDeviceObjectsResponse> listDeviceObjects(
        io.berthsched.berth.v1.ListDeviceObjectsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDeviceObjectsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deschedule runs berthd's descheduler policy (--descheduler-policy): one
     * pass of the Kubernetes Descheduler's strategies, each eviction kept
     * only if Berth's scheduler places the pod's replacement on another node
     * and the violation or imbalance is reduced there. Unless dry_run, the
     * moves are evicted (cause DESCHEDULE, within disruption budgets, at most
     * one Evict per pod). With last, returns the last plan made.
     * Fails with FAILED_PRECONDITION: berthd runs no descheduler policy.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.DescheduleResponse> deschedule(
        io.berthsched.berth.v1.DescheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDescheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListVolumeObjects lists the storage objects Berth holds of one kind,
     * by namespace and name: PersistentVolumes, PersistentVolumeClaims
     * (those made for pods' ephemeral volumes included), StorageClasses,
     * CSINodes, CSIDrivers or CSIStorageCapacities.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListVolumeObjectsResponse> listVolumeObjects(
        io.berthsched.berth.v1.ListVolumeObjectsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListVolumeObjectsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListQueueObjects lists the queueing objects (Kueue's) Berth holds of
     * one kind, by namespace and name: ResourceFlavors, ClusterQueues,
     * Cohorts, LocalQueues, WorkloadPriorityClasses or Workloads. For
     * ClusterQueues and Workloads it adds their status from the admission
     * controller, when berthd runs one; workloads derived from pods and pod
     * groups exist only there, and are listed by their status alone.
     * Fails with INVALID_ARGUMENT: kind not one of the six, or namespace
     * set for a cluster-scoped kind.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<io.berthsched.berth.v1.ListQueueObjectsResponse> listQueueObjects(
        io.berthsched.berth.v1.ListQueueObjectsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListQueueObjectsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_EXPLAIN = 0;
  private static final int METHODID_SIMULATE = 1;
  private static final int METHODID_LIST_PENDING = 2;
  private static final int METHODID_LIST_PODS = 3;
  private static final int METHODID_LIST_NOMINATIONS = 4;
  private static final int METHODID_QUEUE_STATS = 5;
  private static final int METHODID_LIST_NODES = 6;
  private static final int METHODID_SERVER_INFO = 7;
  private static final int METHODID_LIST_DEVICE_OBJECTS = 8;
  private static final int METHODID_DESCHEDULE = 9;
  private static final int METHODID_LIST_VOLUME_OBJECTS = 10;
  private static final int METHODID_LIST_QUEUE_OBJECTS = 11;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AdminServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(AdminServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_EXPLAIN:
          serviceImpl.explain((io.berthsched.berth.v1.ExplainRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ExplainResponse>) responseObserver);
          break;
        case METHODID_SIMULATE:
          serviceImpl.simulate((io.berthsched.berth.v1.SimulateRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.SimulateResponse>) responseObserver);
          break;
        case METHODID_LIST_PENDING:
          serviceImpl.listPending((io.berthsched.berth.v1.ListPendingRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPendingResponse>) responseObserver);
          break;
        case METHODID_LIST_PODS:
          serviceImpl.listPods((io.berthsched.berth.v1.ListPodsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListPodsResponse>) responseObserver);
          break;
        case METHODID_LIST_NOMINATIONS:
          serviceImpl.listNominations((io.berthsched.berth.v1.ListNominationsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNominationsResponse>) responseObserver);
          break;
        case METHODID_QUEUE_STATS:
          serviceImpl.queueStats((io.berthsched.berth.v1.QueueStatsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.QueueStatsResponse>) responseObserver);
          break;
        case METHODID_LIST_NODES:
          serviceImpl.listNodes((io.berthsched.berth.v1.ListNodesRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListNodesResponse>) responseObserver);
          break;
        case METHODID_SERVER_INFO:
          serviceImpl.serverInfo((io.berthsched.berth.v1.ServerInfoRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ServerInfoResponse>) responseObserver);
          break;
        case METHODID_LIST_DEVICE_OBJECTS:
          serviceImpl.listDeviceObjects((io.berthsched.berth.v1.ListDeviceObjectsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListDeviceObjectsResponse>) responseObserver);
          break;
        case METHODID_DESCHEDULE:
          serviceImpl.deschedule((io.berthsched.berth.v1.DescheduleRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.DescheduleResponse>) responseObserver);
          break;
        case METHODID_LIST_VOLUME_OBJECTS:
          serviceImpl.listVolumeObjects((io.berthsched.berth.v1.ListVolumeObjectsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListVolumeObjectsResponse>) responseObserver);
          break;
        case METHODID_LIST_QUEUE_OBJECTS:
          serviceImpl.listQueueObjects((io.berthsched.berth.v1.ListQueueObjectsRequest) request,
              (io.grpc.stub.StreamObserver<io.berthsched.berth.v1.ListQueueObjectsResponse>) responseObserver);
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

  private static abstract class AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AdminServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return io.berthsched.berth.v1.AdminServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AdminService");
    }
  }

  private static final class AdminServiceFileDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier {
    AdminServiceFileDescriptorSupplier() {}
  }

  private static final class AdminServiceMethodDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    AdminServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (AdminServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AdminServiceFileDescriptorSupplier())
              .addMethod(getExplainMethod())
              .addMethod(getSimulateMethod())
              .addMethod(getListPendingMethod())
              .addMethod(getListPodsMethod())
              .addMethod(getListNominationsMethod())
              .addMethod(getQueueStatsMethod())
              .addMethod(getListNodesMethod())
              .addMethod(getServerInfoMethod())
              .addMethod(getListDeviceObjectsMethod())
              .addMethod(getDescheduleMethod())
              .addMethod(getListVolumeObjectsMethod())
              .addMethod(getListQueueObjectsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
