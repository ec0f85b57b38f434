package dashboard

import (
	"fmt"
	"net/http"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Descheduler is the descheduler as the dashboard reads it: the last plan
// it made (nil before the first). *deschedulesvc.Runner satisfies it.
type Descheduler interface {
	Last() *berthv1.DeschedulePlan
}

// planRowsShown caps each of the plan's tables: a pass over a large
// cluster can name thousands of candidates it leaves out, and berthctl
// deschedule --last prints them all.
const planRowsShown = 200

// planView is the data of the descheduler page.
type planView struct {
	// Configured is false when berthd runs no descheduler policy.
	Configured bool
	Plan       *berthv1.DeschedulePlan
	Moves      []*berthv1.DescheduleMove
	Skipped    []*berthv1.DescheduleSkip
	// MoreMoves and MoreSkipped count the rows left out of the tables.
	MoreMoves, MoreSkipped int
	// LandsBack counts the skipped candidates the scheduler would place
	// back on their own node: the evictions Berth saved.
	LandsBack int
	Seconds   string
}

// deschedulePage shows the descheduler's last plan: the moves made (or,
// in a dry run, that would be) and the candidates left out with why.
func (d *Dashboard) deschedulePage(w http.ResponseWriter, r *http.Request) {
	v := planView{Configured: d.opts.Descheduler != nil}
	if v.Configured {
		v.Plan = d.opts.Descheduler.Last()
	}
	if p := v.Plan; p != nil {
		v.Moves, v.MoreMoves = capped(p.GetMoves(), planRowsShown)
		v.Skipped, v.MoreSkipped = capped(p.GetSkipped(), planRowsShown)
		for _, s := range p.GetSkipped() {
			if s.GetLandsBack() {
				v.LandsBack++
			}
		}
		v.Seconds = fmt.Sprintf("%.3f", p.GetPlanSeconds())
	}
	d.render(w, r, http.StatusOK, "deschedule", page{Title: "Descheduler", Nav: "deschedule", Data: v})
}

// capped returns the first n of rows and how many it leaves out.
func capped[T any](rows []T, n int) ([]T, int) {
	if len(rows) <= n {
		return rows, 0
	}
	return rows[:n], len(rows) - n
}
