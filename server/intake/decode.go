package intake

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/berthsched/berth/server/errmap"
)

// rawMessage is a request message as received: the wrapped handlers ask
// gRPC for one, reserve its size, then decode it.
type rawMessage struct{ data mem.BufferSlice }

// codec is gRPC's proto codec, except that it hands a *rawMessage the
// bytes undecoded.
type codec struct{}

func (codec) Marshal(v any) (mem.BufferSlice, error) { return protoCodec().Marshal(v) }

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*rawMessage); ok {
		data.Ref() // gRPC frees its reference when Unmarshal returns
		r.data = data
		return nil
	}
	return protoCodec().Unmarshal(data, v)
}

func (codec) Name() string { return "proto" }

func protoCodec() encoding.CodecV2 { return encoding.GetCodecV2("proto") }

// receive reads the next request message with recv (gRPC's), reserves its
// size for c and decodes it into m. gRPC's own errors pass unchanged.
func (c *call) receive(recv func(any) error, m any) error {
	var raw rawMessage
	if err := recv(&raw); err != nil {
		return err
	}
	defer raw.data.Free()
	if err := c.reserve(int64(raw.data.Len())); err != nil {
		return err
	}
	buf := raw.data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	msg, ok := m.(proto.Message)
	if !ok {
		if v1, isV1 := m.(protoadapt.MessageV1); isV1 {
			msg, ok = protoadapt.MessageV2Of(v1), true
		}
	}
	if !ok {
		return errmap.Status(fmt.Errorf("intake: %T is not a proto message", m))
	}
	if err := proto.Unmarshal(buf.ReadOnlyData(), msg); err != nil {
		return errmap.Status(errmap.Refuse(errmap.ErrMalformed, "the request is not a valid %s: %v", msg.ProtoReflect().Descriptor().FullName(), err))
	}
	return nil
}

// Registrar wraps r: services registered through it are admitted by in.
// Its GetServiceInfo is r's, so reflection can register through it.
func (in *Intake) Registrar(r reflection.GRPCServer) reflection.GRPCServer {
	return registrar{GRPCServer: r, in: in}
}

type registrar struct {
	reflection.GRPCServer
	in *Intake
}

func (r registrar) RegisterService(sd *grpc.ServiceDesc, impl any) {
	r.GRPCServer.RegisterService(r.in.wrap(sd), impl)
}

// wrap returns sd with every handler admitted by in.
func (in *Intake) wrap(sd *grpc.ServiceDesc) *grpc.ServiceDesc {
	out := *sd
	out.Methods = make([]grpc.MethodDesc, len(sd.Methods))
	for i, m := range sd.Methods {
		out.Methods[i] = grpc.MethodDesc{MethodName: m.MethodName, Handler: in.unary(m.Handler)}
	}
	out.Streams = make([]grpc.StreamDesc, len(sd.Streams))
	for i, s := range sd.Streams {
		s.Handler = in.stream(s.Handler)
		out.Streams[i] = s
	}
	return &out
}

func (in *Intake) unary(h grpc.MethodHandler) grpc.MethodHandler {
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		c, err := in.begin(ctx)
		if err != nil {
			return nil, err
		}
		defer c.end()
		return h(srv, ctx, func(m any) error { return c.receive(dec, m) }, interceptor)
	}
}

func (in *Intake) stream(h grpc.StreamHandler) grpc.StreamHandler {
	return func(srv any, ss grpc.ServerStream) error {
		c, err := in.begin(ss.Context())
		if err != nil {
			return err
		}
		defer c.end()
		return h(srv, &admittedStream{ServerStream: ss, call: c})
	}
}

// admittedStream decodes what its handler receives through the call.
type admittedStream struct {
	grpc.ServerStream
	call *call
}

func (s *admittedStream) RecvMsg(m any) error { return s.call.receive(s.ServerStream.RecvMsg, m) }
