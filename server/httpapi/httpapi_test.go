package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/berthsched/berth/api/berth/v1" // registers the services
	"github.com/berthsched/berth/server/httpapi/openapi"
)

// Every RPC of every berth.v1 service has an operation in the OpenAPI
// document, and so a route in the gateway generated with it: an RPC added
// to the protos without regenerating fails here (CI's drift check
// catches it too).
func TestEveryRPCIsServed(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, methods := range doc.Paths {
		for _, op := range methods {
			ops[op.OperationID] = true
		}
	}
	var rpcs int
	protoregistry.GlobalFiles.RangeFilesByPackage("berth.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			svc := fd.Services().Get(i)
			for j := range svc.Methods().Len() {
				rpcs++
				id := string(svc.Name()) + "_" + string(svc.Methods().Get(j).Name())
				if !ops[id] {
					t.Errorf("%s has no operation in the OpenAPI document: run api/generate.sh", id)
				}
			}
		}
		return true
	})
	if rpcs == 0 {
		t.Fatal("no berth.v1 service registered")
	}
}

// Every operation of the OpenAPI document is routed to its RPC: against a
// gRPC server that implements nothing, each answers 501 (UNIMPLEMENTED,
// the server's word), none 404 or 405 (the router's). A service whose
// handlers are not registered in New fails here.
func TestEveryOperationIsRouted(t *testing.T) {
	grpcLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	go func() { _ = gs.Serve(grpcLis) }()
	defer gs.Stop()
	api, err := New(Config{Dial: func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", grpcLis.Addr().String())
	}})
	if err != nil {
		t.Fatal(err)
	}
	httpLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := api.Server(nil)
	go func() { _ = hs.Serve(httpLis) }()
	defer hs.Close()

	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	for path, methods := range doc.Paths {
		for method, op := range methods {
			t.Run(op.OperationID+" "+method, func(t *testing.T) {
				url := "http://" + httpLis.Addr().String() + param.ReplaceAllString(path, "x")
				req, err := http.NewRequestWithContext(t.Context(), strings.ToUpper(method), url, strings.NewReader("{}"))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotImplemented {
					t.Errorf("%s %s: %d %s, want 501 from the gRPC server", method, path, resp.StatusCode, b)
				}
			})
		}
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		max      int64
		want     []string // batch ids, in order
		wantCode codes.Code
		wantIn   string
	}{
		{name: "lines", body: "{\"batchId\":\"1\"}\n{\"batchId\":\"2\"}\n", max: 100, want: []string{"1", "2"}},
		{name: "blank lines and no final newline", body: "\n  \n{\"batchId\":\"1\"}\n\n{\"batchId\":\"2\"}", max: 100, want: []string{"1", "2"}},
		{name: "bad line", body: "{\"batchId\":\"1\"}\n{\"batch\":1}\n", max: 100, want: []string{"1"}, wantCode: codes.InvalidArgument, wantIn: `unknown field "batch"`},
		{name: "line too long", body: "{\"batchId\":\"1\"}\n{\"batchId\":\"22222222222222222222\"}\n", max: 20, want: []string{"1"}, wantCode: codes.ResourceExhausted, wantIn: "line 2 of the body is longer than the HTTP API's limit of 20 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A small buffer, so that lines span several reads.
			l := &lineReader{r: bufio.NewReaderSize(strings.NewReader(tt.body), 16), max: tt.max}
			var got []string
			for {
				req, err := l.next()
				if errors.Is(err, io.EOF) {
					if tt.wantCode != codes.OK {
						t.Errorf("ended without the error %v", tt.wantCode)
					}
					break
				}
				if err != nil {
					if st := status.Convert(err); st.Code() != tt.wantCode || !strings.Contains(st.Message(), tt.wantIn) {
						t.Errorf("error %v, want %v with %q", err, tt.wantCode, tt.wantIn)
					}
					break
				}
				got = append(got, strconv.FormatUint(req.GetBatchId(), 10))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("batches %v, want %v", got, tt.want)
			}
		})
	}
}
