package preemption

import (
	"math"
	"time"

	"github.com/berthsched/berth/core/model"
)

// SelectCandidate picks the node to preempt on by kube's criteria, each
// applied to the candidates tied on the previous ones: fewest budget
// violations; lowest priority of the most important victim; smallest sum
// of victim priorities (each shifted by 2^31, so that more victims of
// negative priority do not look cheaper); fewest victims; latest start
// time among the most important victims. Remaining ties go to the smallest
// node name when deterministic, else to the first candidate found. It
// returns nil when there is no candidate.
func (e *Evaluator) SelectCandidate(candidates []*Candidate) *Candidate {
	if len(candidates) == 0 {
		return nil
	}
	now := e.h.Clock().Now()
	criteria := []func(c *Candidate) int64{
		func(c *Candidate) int64 { return -int64(c.NumPDBViolations) },
		func(c *Candidate) int64 { return -int64(c.Victims[0].Priority) },
		func(c *Candidate) int64 {
			var sum int64
			for _, v := range c.Victims {
				sum += int64(v.Priority) + math.MaxInt32 + 1
			}
			return -sum
		},
		func(c *Candidate) int64 { return -int64(len(c.Victims)) },
		func(c *Candidate) int64 { return earliestTopStart(c.Victims, now).UnixNano() },
	}
	tied := candidates
	for _, score := range criteria {
		if len(tied) == 1 {
			break
		}
		tied = best(tied, score)
	}
	pick := tied[0]
	if e.opts.Deterministic {
		for _, c := range tied[1:] {
			if c.Node < pick.Node {
				pick = c
			}
		}
	}
	return pick
}

// best returns the candidates with the highest score, in order.
func best(cs []*Candidate, score func(*Candidate) int64) []*Candidate {
	var out []*Candidate
	top := int64(math.MinInt64)
	for _, c := range cs {
		switch s := score(c); {
		case s > top:
			top, out = s, append(out[:0:0], c)
		case s == top:
			out = append(out, c)
		}
	}
	return out
}

// earliestTopStart is the earliest start time among the victims of the
// highest priority.
func earliestTopStart(victims []*model.Pod, now time.Time) time.Time {
	top := victims[0].Priority
	earliest := startTime(victims[0], now)
	for _, v := range victims[1:] {
		st := startTime(v, now)
		switch {
		case v.Priority > top:
			top, earliest = v.Priority, st
		case v.Priority == top && st.Before(earliest):
			earliest = st
		}
	}
	return earliest
}
