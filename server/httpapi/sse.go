package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/errmap"
)

// WatchPath is where DecisionService.Watch is served (api/http.yaml).
const WatchPath = "/v1/decisions:watch"

// wantsEvents says whether r asks for Watch as server-sent events.
func wantsEvents(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == WatchPath &&
		strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// watchEvents serves Watch as server-sent events: one event per
// WatchResponse, its id the response's next_revision, so that an
// EventSource that reconnects sends it back as Last-Event-ID and resumes
// there (fromRevision, when given, wins). The stream's failure is a last
// event "error" with the google.rpc.Status; before any event, the status's
// HTTP code with the Status as JSON, as every call answers.
func (a *API) watchEvents(w http.ResponseWriter, r *http.Request) {
	req := &berthv1.WatchRequest{}
	if err := runtime.PopulateQueryParameters(req, r.URL.Query(), utilities.NewDoubleArray(nil)); err != nil {
		a.refuse(w, r, errmap.Status(errmap.Refuse(errmap.ErrMalformed, "%v", err)))
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" && !r.URL.Query().Has("fromRevision") && !r.URL.Query().Has("from_revision") {
		rev, err := strconv.ParseUint(last, 10, 64)
		if err != nil {
			a.refuse(w, r, errmap.Status(errmap.Refuse(errmap.ErrMalformed, "Last-Event-ID %q: want the revision an event's id gave", last)))
			return
		}
		req.FromRevision = rev
	}
	ctx, err := runtime.AnnotateContext(r.Context(), a.mux, r, "/berth.v1.DecisionService/Watch", runtime.WithHTTPPathPattern(WatchPath))
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	stream, err := a.decisions.Watch(ctx, req)
	if err != nil {
		a.refuse(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	wrote := false
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if !wrote {
				a.refuse(w, r, err)
				return
			}
			b, merr := a.json.Marshal(status.Convert(err).Proto())
			if merr == nil {
				_, _ = fmt.Fprintf(w, "event: error\ndata: %s\n\n", b)
				_ = rc.Flush()
			}
			return
		}
		b, err := a.json.Marshal(resp)
		if err != nil {
			return
		}
		if !wrote {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			wrote = true
		}
		// protojson writes one line: no newline can end the data field.
		if _, err := fmt.Fprintf(w, "id: %d\nevent: watch\ndata: %s\n\n", resp.GetNextRevision(), b); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
