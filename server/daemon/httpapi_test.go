package daemon

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/intake"
)

// httpEnv is a daemon serving gRPC and the HTTP API on loopback.
type httpEnv struct {
	*env
	base   string // http://127.0.0.1:port or https://...
	client *http.Client
}

// startHTTP starts a daemon as start does, with the HTTP API on a listener
// of its own (TLS when cfg.HTTPTLS is set).
func startHTTP(t testing.TB, cfg Config, client *http.Client) *httpEnv {
	t.Helper()
	d, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	grpcLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{d: d, stop: cancel, served: make(chan error, 1)}
	go func() { e.served <- d.ServeListeners(ctx, server.Listeners{GRPC: grpcLis, HTTP: httpLis}) }()
	// The gRPC client start makes is not used, but shutdown closes it.
	if e.conn, err = newPlainConn(grpcLis.Addr().String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.shutdown(t) })
	scheme := "http://"
	if cfg.HTTPTLS != nil {
		scheme = "https://"
	}
	if client == nil {
		client = &http.Client{}
	}
	return &httpEnv{env: e, base: scheme + httpLis.Addr().String(), client: client}
}

// call sends one request and returns its status and body.
func (h *httpEnv) call(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, h.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the body: %v", method, path, err)
	}
	return resp.StatusCode, string(b)
}

// lines opens a streaming request and returns its status and a reader of
// its newline-delimited JSON lines; the stream ends with the test.
func (h *httpEnv) lines(t *testing.T, method, path, body string) (int, *bufio.Scanner) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	return resp.StatusCode, sc
}

// next decodes the stream's next line into v, failing the test at its end.
func next(t *testing.T, sc *bufio.Scanner, v any) {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("stream ended: %v", sc.Err())
	}
	if err := json.Unmarshal(sc.Bytes(), v); err != nil {
		t.Fatalf("line %q: %v", sc.Text(), err)
	}
}

// rpcStatus is google.rpc.Status as the API writes it.
type rpcStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Type     string            `json:"@type"`
		Reason   string            `json:"reason"`
		Metadata map[string]string `json:"metadata"`
	} `json:"details"`
}

const (
	nodeJSON = `{"node":{"name":"n1","allocatable":{"cpu":"4000","memory":"8589934592","pods":"110"}}}`
	podJSON  = `{"pod":{"namespace":"default","name":"web","uid":"web-1","containers":[{"name":"app","requests":{"cpu":"500"}}]}}`
)

// A pod applied over HTTP is bound, the bind is watched, confirmed and
// explained; a watch resumed from the bind's next revision sees only what
// came after, and one from beyond the log fails OUT_OF_RANGE with its
// ErrorInfo.
func TestHTTPAPIPodLifecycle(t *testing.T) {
	h := startHTTP(t, Config{DataDir: t.TempDir()}, nil)
	code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+nodeJSON+`,`+podJSON+`]}`)
	if code != http.StatusOK || !strings.Contains(body, `"applied":2`) {
		t.Fatalf("apply: %d %s", code, body)
	}

	code, watch := h.lines(t, "GET", "/v1/decisions:watch?fromRevision=1", "")
	if code != http.StatusOK {
		t.Fatalf("watch: HTTP %d", code)
	}
	var bound struct {
		Result struct {
			Decisions []struct {
				Revision string `json:"revision"`
				Pod      struct{ Namespace, Name, UID string }
				Bind     *struct{ Node string } `json:"bind"`
			} `json:"decisions"`
			NextRevision string `json:"nextRevision"`
			LogID        string `json:"logId"`
		} `json:"result"`
	}
	for len(bound.Result.Decisions) == 0 {
		next(t, watch, &bound)
	}
	d := bound.Result.Decisions[0]
	if d.Bind == nil || d.Bind.Node != "n1" || d.Pod.Name != "web" || d.Revision != "1" {
		t.Fatalf("first decision: %+v, want web bound to n1 at revision 1", d)
	}

	code, body = h.call(t, "POST", "/v1/state:reportBindResult", "",
		`{"pod":{"namespace":"default","name":"web","uid":"web-1"},"node":"n1","revision":"1","outcome":"BIND_OUTCOME_CONFIRMED"}`)
	if code != http.StatusOK {
		t.Fatalf("reportBindResult: %d %s", code, body)
	}
	code, body = h.call(t, "GET", "/v1/pods/default/web:explain", "", "")
	var explain struct{ State, Node string }
	if err := json.Unmarshal([]byte(body), &explain); code != http.StatusOK || err != nil {
		t.Fatalf("explain: %d %s (%v)", code, body, err)
	}
	if diff := cmp.Diff(struct{ State, Node string }{"QUEUE_STATE_BOUND", "n1"}, explain); diff != "" {
		t.Errorf("explain (-want +got):\n%s", diff)
	}

	// Resume after the bind: a second pod's bind comes, the first's not.
	code, resumed := h.lines(t, "POST", "/v1/decisions:watch", `{"fromRevision":"`+bound.Result.NextRevision+`","logId":"`+bound.Result.LogID+`"}`)
	if code != http.StatusOK {
		t.Fatalf("resumed watch: HTTP %d", code)
	}
	second := strings.ReplaceAll(strings.ReplaceAll(podJSON, `"web"`, `"api"`), "web-1", "api-1")
	if code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+second+`]}`); code != http.StatusOK {
		t.Fatalf("apply the second pod: %d %s", code, body)
	}
	bound.Result.Decisions = nil
	for len(bound.Result.Decisions) == 0 {
		next(t, resumed, &bound)
	}
	if got := bound.Result.Decisions[0]; got.Pod.Name != "api" || got.Revision != "2" {
		t.Errorf("resumed watch's first decision: %+v, want api's at revision 2", got)
	}

	code, body = h.call(t, "GET", "/v1/decisions:watch?fromRevision=99", "", "")
	var failed struct{ Error rpcStatus }
	if err := json.Unmarshal([]byte(body), &failed); err != nil {
		t.Fatalf("watch beyond the log: %d %q: %v", code, body, err)
	}
	if code != http.StatusBadRequest || failed.Error.Code != 11 || len(failed.Error.Details) == 0 || failed.Error.Details[0].Reason != "REVISION_NOT_WRITTEN" {
		t.Errorf("watch beyond the log: %d %s, want 400, OUT_OF_RANGE (11) with ErrorInfo REVISION_NOT_WRITTEN", code, body)
	}
}

// Bad bodies are 400s naming the field; a refused object keeps gRPC's
// per-object error; an unknown path is a 404.
func TestHTTPAPIBadBody(t *testing.T) {
	h := startHTTP(t, Config{DataDir: t.TempDir()}, nil)
	tests := []struct {
		name, method, path, body string
		wantCode                 int
		wantIn                   string // a part of the body
	}{
		{"unknown field", "POST", "/v1/state:apply", `{"objects":[{"pod":{"nme":"x"}}]}`, 400, `unknown field \"nme\"`},
		{"wrong type", "POST", "/v1/state:apply", `{"objects":[{"node":{"name":7}}]}`, 400, `invalid value for string field name`},
		{"not JSON", "POST", "/v1/state:apply", `{"objects":`, 400, `"code":3`},
		{"unknown enum", "POST", "/v1/state:reportBindResult", `{"outcome":"BIND_OUTCOME_MAYBE"}`, 400, `invalid value for enum field outcome`},
		{"invalid object", "POST", "/v1/state:apply", `{"objects":[{"pod":{"name":"x"}}]}`, 200, `"fieldPath":"pod.uid"`},
		{"invalid argument from the service", "POST", "/v1/state:reportBindResult", `{}`, 400, `"code":3`},
		{"unknown path", "GET", "/v1/nothing", "", 404, `"code":5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := h.call(t, tt.method, tt.path, "", tt.body)
			if code != tt.wantCode || !strings.Contains(body, tt.wantIn) {
				t.Errorf("%d %s, want %d with %s", code, body, tt.wantCode, tt.wantIn)
			}
		})
	}
}

// Tokens guard the HTTP API as they guard gRPC: the same refusals, with
// their HTTP status; /openapi.json is open.
func TestHTTPAPITokens(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("writer\nreader read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := startHTTP(t, Config{DataDir: t.TempDir(), Edge: server.Edge{Authorizer: tokens}}, nil)
	tests := []struct {
		name, token         string
		wantApply, wantRead int
	}{
		{name: "no token", wantApply: 401, wantRead: 401},
		{name: "wrong token", token: "guess", wantApply: 401, wantRead: 401},
		{name: "read-only", token: "reader", wantApply: 403, wantRead: 200},
		{name: "read-write", token: "writer", wantApply: 200, wantRead: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := h.call(t, "POST", "/v1/state:apply", tt.token, `{"objects":[`+nodeJSON+`]}`)
			if code != tt.wantApply {
				t.Errorf("apply: %d %s, want %d", code, body, tt.wantApply)
			}
			if code == 401 && !strings.Contains(body, `"code":16`) {
				t.Errorf("apply: %s, want UNAUTHENTICATED (16) as google.rpc.Status", body)
			}
			if code, body := h.call(t, "GET", "/v1/admin:queueStats", tt.token, ""); code != tt.wantRead {
				t.Errorf("queueStats: %d %s, want %d", code, body, tt.wantRead)
			}
		})
	}
	if code, body := h.call(t, "GET", "/openapi.json", "", ""); code != 200 || !strings.Contains(body, `"swagger": "2.0"`) {
		t.Errorf("/openapi.json without a token: %d %.80s", code, body)
	}
}

// Sync over HTTP: one request per line, one ack per line; a bad line after
// good ones ends the stream with an error line naming it, the good ones
// applied; a bad first line is a 400.
func TestHTTPAPISync(t *testing.T) {
	h := startHTTP(t, Config{DataDir: t.TempDir()}, nil)
	body := `{"batchId":"1","mutations":[{"upsert":` + nodeJSON + `}]}` + "\n\n" +
		`{"batchId":"2","mutations":[{"upsert":` + podJSON + `}]}` + "\n" +
		`{"batchId":"3","mutations":[{"upsert":{"pod":{"name":5}}}]}` + "\n"
	code, sc := h.lines(t, "POST", "/v1/state:sync", body)
	if code != http.StatusOK {
		t.Fatalf("sync: HTTP %d", code)
	}
	type line struct {
		Result *struct {
			BatchID string `json:"batchId"`
			Applied int    `json:"applied"`
		} `json:"result"`
		Error *rpcStatus `json:"error"`
	}
	var got []line
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, l)
	}
	if len(got) != 3 || got[0].Result == nil || got[0].Result.BatchID != "1" || got[1].Result == nil || got[1].Result.Applied != 1 ||
		got[2].Error == nil || got[2].Error.Code != 3 || !strings.Contains(got[2].Error.Message, "line 4 of the body") {
		t.Fatalf("sync answered %+v, want acks of batches 1 and 2, then INVALID_ARGUMENT naming line 4", got)
	}
	if code, body := h.call(t, "GET", "/v1/pods/default/web:explain", "", ""); code != http.StatusOK {
		t.Errorf("explain the pod batch 2 applied: %d %s", code, body)
	}

	code, body2 := h.call(t, "POST", "/v1/state:sync", "", `{"batchId":1,"mutatons":[]}`+"\n")
	if code != http.StatusBadRequest || !strings.Contains(body2, `unknown field \"mutatons\"`) {
		t.Errorf("sync with a bad first line: %d %s, want 400 naming mutatons", code, body2)
	}
}

// With TLS and a client CA the HTTP API takes only clients with a
// certificate the CA signed, as gRPC does.
func TestHTTPAPIMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	issue(t, ca, caKey, "server", filepath.Join(dir, "server"))
	clientCert := issue(t, ca, caKey, "client", filepath.Join(dir, "client"))
	files := auth.TLSFiles{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem"), ClientCA: filepath.Join(dir, "ca.pem")}
	creds, tlsCfg, err := files.Credentials(nil)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	withCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{clientCert}}}}
	h := startHTTP(t, Config{DataDir: dir, Creds: creds, HTTPTLS: tlsCfg}, withCert)
	if code, body := h.call(t, "GET", "/v1/admin:serverInfo", "", ""); code != 200 {
		t.Fatalf("serverInfo with a client certificate: %d %s", code, body)
	}
	for name, c := range map[string]*http.Client{
		"no client certificate": {Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}},
		"plaintext":             {},
	} {
		t.Run(name, func(t *testing.T) {
			url := h.base
			if name == "plaintext" {
				url = "http://" + strings.TrimPrefix(url, "https://")
			}
			req, _ := http.NewRequestWithContext(t.Context(), "GET", url+"/v1/admin:serverInfo", nil)
			resp, err := c.Do(req)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 || bytes.Contains(b, []byte("version")) {
					t.Errorf("served: %d %s", resp.StatusCode, b)
				}
			}
		})
	}
}

func newPlainConn(target string) (*grpc.ClientConn, error) {
	return grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// Watch as server-sent events: each event's id is the revision to resume
// from, and a reconnection sending it back as Last-Event-ID (as an
// EventSource does) resumes there.
func TestHTTPAPIWatchEvents(t *testing.T) {
	h := startHTTP(t, Config{DataDir: t.TempDir()}, nil)
	events := func(query, lastID string) (int, *bufio.Scanner) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		req, err := http.NewRequestWithContext(ctx, "GET", h.base+"/v1/decisions:watch"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("Content-Type %q, want text/event-stream", resp.Header.Get("Content-Type"))
		}
		return resp.StatusCode, bufio.NewScanner(resp.Body)
	}
	// firstDecision reads events up to one with a decision: its id and data.
	firstDecision := func(sc *bufio.Scanner) (id, data string) {
		t.Helper()
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && strings.Contains(data, `"decisions"`):
				return id, data
			}
		}
		t.Fatalf("events ended: %v", sc.Err())
		return "", ""
	}

	if code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+nodeJSON+`,`+podJSON+`]}`); code != http.StatusOK {
		t.Fatalf("apply: %d %s", code, body)
	}
	code, sc := events("?fromRevision=1", "")
	if code != http.StatusOK {
		t.Fatalf("events: HTTP %d", code)
	}
	id, data := firstDecision(sc)
	if id != "2" || !strings.Contains(data, `"name":"web"`) || !strings.Contains(data, `"bind":{"node":"n1"}`) {
		t.Fatalf("first event: id %s data %s, want id 2 with web's bind", id, data)
	}

	second := strings.ReplaceAll(strings.ReplaceAll(podJSON, `"web"`, `"api"`), "web-1", "api-1")
	if code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+second+`]}`); code != http.StatusOK {
		t.Fatalf("apply the second pod: %d %s", code, body)
	}
	code, sc = events("", id)
	if code != http.StatusOK {
		t.Fatalf("events from Last-Event-ID %s: HTTP %d", id, code)
	}
	if id, data := firstDecision(sc); id != "3" || strings.Contains(data, `"name":"web"`) || !strings.Contains(data, `"name":"api"`) {
		t.Errorf("resumed from Last-Event-ID 2: id %s data %s, want id 3 with api's bind only", id, data)
	}

	if code, _ := events("", "two"); code != http.StatusBadRequest {
		t.Errorf("Last-Event-ID two: HTTP %d, want 400", code)
	}
	if code, _ := events("?fromRevision=99", ""); code != http.StatusBadRequest {
		t.Errorf("events beyond the log: HTTP %d, want 400 (OUT_OF_RANGE)", code)
	}
}

// The intake's limits hold for HTTP calls as for gRPC ones: a request
// over the per-connection byte bound is refused RESOURCE_EXHAUSTED (429),
// naming the bound.
func TestHTTPAPILimits(t *testing.T) {
	limits := intake.Limits{ConnStreams: 16, Streams: 64, ConnRequestBytes: 256, RequestBytes: 1 << 20}
	h := startHTTP(t, Config{DataDir: t.TempDir(), Edge: server.Edge{Limits: &limits}}, nil)
	if code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+nodeJSON+`]}`); code != http.StatusOK {
		t.Fatalf("a small apply: %d %s", code, body)
	}
	big := `{"node":{"name":"n2","labels":{"l":"` + strings.Repeat("x", 300) + `"}}}`
	code, body := h.call(t, "POST", "/v1/state:apply", "", `{"objects":[`+big+`]}`)
	if code != http.StatusTooManyRequests || !strings.Contains(body, `"code":8`) || !strings.Contains(body, "limit of 256") {
		t.Errorf("an apply over the connection's 256 bytes: %d %s, want 429, RESOURCE_EXHAUSTED naming the limit", code, body)
	}
}
