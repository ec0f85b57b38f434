package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/errmap"
)

// sync serves StateService.Sync: one SyncRequest per line of the body, sent
// as it is read; one {"result": SyncResponse} line per ack. It replaces the
// generated handler, which ends the stream quietly at a line it cannot
// decode: here the batches before it are sent and acked, and the response
// ends with {"error": Status} naming the line (a 400 when it is the first).
func (a *API) sync(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	ctx, err := runtime.AnnotateContext(r.Context(), a.mux, r, "/berth.v1.StateService/Sync", runtime.WithHTTPPathPattern(SyncPath))
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	lines := &lineReader{r: bufio.NewReader(r.Body), max: a.maxLine}
	// The first line is read before the stream opens, so that a bad one is
	// answered 400 with nothing sent.
	first, err := lines.next()
	if errors.Is(err, io.EOF) {
		err = errmap.Status(errmap.Refuse(errmap.ErrMalformed, "empty body: Sync wants one SyncRequest (JSON) per line"))
	}
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := a.state.Sync(ctx)
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	// sendErr receives why sending stopped (nil at the end of the body)
	// before the stream is half-closed, so the server's end of the stream,
	// which follows the half-close, finds it there.
	sendErr := make(chan error, 1)
	go func() {
		req := first
		for {
			if err := stream.Send(req); err != nil {
				sendErr <- nil // the server ended the stream: Recv tells why
				return
			}
			var err error
			if req, err = lines.next(); err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				sendErr <- err
				_ = stream.CloseSend()
				return
			}
		}
	}()

	out := &ndjsonWriter{w: w, rc: http.NewResponseController(w), json: a.json}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.fail(err)
			return
		}
		if err := out.result(resp); err != nil {
			return // the client is gone
		}
	}
	select {
	case err := <-sendErr:
		if err != nil {
			out.fail(err)
		}
	default:
	}
}

// lineReader decodes one SyncRequest per non-blank line.
type lineReader struct {
	r    *bufio.Reader
	max  int64
	line int
}

// next is the next line's request; io.EOF after the last.
func (l *lineReader) next() (*berthv1.SyncRequest, error) {
	for {
		b, err := l.readLine()
		if err != nil {
			return nil, err
		}
		l.line++
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		req := &berthv1.SyncRequest{}
		if err := protojson.Unmarshal(b, req); err != nil {
			return nil, errmap.Status(errmap.Refuse(errmap.ErrMalformed, "line %d of the body is not a SyncRequest: %v", l.line, err))
		}
		return req, nil
	}
}

// readLine reads up to the next newline (or the end), at most l.max bytes.
func (l *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > l.max {
			return nil, errmap.Status(errmap.Refuse(errmap.ErrOverLimit, "line %d of the body is longer than the HTTP API's limit of %d bytes", l.line+1, l.max))
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, status.Errorf(codes.Canceled, "reading the body: %v", err)
		}
	}
}

// ndjsonWriter writes a stream's lines as the gateway writes Watch's.
type ndjsonWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	json  runtime.Marshaler
	wrote bool
}

func (o *ndjsonWriter) result(m proto.Message) error {
	return o.line(map[string]proto.Message{"result": m})
}

// fail ends the stream with err's status: as the HTTP status too when
// nothing was written yet.
func (o *ndjsonWriter) fail(err error) {
	st := status.Convert(err)
	if !o.wrote {
		o.w.Header().Set("Content-Type", "application/json")
		o.w.WriteHeader(runtime.HTTPStatusFromCode(st.Code()))
	}
	_ = o.line(map[string]proto.Message{"error": st.Proto()})
}

func (o *ndjsonWriter) line(v any) error {
	b, err := o.json.Marshal(v)
	if err != nil {
		return err
	}
	if !o.wrote {
		o.w.Header().Set("Content-Type", "application/json")
	}
	o.wrote = true
	if _, err := o.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return o.rc.Flush()
}
