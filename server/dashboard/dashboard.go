package dashboard

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/watch"
)

// Admin is the AdminService as the dashboard reads it; *adminsvc.Service
// satisfies it. AllNodes is ListNodes in one answer, from one snapshot.
type Admin interface {
	AllNodes(context.Context) ([]*berthv1.NodeUsage, error)
	QueueStats(context.Context, *berthv1.QueueStatsRequest) (*berthv1.QueueStatsResponse, error)
	ListPods(context.Context, *berthv1.ListPodsRequest) (*berthv1.ListPodsResponse, error)
	ListNodes(context.Context, *berthv1.ListNodesRequest) (*berthv1.ListNodesResponse, error)
	ListNominations(context.Context, *berthv1.ListNominationsRequest) (*berthv1.ListNominationsResponse, error)
	Explain(context.Context, *berthv1.ExplainRequest) (*berthv1.ExplainResponse, error)
	Simulate(context.Context, *berthv1.SimulateRequest) (*berthv1.SimulateResponse, error)
}

// Explainer is the live scheduler's own explanation of a pod: its spec,
// and the plugin that rejected each node in its last failed attempt,
// which the API does not carry. scheduler.View satisfies it.
type Explainer interface {
	Explain(namespace, name string) (scheduler.Explanation, error)
}

// Decisions is the decision log as the stream reads it; *watch.Feed
// satisfies it.
type Decisions interface {
	Revisions() (first, last uint64)
	Watch(ctx context.Context, from uint64, logID string, f watch.Filter, send watch.Send) error
}

// Pressure is node-pressure eviction's view of the nodes: the pressure
// conditions their stats set (StatsService.GetNodePressure);
// *pressuresvc.Service satisfies it.
type Pressure interface {
	GetNodePressure(context.Context, *berthv1.GetNodePressureRequest) (*berthv1.GetNodePressureResponse, error)
}

// Options configure a Dashboard.
type Options struct {
	// Pressure, if set, adds to each node's status the pressure
	// conditions its stats set, as berthctl get nodes does.
	Pressure Pressure
	// Descheduler, if set (berthd runs a --descheduler-policy), adds the
	// page of its last plan.
	Descheduler Descheduler
	// Queues, if set, is Kueue's admission (the queues page); nil: berthd
	// runs none and the page says so.
	Queues Queues
	// Tokens, if set, guard every page: see the package doc.
	Tokens Tokens
	// History holds the queue's counts over time; nil makes one of
	// DefaultHistorySize samples.
	History *History
	// Stopping, when it ends, ends the decision streams so that a
	// graceful stop does not wait for browsers; nil never ends.
	Stopping context.Context
	// Now is the clock of samples and sessions; nil means time.Now.
	Now func() time.Time
	// Logger defaults to discarding. Tokens never reach it.
	Logger *slog.Logger
}

// Dashboard serves the pages; it is an http.Handler.
type Dashboard struct {
	admin     Admin
	explainer Explainer
	decisions Decisions
	opts      Options
	sessions  *sessions
	pages     map[string]*template.Template
	handler   http.Handler
	nodeCache nodeCache
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns a Dashboard reading admin, explainer and decisions.
func New(admin Admin, explainer Explainer, decisions Decisions, opts Options) (*Dashboard, error) {
	if opts.History == nil {
		opts.History = NewHistory(DefaultHistorySize)
	}
	if opts.Stopping == nil {
		opts.Stopping = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Dashboard{admin: admin, explainer: explainer, decisions: decisions, opts: opts,
		sessions: newSessions(opts.Now), pages: map[string]*template.Template{}}
	// The templates under templates/ besides layout.html and parts.html,
	// which every page shares.
	for _, name := range []string{"queue", "nodes", "node", "decisions", "pod", "pods", "deschedule", "queues", "message", "login"} {
		t, err := template.New("layout.html").Funcs(templateFuncs(opts.Descheduler != nil, opts.Queues != nil)).ParseFS(templateFS,
			"templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard: parse %s: %w", name, err)
		}
		d.pages[name] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.queuePage)
	mux.HandleFunc("GET /nodes", d.nodesPage)
	mux.HandleFunc("GET /nodes/{name}", d.nodePage)
	mux.HandleFunc("GET /api/heatmap", d.heatmapData)
	mux.HandleFunc("GET /api/queue", d.queueData)
	mux.HandleFunc("GET /api/pods", d.apiPods)
	mux.HandleFunc("GET /api/nodes", d.apiNodes)
	mux.HandleFunc("GET /decisions", d.decisionsPage)
	mux.HandleFunc("GET /decisions/stream", d.stream)
	mux.HandleFunc("GET /pods", d.podsPage)
	mux.HandleFunc("GET /pods/{namespace}/{name}", d.podPage)
	mux.HandleFunc("GET /deschedule", d.deschedulePage)
	mux.HandleFunc("GET /queues", d.queuesPage)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		d.message(w, http.StatusNotFound, "Not found", "The dashboard has no page at "+r.URL.Path+".")
	})
	// The script, style and icon hold no data: served without a token so
	// that the login page is styled too.
	outer := http.NewServeMux()
	outer.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	outer.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	outer.Handle("/", d.guard(mux))
	d.handler = outer
	return d, nil
}

// contentSecurityPolicy lets pages load only berthd's own script, style
// and stream: no inline script, nothing from elsewhere, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// ServeHTTP serves the dashboard's pages with its security headers.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	d.handler.ServeHTTP(w, r)
}

// page is what the layout needs besides the page's own data.
type page struct {
	Title string
	Nav   string // the nav entry to mark current
	// Refresh, if > 0, is how often the script reloads the page's main
	// section, in seconds.
	Refresh int
	Data    any
}

// refreshParam sets how often a page's live parts refresh, in seconds
// (1 to maxRefresh); 0 stops them.
const (
	refreshParam = "refresh"
	maxRefresh   = 3600
)

// partParam asks for a page's live part alone (?part=live): what the
// script reloads every few seconds, without the rest of the page.
const partParam = "part"

// render executes a page into a buffer first, so that a failing template
// answers 500 rather than half a page. When r asks for the live part and
// the page has one, only that part is sent.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if r != nil && p.Refresh > 0 && r.URL.Query().Has(refreshParam) {
		s := r.URL.Query().Get(refreshParam)
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxRefresh {
			d.message(w, http.StatusBadRequest, "How often?", fmt.Sprintf("%s=%s is not a number of seconds: give 1 to %d, or 0 to stop the refresh", refreshParam, s, maxRefresh))
			return
		}
		p.Refresh = n
	}
	var buf bytes.Buffer
	t := d.pages[name]
	var err error
	if live := t.Lookup("live"); r != nil && r.URL.Query().Get(partParam) == "live" && live != nil {
		err = live.Execute(&buf, p)
	} else {
		err = t.Execute(&buf, p)
	}
	if err != nil {
		d.opts.Logger.Error("dashboard: render page", "page", name, "err", err)
		http.Error(w, "dashboard: rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// message answers a page holding only a title and a sentence.
func (d *Dashboard) message(w http.ResponseWriter, status int, title, text string) {
	d.render(w, nil, status, "message", page{Title: title, Data: text})
}

// failed answers a failed read with the status the error maps to.
func (d *Dashboard) failed(w http.ResponseWriter, what string, err error) {
	status := httpStatus(err)
	if status == http.StatusInternalServerError {
		d.opts.Logger.Error("dashboard: read failed", "what", what, "err", err)
	}
	d.message(w, status, http.StatusText(status), what+": "+errorMessage(err))
}
