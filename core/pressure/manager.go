package pressure

import (
	"sort"
	"time"

	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// ImmediateGracePeriodSeconds is the grace the kubelet gives a pod evicted
// for a hard threshold.
const ImmediateGracePeriodSeconds = 1

// State is what the eviction manager remembers about one node between
// samples. Thresholds are named by Threshold.Key, so a State survives a
// restart (and a configuration change drops what no longer applies).
type State struct {
	// ThresholdsFirstObservedAt: when each threshold now met was first met
	// (soft thresholds evict once their grace period has passed since).
	ThresholdsFirstObservedAt map[string]time.Time `json:"thresholdsFirstObservedAt,omitempty"`
	// ConditionsLastObservedAt: when each pressure condition was last
	// observed; it holds for the transition period after.
	ConditionsLastObservedAt map[Condition]time.Time `json:"conditionsLastObservedAt,omitempty"`
	// ThresholdsMet: thresholds met with their grace period satisfied, kept
	// until the signal is above threshold plus minimum reclaim.
	ThresholdsMet []string `json:"thresholdsMet,omitempty"`
	// LastObservationTimes: the time of each signal in the last sample; a
	// threshold whose signal has not been measured again is not acted on.
	LastObservationTimes map[Signal]time.Time `json:"lastObservationTimes,omitempty"`
}

// ConditionsAt are the pressure conditions that hold at now: observed
// within the transition period before it. Sorted as Conditions.
func (s *State) ConditionsAt(now time.Time, period time.Duration) []Condition {
	var out []Condition
	for _, c := range Conditions {
		if at, ok := s.ConditionsLastObservedAt[c]; ok && now.Sub(at) < period {
			out = append(out, c)
		}
	}
	return out
}

// Eviction is the pod the manager chose, with what the kubelet would give
// its KillPodFunc.
type Eviction struct {
	Pod                *Pod
	GracePeriodSeconds int64
	Message            string
	Threshold          Threshold
}

// Result is one synchronize pass: the new state, the conditions that hold,
// and at most one eviction.
type Result struct {
	State      State
	Conditions []Condition
	// ThresholdsMet are the keys of thresholds met with grace satisfied and
	// not yet resolved by minimum reclaim, sorted.
	ThresholdsMet []string
	Evicted       *Eviction
	// Reclaim is the resource being reclaimed; Ranking the pods as ranked
	// and CriticalSkipped the critical pods passed over (when pods were
	// ranked).
	Reclaim         string
	Ranking         []string
	CriticalSkipped []string
	// Ambiguous: several thresholds competed for the one to reclaim; the
	// kubelet's choice among them is its map order, Berth's is fixed.
	Ambiguous bool
}

// Synchronize is one pass of the kubelet's eviction manager over a sample:
// which thresholds are met (and which earlier ones are not yet resolved by
// minimum reclaim), when each was first met, the node conditions with the
// transition period, and, if a threshold's grace period has passed and its
// signal was measured anew, the first non-critical pod of the ranking.
func Synchronize(cfg Config, prev State, now time.Time, s *statsv1.Summary, pods []*Pod) Result {
	obs := Observe(s)
	byKey := make(map[string]Threshold, len(cfg.Thresholds))
	for _, t := range cfg.Thresholds {
		byKey[t.Key()] = t
	}
	met := thresholdsMet(cfg.Thresholds, obs, false)
	var unresolved []Threshold
	for _, k := range prev.ThresholdsMet {
		if t, ok := byKey[k]; ok {
			unresolved = append(unresolved, t)
		}
	}
	met = mergeThresholds(met, thresholdsMet(unresolved, obs, true))

	st := State{
		ThresholdsFirstObservedAt: map[string]time.Time{},
		ConditionsLastObservedAt:  map[Condition]time.Time{},
		LastObservationTimes:      map[Signal]time.Time{},
	}
	for _, t := range met {
		at, ok := prev.ThresholdsFirstObservedAt[t.Key()]
		if !ok {
			at = now
		}
		st.ThresholdsFirstObservedAt[t.Key()] = at
	}
	for c, at := range prev.ConditionsLastObservedAt {
		st.ConditionsLastObservedAt[c] = at
	}
	for _, t := range met {
		st.ConditionsLastObservedAt[t.Signal.Condition()] = now
	}
	var graced []Threshold
	for _, t := range met {
		if now.Sub(st.ThresholdsFirstObservedAt[t.Key()]) >= t.GracePeriod {
			graced = append(graced, t)
			st.ThresholdsMet = append(st.ThresholdsMet, t.Key())
		}
	}
	sort.Strings(st.ThresholdsMet)
	for sig, o := range obs {
		st.LastObservationTimes[sig] = o.Time
	}
	res := Result{
		State:         st,
		Conditions:    st.ConditionsAt(now, cfg.PressureTransitionPeriod),
		ThresholdsMet: st.ThresholdsMet,
	}
	act := updatedStats(graced, obs, prev.LastObservationTimes)
	if len(act) == 0 {
		return res
	}
	sortThresholds(act)
	res.Ambiguous = ambiguous(act)
	reclaim := act[0]
	res.Reclaim = reclaim.Signal.Resource()
	if len(pods) == 0 {
		return res
	}
	ranked := Rank(reclaim.Signal, pods, s)
	byUID := statsByUID(s)
	for _, p := range ranked {
		res.Ranking = append(res.Ranking, p.Key())
	}
	for _, p := range ranked {
		if p.IsCritical() {
			res.CriticalSkipped = append(res.CriticalSkipped, p.Key())
			continue
		}
		res.Evicted = &Eviction{
			Pod:                p,
			GracePeriodSeconds: gracePeriod(cfg, reclaim, p),
			Message:            Message(reclaim.Signal.Resource(), p, byUID[p.UID], act, obs),
			Threshold:          reclaim,
		}
		break
	}
	return res
}

// gracePeriod: hard thresholds give the immediate-eviction grace; soft ones
// the smaller of evictionMaxPodGracePeriod and the pod's own grace.
func gracePeriod(cfg Config, t Threshold, p *Pod) int64 {
	if t.Hard() {
		return ImmediateGracePeriodSeconds
	}
	g := cfg.MaxPodGracePeriodSeconds
	if p.TerminationGracePeriodSeconds != nil {
		g = min(g, *p.TerminationGracePeriodSeconds)
	}
	return g
}

// thresholdsMet: the thresholds whose signal is below the threshold (plus
// the minimum reclaim, when enforceMinReclaim). Unmeasured signals never are.
func thresholdsMet(ts []Threshold, obs Observations, enforceMinReclaim bool) []Threshold {
	var out []Threshold
	for _, t := range ts {
		o, ok := obs[t.Signal]
		if !ok {
			continue
		}
		q := t.Value.Of(o.Capacity)
		if enforceMinReclaim && t.MinReclaim != nil {
			q.Add(t.MinReclaim.Of(o.Capacity))
		}
		if q.Value() > o.Available {
			out = append(out, t)
		}
	}
	return out
}

func mergeThresholds(a, b []Threshold) []Threshold {
	seen := map[string]bool{}
	for _, t := range a {
		seen[t.Key()] = true
	}
	for _, t := range b {
		if !seen[t.Key()] {
			seen[t.Key()] = true
			a = append(a, t)
		}
	}
	return a
}

// updatedStats keeps the thresholds whose signal was measured after the
// previous sample's measurement (or carries no time).
func updatedStats(ts []Threshold, obs Observations, last map[Signal]time.Time) []Threshold {
	var out []Threshold
	for _, t := range ts {
		o, ok := obs[t.Signal]
		if !ok {
			continue
		}
		prev, seen := last[t.Signal]
		if !seen || o.Time.IsZero() || o.Time.After(prev) {
			out = append(out, t)
		}
	}
	return out
}

// ambiguous reports whether the kubelet's choice of the threshold to
// reclaim depends on map order: it sorts memory signals first and leaves
// the rest unordered, so any second candidate that is not behind a memory
// threshold makes the choice (and so the grace and message) unspecified.
func ambiguous(sorted []Threshold) bool {
	if len(sorted) < 2 {
		return false
	}
	memory := func(t Threshold) bool { return t.Signal.Resource() == "memory" }
	n := 0
	for _, t := range sorted {
		if memory(t) == memory(sorted[0]) {
			n++
		}
	}
	return n > 1
}
