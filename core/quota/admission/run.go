package admission

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// Line is one workload's outcome, in kueueoracle's format.
type Line struct {
	Workload         string            `json:"workload"`
	Result           string            `json:"result"`
	ClusterQueue     string            `json:"clusterQueue,omitempty"`
	Flavors          map[string]string `json:"flavors,omitempty"`
	Counts           map[string]int32  `json:"counts,omitempty"`
	Cycle            int               `json:"cycle,omitempty"`
	Priority         *int32            `json:"priority,omitempty"`
	Message          string            `json:"message,omitempty"`
	PreemptedBy      string            `json:"preemptedBy,omitempty"`
	PreemptionReason string            `json:"preemptionReason,omitempty"`
	PreemptedCycle   int               `json:"preemptedCycle,omitempty"`
	Preemptions      int               `json:"preemptions,omitempty"`
	Victims          []string          `json:"victims,omitempty"`
	// Placement is Berth's (placement-aware admission): the node of each
	// of the admitted workload's pods (PlacementRequest.PodName).
	Placement map[string]string `json:"placement,omitempty"`
}

// Results of a Line.
const (
	ResultAdmitted     = "admitted"
	ResultPending      = "pending"
	ResultInadmissible = "inadmissible"
	ResultPreempted    = "preempted"
	ResultError        = "error"
)

// Summary says how a run ended, and what happened cycle by cycle.
type Summary struct {
	Cycles int
	Reason string
	Events []Event
}

// Event is an admission or a preemption, in cycle order.
type Event struct {
	Cycle    int
	Kind     string // EventAdmitted or EventPreempted
	Workload string
	By       string // the preemptor, for EventPreempted
}

// Event kinds.
const (
	EventAdmitted  = "admitted"
	EventPreempted = "preempted"
)

// Options are Berth's departures from Kueue, all off by default (the
// default is Kueue's behaviour, for parity).
type Options struct {
	// Progress is Berth's no-livelock rule: a preemptor whose victims
	// are gone is tried before every other head of its cycle, so the
	// quota its preemption freed is its own and the cycle that
	// preempted leads to its admission. Kueue lets the victims (or
	// others) take the freed quota back first, and can preempt the same
	// workloads over and over.
	Progress bool
	// NoThrottle is Berth's answer to Kueue admitting at most one head
	// per ClusterQueue per cycle: the run (one admission pass, with no
	// event in between) goes on until nothing more would change,
	// ClusterQueue by group of cohort trees, instead of cycle by cycle
	// over every ClusterQueue. It admits, assigns and preempts exactly
	// what Kueue's successive cycles would once they were quiet
	// (parity's TestNoThrottle); the cycle numbers in Lines are those
	// cycles, counted within each group, and Summary.Events are ordered
	// by them. Off for oracle parity, where the global trace matters.
	NoThrottle bool
	// Quiesce runs the cycles as Run does but stops only once they are
	// quiet (nothing but repeats until an event), not at kueueoracle's
	// first cycle that changed no heap: a StrictFIFO head resuming its
	// flavor search can still be admitted after it. It is the reference
	// NoThrottle is held to.
	Quiesce bool
	// Placement, when set, is asked where the pods of a workload that
	// fits its quota would run, for the ClusterQueues that want
	// placement-aware admission (quota.ClusterQueue.AdmissionPlacement);
	// a workload whose pods do not all fit is not admitted, as one that
	// does not fit its quota. Without it those ClusterQueues admit as
	// Kueue does.
	Placement PlacementChecker
}

// Run admits objs' workloads cycle by cycle as Kueue 0.17's scheduler
// does and reports every workload, sorted by namespace/name. namespaces
// gives namespace labels for namespaceSelectors (a namespace not given
// has only kubernetes.io/metadata.name).
func Run(ctx context.Context, objs *quota.Objects, namespaces []*model.Namespace) ([]Line, Summary, error) {
	return RunWith(ctx, objs, namespaces, Options{})
}

// RunWith is Run with Berth's options.
func RunWith(ctx context.Context, objs *quota.Objects, namespaces []*model.Namespace, o Options) ([]Line, Summary, error) {
	e, err := newEngine(objs, namespaces)
	if err != nil {
		return nil, Summary{}, err
	}
	e.opts = o
	var sum Summary
	if o.NoThrottle {
		sum = e.quiesce(ctx)
	} else {
		sum = e.loop(ctx)
	}
	sum.Events = e.events
	if e.err != nil {
		return nil, sum, e.err
	}
	return e.lines(), sum, ctx.Err()
}

func newEngine(objs *quota.Objects, namespaces []*model.Namespace) (*engine, error) {
	e := &engine{flavors: map[string]*quota.ResourceFlavor{}, cqs: map[string]*clusterQueue{}, byKey: map[string]*workload{}, fairSharing: objs.Config.FairSharing}
	e.strategies = objs.Config.PreemptionStrategies
	if len(e.strategies) == 0 {
		e.strategies = []string{LessThanOrEqualToFinalShare, LessThanInitialShare}
	}
	for i, s := range e.strategies {
		if s != LessThanOrEqualToFinalShare && s != LessThanInitialShare {
			return nil, fmt.Errorf("fairSharing.preemptionStrategies[%d]: unsupported value %q: supported values: %q, %q", i, s, LessThanOrEqualToFinalShare, LessThanInitialShare)
		}
	}
	for _, f := range objs.Flavors {
		e.flavors[f.Name] = f
	}
	cohorts := map[string]*node{}
	var cohortOrder []string
	cohortNode := func(name string) *node {
		if n, ok := cohorts[name]; ok {
			return n
		}
		n := newNode(name)
		cohorts[name] = n
		cohortOrder = append(cohortOrder, name)
		return n
	}
	for _, c := range objs.Cohorts {
		n := cohortNode(c.Name)
		n.setQuotas(c.ResourceGroups)
		n.fairWeight = c.FairWeight
	}
	for _, c := range objs.Cohorts {
		if c.Parent != "" {
			n, p := cohorts[c.Name], cohortNode(c.Parent)
			n.parent = p
			p.cohorts = append(p.cohorts, n)
		}
	}
	for _, q := range objs.ClusterQueues {
		spec := &cqSpec{ClusterQueue: q, active: q.StopPolicy == "" || q.StopPolicy == quota.StopPolicyNone}
		if q.NamespaceSelector == nil {
			spec.selector = model.Nothing()
		} else {
			sel, err := q.NamespaceSelector.Compile()
			if err != nil {
				return nil, fmt.Errorf("ClusterQueue %s: spec.namespaceSelector: %w", q.Name, err)
			}
			spec.selector = sel
		}
		for _, rg := range q.ResourceGroups {
			g := rgSpec{ResourceGroup: rg, labelKeys: map[string]bool{}}
			for _, f := range rg.Flavors {
				rf := e.flavors[f.Name]
				if rf == nil {
					spec.active = false
					continue
				}
				for k := range rf.NodeLabels {
					g.labelKeys[k] = true
				}
			}
			spec.groups = append(spec.groups, g)
		}
		n := newNode(q.Name)
		n.setQuotas(q.ResourceGroups)
		cq := &clusterQueue{spec: spec, node: n, inadmissible: map[string]*workload{}, requeuedAt: -1, admitted: map[string]*workload{}, fingerprint: &e.print}
		cq.heap = wlHeap{cq: cq, index: map[string]int{}}
		n.cq = cq
		if q.Cohort != "" {
			p := cohortNode(q.Cohort)
			n.parent = p
			p.cqs = append(p.cqs, n)
		}
		e.cqs[q.Name] = cq
		e.cqOrder = append(e.cqOrder, cq)
	}
	for _, name := range cohortOrder {
		if n := cohorts[name]; n.parent == nil {
			if err := checkAcyclic(n, map[*node]bool{}); err != nil {
				return nil, err
			}
			e.roots = append(e.roots, n)
		}
	}
	if len(e.roots) < countRoots(cohorts) {
		return nil, fmt.Errorf("cohorts: %w", ErrCohortCycle)
	}
	for _, cq := range e.cqOrder {
		if cq.node.parent == nil {
			e.roots = append(e.roots, cq.node)
		}
	}
	for _, r := range e.roots {
		r.recompute()
	}
	if err := e.addWorkloads(objs, namespaces); err != nil {
		return nil, err
	}
	for _, w := range e.workloads {
		if w.admission != nil {
			e.addUsage(w)
		}
	}
	return e, nil
}

func countRoots(cohorts map[string]*node) int { return len(cohorts) - countChildren(cohorts) }

func countChildren(cohorts map[string]*node) int {
	n := 0
	for _, c := range cohorts {
		if c.parent != nil {
			n++
		}
	}
	return n
}

func checkAcyclic(n *node, seen map[*node]bool) error {
	if seen[n] {
		return fmt.Errorf("cohort %s: %w", n.name, ErrCohortCycle)
	}
	seen[n] = true
	for _, c := range n.cohorts {
		if err := checkAcyclic(c, seen); err != nil {
			return err
		}
	}
	return nil
}

func (e *engine) addWorkloads(objs *quota.Objects, namespaces []*model.Namespace) error {
	nsLabels := map[string]map[string]string{}
	for _, ns := range namespaces {
		l := map[string]string{"kubernetes.io/metadata.name": ns.Name}
		for k, v := range ns.Labels {
			l[k] = v
		}
		nsLabels[ns.Name] = l
	}
	lqs := map[string]*quota.LocalQueue{}
	for _, q := range objs.LocalQueues {
		lqs[q.Key()] = q
	}
	latest := time.Time{}
	for _, src := range objs.Workloads {
		if src.Created.After(latest) {
			latest = src.Created
		}
		if src.Admission != nil && src.Admission.Reserved.After(latest) {
			latest = src.Admission.Reserved
		}
	}
	e.start = latest.Add(time.Minute)
	for _, src := range objs.Workloads {
		w := &workload{src: src, key: src.Key(), uid: src.UID, priority: src.Priority, created: src.Created}
		if w.uid == "" {
			w.uid = "wl-" + src.Namespace + "-" + src.Name
		}
		w.namespace = nsLabels[src.Namespace]
		if w.namespace == nil {
			w.namespace = map[string]string{"kubernetes.io/metadata.name": src.Namespace}
		}
		for _, ps := range src.PodSets {
			w.podSets = append(w.podSets, podSetReq{name: ps.Name, count: ps.Count, minCount: ps.MinCount, perPod: ps.Requests, nodeSelector: ps.NodeSelector, tolerations: ps.Tolerations})
		}
		e.workloads = append(e.workloads, w)
		e.byKey[w.key] = w
		if src.Error != "" {
			continue
		}
		if lq := lqs[src.Namespace+"/"+src.QueueName]; lq != nil {
			w.cqName = lq.ClusterQueue
		} else {
			w.lqMissing = true
		}
		if src.Admission != nil {
			cq := e.cqs[src.Admission.ClusterQueue]
			if cq == nil {
				return fmt.Errorf("workload %s: status.admission.clusterQueue: ClusterQueue %q not found", w.key, src.Admission.ClusterQueue)
			}
			a := &admitted{cq: cq, reserved: src.Admission.Reserved, usage: map[fr]int64{}}
			if a.reserved.IsZero() {
				a.reserved = src.Created
			}
			for i, psa := range src.Admission.PodSetAssignments {
				if i >= len(w.podSets) {
					break
				}
				count := psa.Count
				if count == 0 {
					count = w.podSets[i].count
				}
				p := podSetAssignment{name: psa.Name, count: count, flavors: map[string]*flavorAssignment{}}
				reqs := w.podSets[i].scaled(count)
				if cq.spec.rgByResource(model.ResourcePods) != nil {
					reqs[model.ResourcePods] = int64(count)
				}
				for res, q := range reqs {
					f, ok := psa.Flavors[res]
					if !ok || q == 0 {
						continue
					}
					p.flavors[res] = &flavorAssignment{flavor: f, mode: fitMode}
					a.usage[fr{Flavor: f, Resource: res}] += q
				}
				a.podSets = append(a.podSets, p)
			}
			w.admission = a
			cq.admitted[w.key] = w
			continue
		}
		if !src.Active || w.lqMissing {
			continue
		}
		if cq := e.cqs[w.cqName]; cq != nil {
			cq.push(w)
			if !cq.spec.active {
				// What Kueue's workload controller writes at once.
				w.hasCond, w.condMsg = true, fmt.Sprintf("ClusterQueue %s is inactive", cq.spec.Name)
			}
		}
	}
	return nil
}

// loop runs cycles as kueueoracle does until nothing can change.
func (e *engine) loop(ctx context.Context) Summary {
	e.running = e.cqOrder
	maxCycles := e.maxCycles()
	var q quiet
	for {
		if ctx.Err() != nil {
			return Summary{Cycles: e.cycle, Reason: "cancelled"}
		}
		if e.err != nil {
			return Summary{Cycles: e.cycle, Reason: "failed"}
		}
		if !e.anyActiveHeap() {
			return Summary{Cycles: e.cycle, Reason: "no workload in an active heap"}
		}
		if e.cycle >= maxCycles {
			return Summary{Cycles: e.cycle, Reason: fmt.Sprintf("stopped after %d cycles", maxCycles)}
		}
		before := e.print
		e.cycle++
		r := e.runCycle(ctx)
		if e.opts.Quiesce {
			if q.after(r, before == e.print) {
				return Summary{Cycles: e.cycle, Reason: "quiet"}
			}
			continue
		}
		if r.admitted == 0 && r.preempted == 0 && before == e.print {
			return Summary{Cycles: e.cycle, Reason: "fixpoint"}
		}
	}
}

// maxCycles is kueueoracle's default cycle limit.
func (e *engine) maxCycles() int { return 10*len(e.workloads) + 10 }

func (e *engine) anyActiveHeap() bool {
	for _, cq := range e.running {
		if cq.spec.active && cq.heap.Len() > 0 {
			return true
		}
	}
	return false
}

func (e *engine) lines() []Line {
	out := make([]Line, 0, len(e.workloads))
	for _, w := range e.workloads {
		out = append(out, e.line(w))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Workload < out[j].Workload })
	return out
}

func (e *engine) line(w *workload) Line {
	l := Line{Workload: w.key}
	if w.src.Error != "" {
		l.Result, l.Message = ResultError, w.src.Error
		return l
	}
	if w.src.HasPriority {
		p := w.priority
		l.Priority = &p
	}
	if w.preemptions > 0 {
		l.PreemptedBy, l.PreemptionReason, l.PreemptedCycle, l.Preemptions = w.preemptedBy, w.preemptWhy, w.preemptAt, w.preemptions
	}
	if len(w.victims) > 0 {
		l.Victims = slices.Clone(w.victims)
		slices.Sort(l.Victims)
	}
	if a := w.admission; a != nil {
		l.Result, l.ClusterQueue, l.Cycle = ResultAdmitted, a.cq.spec.Name, w.admitCycle
		l.Flavors = map[string]string{}
		for i, ps := range a.podSets {
			for res, f := range ps.flavors {
				l.Flavors[ps.name+"/"+res] = f.flavor
			}
			if i < len(w.podSets) && ps.count != w.podSets[i].count {
				if l.Counts == nil {
					l.Counts = map[string]int32{}
				}
				l.Counts[ps.name] = ps.count
			}
		}
		if len(l.Flavors) == 0 {
			l.Flavors = nil
		}
		l.Placement = maps.Clone(w.placement)
		return l
	}
	if !w.lqMissing && w.cqName != "" {
		l.ClusterQueue = w.cqName
	}
	cq := e.cqs[w.cqName]
	active := cq != nil && cq.inHeap(w.key)
	switch {
	case w.preemptions > 0 && w.admitCycle <= w.preemptAt:
		l.Result, l.Cycle, l.Message = ResultPreempted, w.preemptAt, w.preemptMsg
	case !active:
		l.Result, l.Cycle = ResultInadmissible, w.lastCycle
	default:
		l.Result, l.Cycle = ResultPending, w.lastCycle
	}
	if l.Result != ResultPreempted && w.hasCond {
		l.Message = w.condMsg
	}
	if w.lqMissing {
		l.Message = fmt.Sprintf("LocalQueue %s doesn't exist", w.src.QueueName)
	}
	if !w.src.Active {
		l.Result, l.Message = ResultInadmissible, "the workload is not active (spec.active: false)"
	}
	return l
}
