package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Size of the queue chart's plot, in SVG user units, and the margins
// around it that hold the axes' ticks and labels.
const (
	chartWidth  = 720
	chartHeight = 160
	chartLeft   = 56 // the y axis: counts, and its label
	chartBottom = 36 // the x axis: times, and its label
	chartTop    = 8
	chartRight  = 16
)

// queueView is the data of the queue page.
type queueView struct {
	Stats *berthv1.QueueStatsResponse
	Chart chart
	List  podList // the pending pods
}

// chart is the queue's counts over time as SVG polylines, with a y axis
// of pods and an x axis of time (UTC).
type chart struct {
	Width, Height int // the plot's
	// Left and Top place the plot in the SVG; ViewWidth and ViewHeight
	// are the whole SVG's, margins included.
	Left, Top             int
	ViewWidth, ViewHeight int
	Max                   uint32
	Series                []series
	From, To              string
	Samples               int
	// YTicks are counts (0, the middle, Max), XTicks times (the first
	// sample, the middle, the last), in the plot's coordinates.
	YTicks, XTicks []tick
}

// tick is one mark of an axis: where, its label, and how the label sits
// on it (SVG text-anchor: start, middle or end).
type tick struct {
	At     float64
	Label  string
	Anchor string
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
	c := chart{Width: chartWidth, Height: chartHeight, Max: 1, Samples: len(samples),
		Left: chartLeft, Top: chartTop, ViewWidth: chartLeft + chartWidth + chartRight, ViewHeight: chartTop + chartHeight + chartBottom}
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
	y := func(n uint32) float64 { return float64(chartHeight) * (1 - float64(n)/float64(c.Max)) }
	for _, n := range slices.Compact([]uint32{0, c.Max / 2, c.Max}) {
		c.YTicks = append(c.YTicks, tick{At: y(n), Label: strconv.FormatUint(uint64(n), 10), Anchor: "end"})
	}
	c.XTicks = []tick{{At: 0, Label: c.From, Anchor: "start"}}
	if span > 0 {
		mid := first.Add(span / 2).UTC().Format(time.TimeOnly)
		c.XTicks = append(c.XTicks, tick{At: chartWidth / 2, Label: mid, Anchor: "middle"}, tick{At: chartWidth, Label: c.To, Anchor: "end"})
	}
	for _, q := range queueSeries() {
		var b strings.Builder
		for i, s := range samples {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i, s.At), y(q.of(s)))
		}
		c.Series = append(c.Series, series{Name: q.name, Class: q.class,
			Points: strings.TrimSpace(b.String()), Last: q.of(samples[len(samples)-1])})
	}
	return c
}

func (d *Dashboard) queuePage(w http.ResponseWriter, r *http.Request) {
	stats, err := d.admin.QueueStats(r.Context(), &berthv1.QueueStatsRequest{})
	if err != nil {
		d.failed(w, "queue stats", err)
		return
	}
	l, code, err := d.listOfPods(r.Context(), r.URL, "pending", pendingStates())
	if err != nil {
		d.listFailed(w, code, "pending pods", err)
		return
	}
	v := queueView{Stats: stats, Chart: newChart(d.opts.History.Samples()), List: l}
	d.render(w, r, http.StatusOK, "queue", page{Title: "Queue", Nav: "queue", Refresh: 5, Data: v})
}

// queueData is /api/queue: the counts now and over time, for the chart's
// hover values.
type queueData struct {
	Series  []string   `json:"series"`
	Times   []string   `json:"times"`  // UTC, as the chart's axis shows them
	Counts  [][]uint32 `json:"counts"` // by series, then sample
	Max     uint32     `json:"max"`
	Samples int        `json:"samples"`
}

func (d *Dashboard) queueData(w http.ResponseWriter, _ *http.Request) {
	samples := d.opts.History.Samples()
	v := queueData{Times: []string{}, Counts: [][]uint32{}, Max: newChart(samples).Max, Samples: len(samples)}
	for _, q := range queueSeries() {
		v.Series = append(v.Series, q.name)
		counts := make([]uint32, 0, len(samples))
		for _, s := range samples {
			counts = append(counts, q.of(s))
		}
		v.Counts = append(v.Counts, counts)
	}
	for _, s := range samples {
		v.Times = append(v.Times, s.At.UTC().Format(time.TimeOnly))
	}
	writeJSON(w, v)
}
