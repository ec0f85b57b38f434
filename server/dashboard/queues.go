package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Queues is Kueue's admission as the dashboard reads it: where each
// ClusterQueue's quota stands and every workload it knows.
// *queuesvc.Controller's status (through server/daemon's adapter)
// satisfies it.
type Queues interface {
	ClusterQueues() []*berthv1.ClusterQueueStatus
	Workloads() []*berthv1.WorkloadStatus
}

// workloadRowsShown caps the waiting workloads' table; berthctl get
// workloads lists them all.
const workloadRowsShown = 200

// queuesView is the data of the queues page.
type queuesView struct {
	// Configured is false when berthd runs no admission controller.
	Configured bool
	Queues     []queueRow
	Cohorts    []cohortRow
	// Waiting are the pending and inadmissible workloads, by priority
	// then age; More counts those left out.
	Waiting []*berthv1.WorkloadStatus
	More    int
	// Admitted and Evicting count the workloads in those states.
	Admitted, Evicting int
}

// queueRow is one ClusterQueue with a bar per flavor and resource.
type queueRow struct {
	Status *berthv1.ClusterQueueStatus
	Bars   []usageBar
}

// cohortRow sums its ClusterQueues' quota and usage per flavor and
// resource.
type cohortRow struct {
	Name   string
	Queues []string
	Bars   []usageBar
}

// usageBar is the use of one flavor's resource against its nominal quota:
// Own is the part within nominal, Borrowed the part beyond it, both in
// percent of the bar, whose full width is nominal plus the borrowing
// limit (twice the nominal when the limit is unset or the usage is
// beyond it).
type usageBar struct {
	Flavor, Resource string
	Usage, Nominal   int64
	Borrowed         int64
	Limit            string // the borrowing limit, "" when none
	Own, Lent        int    // percents of the bar
}

func newBar(u *berthv1.FlavorResourceUsage) usageBar {
	b := usageBar{Flavor: u.GetFlavor(), Resource: u.GetResource(), Usage: u.GetUsage(), Nominal: u.GetNominal(), Borrowed: u.GetBorrowed()}
	full := 2 * b.Nominal
	if u.BorrowingLimit != nil {
		b.Limit = quantity(b.Resource, u.GetBorrowingLimit())
		full = b.Nominal + u.GetBorrowingLimit()
	}
	full = max(full, b.Usage, 1)
	own := min(b.Usage, b.Nominal)
	b.Own = int(own * 100 / full)
	b.Lent = int((b.Usage - own) * 100 / full)
	return b
}

// poolBar is a cohort's bar: its members' usage against their nominal
// quota summed, which is the most they can use together.
func poolBar(flavor, resource string, nominal, usage int64) usageBar {
	full := max(nominal, usage, 1)
	return usageBar{Flavor: flavor, Resource: resource, Usage: usage, Nominal: nominal, Own: int(usage * 100 / full)}
}

// quantity prints v in the resource's unit: cores for cpu (held in
// millicores), else the integer.
func quantity(resource string, v int64) string {
	if resource == "cpu" {
		if v%1000 == 0 {
			return fmt.Sprint(v / 1000)
		}
		return fmt.Sprintf("%dm", v)
	}
	return fmt.Sprint(v)
}

// queuesPage shows every ClusterQueue's usage against its quota, the
// cohorts' sums, and the workloads waiting with why.
func (d *Dashboard) queuesPage(w http.ResponseWriter, r *http.Request) {
	v := queuesView{Configured: d.opts.Queues != nil}
	if v.Configured {
		v.build(d.opts.Queues.ClusterQueues(), d.opts.Queues.Workloads())
	}
	d.render(w, r, http.StatusOK, "queues", page{Title: "Queues", Nav: "queues", Data: v})
}

func (v *queuesView) build(cqs []*berthv1.ClusterQueueStatus, wls []*berthv1.WorkloadStatus) {
	cqs = slices.Clone(cqs)
	slices.SortFunc(cqs, func(a, b *berthv1.ClusterQueueStatus) int { return cmp.Compare(a.GetName(), b.GetName()) })
	type key struct{ flavor, resource string }
	cohorts := map[string]*cohortRow{}
	sums := map[string]map[key]*berthv1.FlavorResourceUsage{}
	var order []string
	for _, cq := range cqs {
		row := queueRow{Status: cq}
		for _, u := range cq.GetResources() {
			row.Bars = append(row.Bars, newBar(u))
		}
		v.Queues = append(v.Queues, row)
		name := cq.GetCohort()
		if name == "" {
			continue
		}
		c, ok := cohorts[name]
		if !ok {
			c = &cohortRow{Name: name}
			cohorts[name], sums[name] = c, map[key]*berthv1.FlavorResourceUsage{}
			order = append(order, name)
		}
		c.Queues = append(c.Queues, cq.GetName())
		for _, u := range cq.GetResources() {
			k := key{u.GetFlavor(), u.GetResource()}
			s, ok := sums[name][k]
			if !ok {
				s = &berthv1.FlavorResourceUsage{Flavor: k.flavor, Resource: k.resource}
				sums[name][k] = s
				c.Bars = append(c.Bars, usageBar{Flavor: k.flavor, Resource: k.resource})
			}
			s.Nominal += u.GetNominal()
			s.Usage += u.GetUsage()
		}
	}
	slices.Sort(order)
	for _, name := range order {
		c := cohorts[name]
		for i, b := range c.Bars {
			// A cohort's pool is its members' nominal quota: usage beyond it
			// cannot be, so the bar's full width is the pool.
			s := sums[name][key{b.Flavor, b.Resource}]
			c.Bars[i] = poolBar(b.Flavor, b.Resource, s.Nominal, s.Usage)
		}
		v.Cohorts = append(v.Cohorts, *c)
	}
	var waiting []*berthv1.WorkloadStatus
	for _, w := range wls {
		switch w.GetState() {
		case berthv1.WorkloadState_WORKLOAD_STATE_PENDING, berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE:
			waiting = append(waiting, w)
		case berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED:
			v.Admitted++
		case berthv1.WorkloadState_WORKLOAD_STATE_EVICTING:
			v.Evicting++
		}
	}
	slices.SortStableFunc(waiting, func(a, b *berthv1.WorkloadStatus) int {
		return cmp.Or(cmp.Compare(b.GetPriority(), a.GetPriority()),
			a.GetCreationTime().AsTime().Compare(b.GetCreationTime().AsTime()),
			cmp.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName()))
	})
	v.Waiting, v.More = capped(waiting, workloadRowsShown)
}

// workloadStateName is a workload's state as the page prints it.
func workloadStateName(s berthv1.WorkloadState) string {
	switch s {
	case berthv1.WorkloadState_WORKLOAD_STATE_PENDING:
		return "pending"
	case berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE:
		return "inadmissible"
	case berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED:
		return "admitted"
	case berthv1.WorkloadState_WORKLOAD_STATE_EVICTING:
		return "evicting"
	}
	return "unknown"
}
