package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/watch"
)

// Metrics implements scheduler.Metrics, decisionlog.Metrics and
// watch.Metrics.
type Metrics struct {
	attempts        *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
	preemptions     prometheus.Counter
	victims         prometheus.Histogram
	pointDuration   *prometheus.HistogramVec
	pluginDuration  *prometheus.HistogramVec
	permitWait      *prometheus.HistogramVec
	decisions       *prometheus.CounterVec
	evictions       *prometheus.CounterVec
	descheduled     *prometheus.CounterVec
	decisionSeries  map[string]prometheus.Counter // by type; fixed after New
	commitDuration  prometheus.Histogram
	podScheduled    *prometheus.HistogramVec
	watchers        prometheus.Gauge
	// DRA: claims allocated by Binds and deallocated, devices allocated.
	claimAllocations   prometheus.Counter
	claimDeallocations prometheus.Counter
	allocatedDevices   prometheus.Gauge

	// The labelled series observed on every scheduling attempt, looked up
	// once: WithLabelValues hashes the labels on every call.
	attemptSeries  seriesCache[prometheus.Counter]
	attemptTimes   seriesCache[prometheus.Observer]
	pointTimes     seriesCache[prometheus.Observer]
	pluginTimes    seriesCache[prometheus.Observer]
	pluginSampling atomic.Uint64
}

// pluginSampleEvery: one plugin timing in this many is recorded, as
// kube-scheduler samples its plugin metrics, so that timing plugins costs
// little.
const pluginSampleEvery = 10

// seriesCache remembers the series of a vector by label values.
type seriesCache[T any] struct {
	mu sync.RWMutex
	m  map[[3]string]T
}

func (c *seriesCache[T]) get(key [3]string, series func() T) T {
	c.mu.RLock()
	v, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[key]; ok {
		return v
	}
	if c.m == nil {
		c.m = make(map[[3]string]T)
	}
	v = series()
	c.m[key] = v
	return v
}

var (
	_ scheduler.Metrics         = (*Metrics)(nil)
	_ decisionlog.Metrics       = (*Metrics)(nil)
	_ decisionlog.DeviceMetrics = (*Metrics)(nil)
	_ watch.Metrics             = (*Metrics)(nil)
)

// New builds the metrics and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_schedule_attempts_total",
			Help: "Scheduling attempts by result: scheduled, unschedulable (no node fits) or error (an internal failure).",
		}, []string{"result", "profile"}),
		attemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_scheduling_attempt_duration_seconds",
			Help:    "Duration of one scheduling attempt (the scheduling cycle), in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"result", "profile"}),
		preemptions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_preemption_attempts_total",
			Help: "Runs of preemption (PostFilter) so far.",
		}),
		victims: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "scheduler_preemption_victims",
			Help:    "Victims evicted by one preemption that nominated a node.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 7),
		}),
		pointDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_framework_extension_point_duration_seconds",
			Help:    "Duration of one extension point (all its plugins), in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 12),
		}, []string{"extension_point", "status", "profile"}),
		pluginDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_plugin_execution_duration_seconds",
			Help:    "Duration of one plugin at one extension point, in seconds (one call in ten is timed).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 1.5, 20),
		}, []string{"plugin", "extension_point", "status"}),
		permitWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_permit_wait_duration_seconds",
			Help:    "How long pods waited at Permit, in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"result"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "berth_decisions_total",
			Help: "Decisions appended durably to the decision log, by type.",
		}, []string{"type"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "berth_evictions_total",
			Help: "Evict decisions made durable, by cause: preemption, taint (NoExecute), api (the eviction API), node_pressure, deschedule, defragment.",
		}, []string{"cause"}),
		descheduled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "descheduler_pods_evicted",
			Help: "Descheduling candidates by profile, strategy and result (success, refused, skipped by Berth's simulation, or the pass limit hit), as the Descheduler's metric.",
		}, []string{"profile", "strategy", "result"}),
		commitDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "berth_store_commit_duration_seconds",
			Help:    "Time from handing a batch to the store to its being durable, queueing included.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		// kube's buckets start at 10 ms; Berth's decisions take about a
		// millisecond, so these start at 0.5 ms.
		podScheduled: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_pod_scheduling_sli_duration_seconds",
			Help:    "Time from a pod's first queueing to its Bind decision being durable, in seconds, by the attempts it took.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 20),
		}, []string{"attempts"}),
		watchers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "berth_watchers",
			Help: "Open DecisionService.Watch streams.",
		}),
		claimAllocations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "berth_dra_claim_allocations_total",
			Help: "ResourceClaims allocated by Bind decisions made durable (a claim shared by several pods counts once).",
		}),
		claimDeallocations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "berth_dra_claim_deallocations_total",
			Help: "DeallocateClaim decisions made durable: claims freed when their last pod was gone.",
		}),
		allocatedDevices: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "berth_dra_allocated_devices",
			Help: "Devices held by allocated ResourceClaims, as kept durably (admin-access results not counted).",
		}),
	}
	m.decisionSeries = make(map[string]prometheus.Counter)
	for _, t := range []string{decisionlog.TypeBind, decisionlog.TypeEvict, decisionlog.TypeNominate, decisionlog.TypeClearNomination, decisionlog.TypeUnschedulable, decisionlog.TypeDeallocateClaim} {
		m.decisionSeries[t] = m.decisions.WithLabelValues(t)
	}
	for _, c := range []prometheus.Collector{
		m.attempts, m.attemptDuration, m.preemptions, m.victims, m.pointDuration,
		m.pluginDuration, m.permitWait, m.decisions, m.evictions, m.descheduled, m.commitDuration, m.podScheduled, m.watchers,
		m.claimAllocations, m.claimDeallocations, m.allocatedDevices,
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// ObserveAttempt implements scheduler.Metrics.
func (m *Metrics) ObserveAttempt(profile, result string, d time.Duration) {
	key := [3]string{result, profile}
	m.attemptSeries.get(key, func() prometheus.Counter { return m.attempts.WithLabelValues(result, profile) }).Inc()
	m.attemptTimes.get(key, func() prometheus.Observer { return m.attemptDuration.WithLabelValues(result, profile) }).Observe(d.Seconds())
}

// ObservePostFilter implements scheduler.Metrics.
func (m *Metrics) ObservePostFilter(_ string, nominated bool, victims int) {
	m.preemptions.Inc()
	if nominated {
		m.victims.Observe(float64(victims))
	}
}

// ObservePodScheduled implements scheduler.Metrics. Attempts from 15 on
// share the label "15+", as kube's do.
func (m *Metrics) ObservePodScheduled(_ string, attempts int, d time.Duration) {
	label := "15+"
	if attempts < 15 {
		label = strconv.Itoa(attempts)
	}
	m.podScheduled.WithLabelValues(label).Observe(d.Seconds())
}

// ObserveExtensionPoint implements scheduler.Metrics.
func (m *Metrics) ObserveExtensionPoint(profile, point string, code framework.Code, d time.Duration) {
	status := code.String()
	m.pointTimes.get([3]string{point, status, profile}, func() prometheus.Observer {
		return m.pointDuration.WithLabelValues(point, status, profile)
	}).Observe(d.Seconds())
}

// ObservePlugin implements scheduler.Metrics. It records one call in
// pluginSampleEvery.
func (m *Metrics) ObservePlugin(_, point, plugin string, code framework.Code, d time.Duration) {
	if m.pluginSampling.Add(1)%pluginSampleEvery != 0 {
		return
	}
	status := code.String()
	m.pluginTimes.get([3]string{plugin, point, status}, func() prometheus.Observer {
		return m.pluginDuration.WithLabelValues(plugin, point, status)
	}).Observe(d.Seconds())
}

// ObservePermitWait implements scheduler.Metrics.
func (m *Metrics) ObservePermitWait(_ string, code framework.Code, d time.Duration) {
	m.permitWait.WithLabelValues(code.String()).Observe(d.Seconds())
}

// ObserveDecision implements decisionlog.Metrics.
// The series of the known types are looked up once, as each commit
// counts its decisions.
func (m *Metrics) ObserveDecision(typ string) {
	if c, ok := m.decisionSeries[typ]; ok {
		c.Inc()
		return
	}
	m.decisions.WithLabelValues(typ).Inc()
}

// ObserveClaimAllocations implements decisionlog.DeviceMetrics.
func (m *Metrics) ObserveClaimAllocations(n int) { m.claimAllocations.Add(float64(n)) }

// ObserveClaimDeallocations implements decisionlog.DeviceMetrics.
func (m *Metrics) ObserveClaimDeallocations(n int) { m.claimDeallocations.Add(float64(n)) }

// SetAllocatedDevices implements decisionlog.DeviceMetrics.
func (m *Metrics) SetAllocatedDevices(n int) { m.allocatedDevices.Set(float64(n)) }

// ObserveEviction implements decisionlog.EvictionMetrics.
func (m *Metrics) ObserveEviction(cause string) { m.evictions.WithLabelValues(cause).Inc() }

// ObserveDescheduled implements deschedulesvc.Metrics.
func (m *Metrics) ObserveDescheduled(profile, strategy, result string) {
	m.descheduled.WithLabelValues(profile, strategy, result).Inc()
}

// ObserveCommit implements decisionlog.Metrics.
func (m *Metrics) ObserveCommit(d time.Duration) { m.commitDuration.Observe(d.Seconds()) }

// AddWatchers implements watch.Metrics.
func (m *Metrics) AddWatchers(delta int) { m.watchers.Add(float64(delta)) }

// pendingPods is scheduler_pending_pods{queue}, read from the queue on
// each scrape.
type pendingPods struct {
	desc  *prometheus.Desc
	stats func() queue.Stats
}

// RegisterPendingPods registers scheduler_pending_pods{queue}, read from
// stats on each scrape.
func RegisterPendingPods(reg prometheus.Registerer, stats func() queue.Stats) error {
	return reg.Register(&pendingPods{
		desc: prometheus.NewDesc("scheduler_pending_pods",
			"Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
			[]string{"queue"}, nil),
		stats: stats,
	})
}

func (p *pendingPods) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p *pendingPods) Collect(ch chan<- prometheus.Metric) {
	st := p.stats()
	for _, q := range []struct {
		name string
		n    int
	}{{"active", st.Active}, {"backoff", st.Backoff}, {"unschedulable", st.Unschedulable}, {"gated", st.Gated}} {
		ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, float64(q.n), q.name)
	}
}
