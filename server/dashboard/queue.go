package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Size of the queue chart, in SVG user units.
const (
	chartWidth  = 720
	chartHeight = 160
)

// queueView is the data of the queue page.
type queueView struct {
	Stats   *berthv1.QueueStatsResponse
	Chart   chart
	Pending []*berthv1.PendingPod
	More    bool // more pending pods than listed
}

// chart is the queue's counts over time as SVG polylines.
type chart struct {
	Width, Height int
	Max           uint32
	Series        []series
	From, To      string
	Samples       int
}

// series is one count over time.
type series struct {
	Name   string
	Class  string // the CSS class colouring it
	Points string // SVG polyline points
	Last   uint32
}

// countOf reads one count of a Sample.
type countOf struct {
	name, class string
	of          func(Sample) uint32
}

// queueSeries are the counts charted.
func queueSeries() []countOf {
	return []countOf{
		{"active", "s-active", func(s Sample) uint32 { return s.Active }},
		{"backoff", "s-backoff", func(s Sample) uint32 { return s.Backoff }},
		{"unschedulable", "s-unschedulable", func(s Sample) uint32 { return s.Unschedulable }},
		{"gated", "s-gated", func(s Sample) uint32 { return s.Gated }},
	}
}

// newChart lays samples out: time along x (the span of the samples), the
// count along y up to the largest count seen (at least 1).
func newChart(samples []Sample) chart {
	c := chart{Width: chartWidth, Height: chartHeight, Max: 1, Samples: len(samples)}
	if len(samples) == 0 {
		return c
	}
	for _, s := range samples {
		for _, q := range queueSeries() {
			c.Max = max(c.Max, q.of(s))
		}
	}
	first, last := samples[0].At, samples[len(samples)-1].At
	span := last.Sub(first)
	c.From, c.To = first.UTC().Format(time.TimeOnly), last.UTC().Format(time.TimeOnly)
	x := func(i int, at time.Time) float64 {
		if span <= 0 {
			return float64(chartWidth) * float64(i) / float64(max(len(samples)-1, 1))
		}
		return float64(chartWidth) * float64(at.Sub(first)) / float64(span)
	}
	for _, q := range queueSeries() {
		var b strings.Builder
		for i, s := range samples {
			y := float64(chartHeight) * (1 - float64(q.of(s))/float64(c.Max))
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i, s.At), y)
		}
		c.Series = append(c.Series, series{Name: q.name, Class: q.class,
			Points: strings.TrimSpace(b.String()), Last: q.of(samples[len(samples)-1])})
	}
	return c
}

// pendingListed is how many pending pods the queue page lists.
const pendingListed = 200

func (d *Dashboard) queuePage(w http.ResponseWriter, r *http.Request) {
	stats, err := d.admin.QueueStats(r.Context(), &berthv1.QueueStatsRequest{})
	if err != nil {
		d.failed(w, "queue stats", err)
		return
	}
	pending, err := d.admin.ListPending(r.Context(), &berthv1.ListPendingRequest{PageSize: pendingListed})
	if err != nil {
		d.failed(w, "pending pods", err)
		return
	}
	v := queueView{
		Stats:   stats,
		Chart:   newChart(d.opts.History.Samples()),
		Pending: pending.GetPods(),
		More:    pending.GetNextPageToken() != "",
	}
	d.render(w, http.StatusOK, "queue", page{Title: "Queue", Nav: "queue", Refresh: 5, Data: v})
}
