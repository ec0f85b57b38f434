package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/watch"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	ID, Name, Data string
}

// readEvents reads n named events from an event stream.
func readEvents(t *testing.T, r *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var ev sseEvent
	for len(out) < n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.Name != "" {
				out = append(out, ev)
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.Data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

// openStream starts a stream from the Dashboard over log; lastID, if set,
// is sent as Last-Event-ID.
func openStream(t *testing.T, log *fakeLog, stopping context.Context, lastID string, query ...string) (*bufio.Reader, *http.Response) {
	t.Helper()
	d, err := New(fakeAdmin{}, fakeExplainer{}, log, Options{Stopping: stopping})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/decisions/stream"+strings.Join(query, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	return bufio.NewReader(resp.Body), resp
}

func TestStreamEmitsDecisions(t *testing.T) {
	web1 := decisionEvent{Revision: 1, Time: "15:00:00.000", Type: "Bind", Namespace: "default", Name: "web-1", Node: "n1"}
	web2 := decisionEvent{Revision: 2, Time: "15:00:00.000", Type: "Bind", Namespace: "default", Name: "web-2", Node: "n2"}
	db1 := decisionEvent{Revision: 3, Time: "15:00:00.000", Type: "Bind", Namespace: "default", Name: "db-1", Node: "n3"}
	nom := decisionEvent{Revision: 4, Time: "15:00:00.000", Type: "Nominate", Namespace: "default", Name: "big-1", Node: "n2"}
	// end passes every filter below: read after the decisions wanted, it
	// shows that none was let through between them.
	end := decisionEvent{Revision: 5, Time: "15:00:00.000", Type: "Bind", Namespace: "default", Name: "end", Node: "n2"}
	tests := []struct {
		name       string
		lastID     string // the Last-Event-ID a reconnecting browser sends
		query      string
		wantFrom   uint64
		wantFilter watch.Filter
		want       []decisionEvent
	}{
		{name: "a new stream starts with the backlog", wantFrom: 1, want: []decisionEvent{web1, web2, db1, nom, end}},
		{name: "a reconnecting browser resumes after its last revision", lastID: "1", wantFrom: 2, want: []decisionEvent{web2, db1, nom, end}},
		{name: "the log keeps one kind and profile", query: "?type=Bind&profile=default-scheduler", wantFrom: 1,
			wantFilter: watch.Filter{SchedulerName: "default-scheduler", Types: []berthv1.DecisionType{berthv1.DecisionType_DECISION_TYPE_BIND}},
			want:       []decisionEvent{web1, web2, db1, end}},
		{name: "the text keeps a pod's or a node's", query: "?q=n2", wantFrom: 1, want: []decisionEvent{web2, nom, end}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &fakeLog{first: 1, froms: make(chan uint64, 4), decisions: []*berthv1.Decision{
				bindDecision(1, "web-1", "n1"), bindDecision(2, "web-2", "n2"), bindDecision(3, "db-1", "n3"),
				{Revision: 4, Time: bindDecision(4, "", "").GetTime(), SchedulerName: "default-scheduler",
					Pod: &berthv1.PodRef{Namespace: "default", Name: "big-1"}, Action: &berthv1.Decision_Nominate{Nominate: &berthv1.Nominate{Node: "n2"}}},
				bindDecision(5, "end", "n2"),
			}}
			r, _ := openStream(t, log, context.Background(), tt.lastID, tt.query)
			if from := <-log.froms; from != tt.wantFrom {
				t.Errorf("watches from %d, want %d", from, tt.wantFrom)
			}
			if diff := cmp.Diff(tt.wantFilter, log.filter); diff != "" {
				t.Errorf("the log's filter (-want +got):\n%s", diff)
			}
			events := readEvents(t, r, 1+len(tt.want))
			if events[0].Name != "ready" {
				t.Errorf("first event %+v, want ready", events[0])
			}
			var got []decisionEvent
			for _, ev := range events[1:] {
				var de decisionEvent
				if err := json.Unmarshal([]byte(ev.Data), &de); err != nil {
					t.Fatal(err)
				}
				if ev.Name != "decision" || ev.ID != strconv.FormatUint(de.Revision, 10) {
					t.Errorf("event %+v: want a decision whose id is its revision", ev)
				}
				got = append(got, de)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamSkipsACompactedGap(t *testing.T) {
	log := &fakeLog{first: 5, froms: make(chan uint64, 4), decisions: []*berthv1.Decision{bindDecision(5, "web-5", "n1")}}
	r, _ := openStream(t, log, context.Background(), "2")
	events := readEvents(t, r, 3)
	names := []string{events[0].Name, events[1].Name, events[2].Name}
	if diff := cmp.Diff([]string{"gap", "ready", "decision"}, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if events[0].Data != "5" || events[2].ID != "5" {
		t.Errorf("gap %+v then %+v, want a gap to 5 and decision 5", events[0], events[2])
	}
	if a, b := <-log.froms, <-log.froms; a != 3 || b != 5 {
		t.Errorf("watched from %d then %d, want 3 then the oldest, 5", a, b)
	}
}

func TestStreamEndsWhenStopping(t *testing.T) {
	log := &fakeLog{first: 1, froms: make(chan uint64, 4), decisions: []*berthv1.Decision{bindDecision(1, "web-1", "n1")}}
	stopping, stop := context.WithCancel(context.Background())
	r, _ := openStream(t, log, stopping, "")
	readEvents(t, r, 2)
	stop()
	// The stream ends (ReadAll returns) with nothing more on it.
	rest, err := io.ReadAll(r)
	if err != nil || len(rest) != 0 {
		t.Errorf("after stopping: %q, %v; want the stream to end", rest, err)
	}
}
