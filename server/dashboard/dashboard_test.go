package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/auth"
)

// newTest is a Dashboard over the fakes; tokens may be nil.
func newTest(t *testing.T, tokens Tokens, logs io.Writer) *Dashboard {
	t.Helper()
	opts := Options{Now: func() time.Time { return testTime }}
	if tokens != nil {
		opts.Tokens = tokens
	}
	if logs != nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	d, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1, froms: make(chan uint64, 8)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func get(d http.Handler, target string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	d.ServeHTTP(w, r)
	return w
}

func TestAuth(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("rw-secret\nro-secret read-only\n"))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	d := newTest(t, tokens, &logs)
	login := get(d, "/nodes?token=ro-secret&x=1", nil)
	cookies := login.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("login set %d cookies, want 1", len(cookies))
	}
	session := cookies[0]
	tests := []struct {
		name   string
		target string
		header http.Header
		want   int
	}{
		{name: "nothing", target: "/", want: http.StatusUnauthorized},
		{name: "unknown bearer", target: "/", header: http.Header{"Authorization": {"Bearer nope"}}, want: http.StatusUnauthorized},
		{name: "not bearer", target: "/", header: http.Header{"Authorization": {"Basic cm8tc2VjcmV0"}}, want: http.StatusUnauthorized},
		{name: "read-only bearer", target: "/", header: http.Header{"Authorization": {"Bearer ro-secret"}}, want: http.StatusOK},
		{name: "read-write bearer", target: "/nodes", header: http.Header{"Authorization": {"Bearer rw-secret"}}, want: http.StatusOK},
		{name: "unknown token in the address", target: "/?token=nope", want: http.StatusUnauthorized},
		{name: "session cookie", target: "/nodes", header: http.Header{"Cookie": {session.String()}}, want: http.StatusOK},
		{name: "forged cookie", target: "/nodes", header: http.Header{"Cookie": {cookieName + "=forged"}}, want: http.StatusUnauthorized},
		{name: "a bad header is not rescued by a cookie", target: "/", header: http.Header{"Authorization": {"Bearer nope"}, "Cookie": {session.String()}}, want: http.StatusUnauthorized},
		{name: "the style needs nothing", target: "/static/style.css", want: http.StatusOK},
		{name: "the data needs a token", target: "/api/heatmap", want: http.StatusUnauthorized},
		{name: "the lists' data too", target: "/api/pods", want: http.StatusUnauthorized},
		{name: "the data with a token", target: "/api/nodes", header: http.Header{"Authorization": {"Bearer ro-secret"}}, want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(d, tt.target, tt.header)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d", w.Code, tt.want)
			}
			if w.Code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}

	t.Run("the login page has a token field posting to the page asked for", func(t *testing.T) {
		body := get(d, "/nodes?x=1", nil).Body.String()
		for _, want := range []string{`<form id="login" class="login" action="/nodes?x=1" method="post">`, `name="token" type="password"`} {
			if !strings.Contains(body, want) {
				t.Errorf("login page lacks %q:\n%s", want, body)
			}
		}
	})
	t.Run("login through the form", func(t *testing.T) {
		post := func(form string, header ...string) *httptest.ResponseRecorder {
			r := httptest.NewRequest(http.MethodPost, "/nodes?x=1", strings.NewReader(form))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for i := 0; i+1 < len(header); i += 2 {
				r.Header.Set(header[i], header[i+1])
			}
			w := httptest.NewRecorder()
			d.ServeHTTP(w, r)
			return w
		}
		for _, from := range [][]string{{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}} {
			if w := post("token=ro-secret", from...); w.Code != http.StatusForbidden || len(w.Result().Cookies()) != 0 {
				t.Errorf("a form posted from another site (%v): status %d with %d cookies, want 403 and none", from, w.Code, len(w.Result().Cookies()))
			}
		}
		w := post("token=ro-secret", "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin") // httptest's host
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/nodes?x=1" || len(w.Result().Cookies()) != 1 {
			t.Fatalf("status %d, Location %q, %d cookies; want 303 to /nodes?x=1 with a session", w.Code, w.Header().Get("Location"), len(w.Result().Cookies()))
		}
		if got := get(d, "/nodes", http.Header{"Cookie": {w.Result().Cookies()[0].String()}}).Code; got != http.StatusOK {
			t.Errorf("the form's session: status %d", got)
		}
		for _, form := range []string{"token=nope", "", "other=1"} {
			if w := post(form); w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
				t.Errorf("form %q: status %d with %d cookies, want 401 and none", form, w.Code, len(w.Result().Cookies()))
			}
		}
	})
	t.Run("login", func(t *testing.T) {
		if login.Code != http.StatusSeeOther {
			t.Fatalf("status %d, want 303", login.Code)
		}
		if got, want := login.Header().Get("Location"), "/nodes?x=1"; got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
		want := http.Cookie{Name: cookieName, Path: "/", MaxAge: int(sessionTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode}
		got := *session
		got.Value, got.Raw = "", ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cookie (-want +got):\n%s", diff)
		}
		if loc := get(d.guard(http.NotFoundHandler()), "//evil.example/?token=ro-secret", nil).Header().Get("Location"); loc != "/" {
			t.Errorf("a login at //evil.example redirects to %q, want /", loc)
		}
		if strings.Contains(session.Value, "secret") {
			t.Errorf("the cookie holds the token: %q", session.Value)
		}
	})
	if strings.Contains(logs.String(), "secret") {
		t.Errorf("a token reached the log:\n%s", logs.String())
	}
}

func TestOpenWithoutTokens(t *testing.T) {
	d := newTest(t, nil, nil)
	w := get(d, "/?token=anything", nil)
	if w.Code != http.StatusOK {
		t.Errorf("status %d, want 200", w.Code)
	}
}

func TestSessionsExpireAndAreBounded(t *testing.T) {
	now := testTime
	s := newSessions(func() time.Time { return now })
	first := s.start()
	if !s.valid(first) {
		t.Fatal("a new session is not valid")
	}
	for range maxSessions {
		now = now.Add(time.Second)
		s.start()
	}
	if s.valid(first) {
		t.Error("the oldest session survived more than maxSessions logins")
	}
	last := s.start()
	now = now.Add(sessionTTL)
	if s.valid(last) {
		t.Error("a session outlived sessionTTL")
	}
}

func TestPagesRender(t *testing.T) {
	d := newTest(t, nil, nil)
	tests := []struct {
		target      string
		want        int
		has, hasNot []string
	}{
		{target: "/", want: http.StatusOK, has: []string{
			`id="count-active">3<`, `id="count-backoff">1<`, `id="count-unschedulable">1<`, `id="count-gated">2<`,
			`href="/pods/default/big-1"`, "No sample yet."}},
		{target: "/nodes", want: http.StatusOK, has: []string{
			`<td class="heat"><span class="swatch h8"></span>3 / 4 (75%)</td>`, `<td class="heat"><span class="swatch h0"></span>0 / 2 (0%)</td>`, "1Gi / 8Gi (12%)",
			"SchedulingDisabled", "gpu=true:NoSchedule", "all 2 nodes",
			// n2's Ready condition is False: not healthy, with the taints derived from it.
			`<tr class="notready">`, `<span class="chip notready">NotReady</span>`,
			`<span class="chip derived" title="derived from the node's conditions">node.kubernetes.io/not-ready:NoExecute</span>`,
			`<span class="chip ready">Ready</span><span class="chip condition">MemoryPressure</span>`},
			hasNot: []string{"carry no conditions"}},
		{target: "/nodes?q=n2", want: http.StatusOK, has: []string{`<th scope="row"><a href="/nodes/n2">n2</a></th>`, "1 nodes matching", `value="n2"`, "The filter keeps 1 nodes matching of the 2 Berth holds.",
			// The heatmap reads the same nodes.
			`data-src="/api/heatmap?group=topology.kubernetes.io%2Fzone%2Cnode.kubernetes.io%2Fpool&amp;q=n2&amp;snap=`},
			hasNot: []string{`<a href="/nodes/n1">`}},
		{target: "/nodes?q=zzz", want: http.StatusOK, has: []string{"No node matches the filter."}},
		{target: "/nodes?state=cordoned", want: http.StatusOK, has: []string{`<a href="/nodes/n2">n2</a>`}, hasNot: []string{`<a href="/nodes/n1">`}},
		{target: "/nodes?state=pressure", want: http.StatusOK, has: []string{`<a href="/nodes/n1">n1</a>`}, hasNot: []string{`<a href="/nodes/n2">`}},
		{target: "/nodes?state=lost", want: http.StatusBadRequest, has: []string{"state=lost is not a state of a node"}},
		{target: "/nodes?sel=zone+in+()", want: http.StatusBadRequest, has: []string{"in needs at least one value"}},
		{target: "/nodes?sort=weight", want: http.StatusBadRequest, has: []string{"sort=weight is not a column"}},
		{target: "/nodes?color=heat", want: http.StatusBadRequest, has: []string{"color=heat is not one of cpu, memory, pods, devices, state"}},
		{target: "/nodes?group=a+b", want: http.StatusBadRequest, has: []string{`&#34;a b&#34; is not a label key`}},
		{target: "/nodes?sort=-cpu&size=10", want: http.StatusOK, has: []string{`<input type="hidden" name="sort" value="-cpu">`, `<input type="hidden" name="size" value="10">`}},
		{target: "/nodes?color=state", want: http.StatusOK, has: []string{`data-color="state"`, `<span class="swatch st-notready"></span>NotReady`}},
		{target: "/nodes/n1", want: http.StatusOK, has: []string{"<h1>Node n1</h1>",
			// Requests against allocatable, conditions, derived taints, nominated pods.
			`<tr><th scope="row">cpu</th><td class="num">3</td><td class="num">4</td><td class="num">1</td><td class="heat"><span class="swatch h8"></span>75%</td></tr>`,
			`<th scope="row">MemoryPressure</th><td>True</td>`, "node.kubernetes.io/memory-pressure:NoSchedule",
			`<table id="node-nominated"`, `<a href="/pods/default/big-1">default/big-1</a></td><td class="num">10</td>`,
			`<table id="node-pods"`, `<a href="/pods/default/web-1">default/web-1</a>`}},
		{target: "/nodes/n9", want: http.StatusNotFound, has: []string{"Berth holds no node n9"}},
		{target: "/?q=big", want: http.StatusOK, has: []string{`href="/pods/default/big-1"`, `value="big"`, `href="/pods?state=bound"`}},
		{target: "/?q=zzz", want: http.StatusOK, has: []string{"No pod matches the filter."}, hasNot: []string{`href="/pods/default/big-1"`}},
		{target: "/?state=bound", want: http.StatusBadRequest, has: []string{"state=bound is not a state of a pod here"}},
		{target: "/pods", want: http.StatusOK, has: []string{`href="/pods/default/big-1"`, `href="/pods/default/web-1"`,
			`<span class="state st-bound">bound</span></td>
  <td><a href="/nodes/n1">n1</a></td>`}},
		{target: "/pods?node=n1", want: http.StatusOK, has: []string{`href="/pods/default/web-1"`, `value="n1"`}, hasNot: []string{`href="/pods/default/big-1"`}},
		{target: "/pods?priority=high", want: http.StatusBadRequest, has: []string{"priority=high is not a priority"}},
		{target: "/pods?refresh=2", want: http.StatusOK, has: []string{`<div id="live-list" data-live data-refresh="2">`, "refresh every 2 s"}},
		{target: "/pods?refresh=0", want: http.StatusOK, has: []string{`data-refresh="0"`, "Nothing here refreshes on its own."}},
		{target: "/pods?refresh=soon", want: http.StatusBadRequest, has: []string{"refresh=soon is not a number of seconds"}},
		{target: "/pods?page=0", want: http.StatusBadRequest, has: []string{"page=0 is not a page number"}},
		{target: "/pods?size=5000", want: http.StatusBadRequest, has: []string{"size=5000 is not a page size: give 1 to 500"}},
		{target: "/pods?state=bound", want: http.StatusOK, has: []string{`href="/pods/default/web-1"`, `<option selected>bound</option>`},
			hasNot: []string{`href="/pods/default/big-1"`}},
		{target: "/pods?state=bound&q=big", want: http.StatusOK, has: []string{"No pod matches the filter."}},
		{target: "/pods?state=lost", want: http.StatusBadRequest, has: []string{"state=lost is not a state of a pod"}},
		{target: "/decisions", want: http.StatusOK, has: []string{`<table id="decisions" data-max-rows="200" data-stream="/decisions/stream">`, `/static/app.js`,
			`<option>ClearNomination</option>`}},
		{target: "/decisions?type=Bind&q=web", want: http.StatusOK, has: []string{`data-stream="/decisions/stream?q=web&amp;type=Bind"`, `<option selected>Bind</option>`}},
		{target: "/decisions?type=Bound", want: http.StatusBadRequest, has: []string{"type=Bound is not a kind of decision: use one of Bind, Evict"}},
		{target: "/pods/default/big-1", want: http.StatusOK, has: []string{
			"FailedScheduling", testMessage, `<th class="plugin">NodeResourcesFit</th>`, "unschedulable",
			// The numbers behind "Insufficient cpu".
			`<dd id="pod-requests">cpu 2, memory 1Gi, pods 1</dd>`,
			`<tr><th scope="row">n1</th><td>cpu</td><td class="num">2</td><td class="num short">1</td><td class="num">4</td></tr>`}},
		{target: "/pods/default/nope", want: http.StatusNotFound, has: []string{"Berth holds no pod default/nope"}},
		{target: "/pods?pod=big-1", want: http.StatusSeeOther},
		{target: "/nowhere", want: http.StatusNotFound, has: []string{"no page at /nowhere"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			w := get(d, tt.target, nil)
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d\n%s", w.Code, tt.want, w.Body)
			}
			for _, s := range tt.has {
				if !strings.Contains(w.Body.String(), s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(w.Body.String(), s) {
					t.Errorf("page holds %q", s)
				}
			}
			if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
		})
	}
}

func TestQueueChartFromHistory(t *testing.T) {
	h := NewHistory(4)
	for i := range 6 {
		h.Add(Sample{At: testTime.Add(time.Duration(i) * time.Second), Active: uint32(i)})
	}
	got := h.Samples()
	var actives []uint32
	for _, s := range got {
		actives = append(actives, s.Active)
	}
	if diff := cmp.Diff([]uint32{2, 3, 4, 5}, actives); diff != "" {
		t.Errorf("ring keeps (-want +got):\n%s", diff)
	}
	c := newChart(got)
	if c.Max != 5 || c.Series[0].Name != "active" {
		t.Fatalf("chart max %d, first series %q", c.Max, c.Series[0].Name)
	}
	// Oldest at the left, the largest count at the top.
	if want := "0.0,96.0 240.0,64.0 480.0,32.0 720.0,0.0"; c.Series[0].Points != want {
		t.Errorf("points %q, want %q", c.Series[0].Points, want)
	}

	d, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1}, Options{History: h})
	if err != nil {
		t.Fatal(err)
	}
	body := get(d, "/", nil).Body.String()
	for _, want := range []string{
		`points="0.0,96.0 240.0,64.0`,
		// Axes: counts of pods up, times (UTC) along, each with its label.
		`<text class="tick y" x="-6" y="160">0</text>`, `<text class="tick y" x="-6" y="96">2</text>`, `<text class="tick y" x="-6" y="0">5</text>`,
		`<text class="tick x" x="0" y="176" text-anchor="start">15:00:02</text>`,
		`<text class="tick x" x="360" y="176" text-anchor="middle">15:00:03</text>`,
		`<text class="tick x" x="720" y="176" text-anchor="end">15:00:05</text>`,
		`>pods</text>`, `>time (UTC)</text>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("queue page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("queue page:\n%s", body)
	}
	// The same samples for the chart's hover values.
	var data queueData
	if err := json.Unmarshal(get(d, "/api/queue", nil).Body.Bytes(), &data); err != nil {
		t.Fatal(err)
	}
	want := queueData{Series: []string{"active", "backoff", "unschedulable", "gated"}, Times: []string{"15:00:02", "15:00:03", "15:00:04", "15:00:05"},
		Counts: [][]uint32{{2, 3, 4, 5}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}, Max: 5, Samples: 4}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("/api/queue (-want +got):\n%s", diff)
	}
}

func TestHeatCell(t *testing.T) {
	tests := []struct {
		res        string
		req, alloc int64
		want       heatCell
	}{
		{res: "cpu", req: 500, alloc: 4000, want: heatCell{Text: "0.5 / 4 (12%)", Percent: 12, Class: "h1"}},
		{res: "memory", req: 3 << 29, alloc: 2 << 30, want: heatCell{Text: "1.5Gi / 2Gi (75%)", Percent: 75, Class: "h8"}},
		{res: "pods", req: 12, alloc: 10, want: heatCell{Text: "12 / 10 (120%)", Percent: 120, Class: "over"}},
		{res: "pods", req: 1, alloc: 0, want: heatCell{Text: "1 / 0", Class: "na"}},
		{res: "devices", req: 0, alloc: 0, want: heatCell{Text: "–", Class: "na"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, newHeatCell(tt.res, tt.req, tt.alloc)); diff != "" {
			t.Errorf("%s %d/%d (-want +got):\n%s", tt.res, tt.req, tt.alloc, diff)
		}
	}
}

func TestSampleAddsTheQueueCounts(t *testing.T) {
	h := NewHistory(8)
	d, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1}, Options{History: h, Now: func() time.Time { return testTime }})
	if err != nil {
		t.Fatal(err)
	}
	d.sampleOnce(t.Context())
	want := []Sample{{At: testTime, Active: 3, Backoff: 1, Unschedulable: 1, Gated: 2}}
	if diff := cmp.Diff(want, h.Samples()); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
}

// fakePressure is node-pressure eviction having set MemoryPressure on n1
// (which n1 also sent) and DiskPressure on n2.
type fakePressure struct{}

func (fakePressure) GetNodePressure(context.Context, *berthv1.GetNodePressureRequest) (*berthv1.GetNodePressureResponse, error) {
	return &berthv1.GetNodePressureResponse{Nodes: []*berthv1.NodePressure{
		{Node: "n1", Conditions: []string{"MemoryPressure"}}, {Node: "n2", Conditions: []string{"DiskPressure"}},
	}}, nil
}

// The nodes page adds the pressure conditions the nodes' stats set, as
// berthctl get nodes does, each condition once.
func TestNodesShowPressureFromStats(t *testing.T) {
	d, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1}, Options{Pressure: fakePressure{}})
	if err != nil {
		t.Fatal(err)
	}
	body := get(d, "/nodes", nil).Body.String()
	if want := `<span class="chip notready">NotReady</span><span class="chip condition">DiskPressure</span>`; !strings.Contains(body, want) {
		t.Errorf("n2's status lacks DiskPressure (%s):\n%s", want, body)
	}
	if n := strings.Count(body, `<span class="chip condition">MemoryPressure</span>`); n != 1 {
		t.Errorf("MemoryPressure shown %d times, want once", n)
	}
}
