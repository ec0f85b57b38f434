package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

const (
	// backlog is how many past decisions a new stream starts with.
	backlog = 50
	// maxRows is how many decisions the page keeps.
	maxRows = 200
	// writeTimeout bounds one write to a browser: one that cannot take an
	// event within it is cut off, and resumes by revision when it
	// reconnects.
	writeTimeout = 10 * time.Second
	// retryMillis is how soon a browser reconnects a cut stream.
	retryMillis = 2000
)

// decisionEvent is one decision as the page shows it.
type decisionEvent struct {
	Revision  uint64 `json:"revision"`
	Time      string `json:"time"`
	Type      string `json:"type"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Node      string `json:"node,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

// newDecisionEvent flattens a decision for the page.
func newDecisionEvent(d *berthv1.Decision) decisionEvent {
	ev := decisionEvent{
		Revision: d.GetRevision(), Time: d.GetTime().AsTime().UTC().Format(time.TimeOnly + ".000"),
		Namespace: d.GetPod().GetNamespace(), Name: d.GetPod().GetName(),
	}
	switch a := d.GetAction().(type) {
	case *berthv1.Decision_Bind:
		ev.Type, ev.Node = "Bind", a.Bind.GetNode()
	case *berthv1.Decision_Evict:
		ev.Type, ev.Node, ev.Detail = "Evict", a.Evict.GetNode(), a.Evict.GetReason()
	case *berthv1.Decision_Nominate:
		ev.Type, ev.Node = "Nominate", a.Nominate.GetNode()
	case *berthv1.Decision_ClearNomination:
		ev.Type, ev.Node, ev.Detail = "ClearNomination", a.ClearNomination.GetPreviousNode(), a.ClearNomination.GetReason()
	case *berthv1.Decision_Unschedulable:
		ev.Type, ev.Detail = "Unschedulable", a.Unschedulable.GetMessage()
	default:
		ev.Type = "Unknown"
	}
	return ev
}

// decisionsView is the data of the decisions page.
type decisionsView struct {
	MaxRows int
	Filter  decisionFilter
}

func (d *Dashboard) decisionsPage(w http.ResponseWriter, r *http.Request) {
	f, err := parseDecisionFilter(r.URL.Query())
	if err != nil {
		d.message(w, http.StatusBadRequest, "Which decisions?", err.Error())
		return
	}
	d.render(w, nil, http.StatusOK, "decisions", page{Title: "Decisions", Nav: "decisions", Data: decisionsView{MaxRows: maxRows, Filter: f}})
}

// stream serves the decision log as server-sent events: "ready" once the
// watch is established, then one "decision" per decision with its
// revision as the event id; "gap" when decisions the browser asked for
// were compacted away (or it names a revision this log never gave).
func (d *Dashboard) stream(w http.ResponseWriter, r *http.Request) {
	filter, err := parseDecisionFilter(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(d.opts.Stopping, cancel)()

	rc := http.NewResponseController(w)
	// The connection may serve other requests after this one.
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sse := &eventWriter{w: w, rc: rc, keep: filter.keeps}
	sse.event("", "", "", fmt.Sprintf("retry: %d\n", retryMillis))

	from, resumed := d.resumeFrom(r)
	for range 3 {
		err := d.decisions.Watch(ctx, from, "", filter.logFilter(), sse.send)
		var compacted *store.CompactedError
		var ahead *watch.AheadError
		switch {
		case ctx.Err() != nil || sse.err != nil:
			return
		case errors.As(err, &compacted):
			from = compacted.Oldest
		case errors.As(err, &ahead) && resumed:
			from, resumed = d.recentFrom(), false
		default:
			d.opts.Logger.Warn("dashboard: decision stream ended", "err", err)
			sse.event("failed", "", "the decision log could not be read; see berthd's log", "")
			return
		}
		sse.event("gap", "", strconv.FormatUint(from, 10), "")
	}
}

// resumeFrom is where a stream starts: after the Last-Event-ID the
// browser sends when it reconnects, or at ?from=, or with the recent
// backlog. resumed says whether the browser named the position.
func (d *Dashboard) resumeFrom(r *http.Request) (uint64, bool) {
	if id, err := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
		return id + 1, true
	}
	if from, err := strconv.ParseUint(r.URL.Query().Get("from"), 10, 64); err == nil && from > 0 {
		return from, true
	}
	return d.recentFrom(), false
}

// recentFrom is the revision backlog decisions before the next one.
func (d *Dashboard) recentFrom() uint64 {
	first, last := d.decisions.Revisions()
	from := uint64(1)
	if last >= backlog {
		from = last + 1 - backlog
	}
	return max(from, first)
}

// eventWriter writes server-sent events to one browser; after a failed
// write it writes nothing more and keeps the error.
type eventWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	keep func(decisionEvent) bool // the decisions sent
	buf  bytes.Buffer
	err  error
}

// send is the watch's watch.Send: one event per decision, and
// "ready" for the response that establishes the watch.
func (e *eventWriter) send(resp *berthv1.WatchResponse) error {
	if len(resp.GetDecisions()) == 0 {
		e.event("ready", "", strconv.FormatUint(resp.GetNextRevision(), 10), "")
		return e.err
	}
	for _, dec := range resp.GetDecisions() {
		ev := newDecisionEvent(dec)
		if !e.keep(ev) {
			continue
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		e.add("decision", strconv.FormatUint(dec.GetRevision(), 10), string(data), "")
	}
	e.flush()
	return e.err
}

// event writes one event at once.
func (e *eventWriter) event(name, id, data, raw string) {
	e.add(name, id, data, raw)
	e.flush()
}

// add buffers one event; raw is written before it as it is.
func (e *eventWriter) add(name, id, data, raw string) {
	e.buf.WriteString(raw)
	if id != "" {
		e.buf.WriteString("id: " + id + "\n")
	}
	if name != "" {
		e.buf.WriteString("event: " + name + "\n")
		for line := range strings.SplitSeq(data, "\n") {
			e.buf.WriteString("data: " + line + "\n")
		}
	}
	e.buf.WriteString("\n")
}

// flush writes what is buffered within writeTimeout.
func (e *eventWriter) flush() {
	defer e.buf.Reset()
	if e.err != nil {
		return
	}
	// Not every ResponseWriter supports deadlines (httptest's does not).
	_ = e.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		e.err = err
		return
	}
	if err := e.rc.Flush(); err != nil {
		e.err = err
	}
}
