package daemon

import (
	"context"

	"github.com/berthsched/berth/server/podbook"
)

// The restart sequence, in one place. A berthd that starts on an earlier
// run's data (or a replica that becomes the leader) rebuilds its memory in
// two steps:
//
//  1. restore, at Open, before anything is scheduled: the book reads
//     every per-pod fact back from the store (binds and evictions
//     awaiting their outcome, nominations, last messages, allocated
//     claims, the volumes the binds reserved, the Kueue admissions) and
//     the scheduler takes back its share (scheduler.Restore), the
//     admission controller its admissions (queuesvc.Controller.Restore);
//     scheduling then waits for the orchestrator's re-list
//     (InitialSyncTimeout), and admission rounds for it too.
//  2. resynced, at the end of each re-list of pods: the scheduler drops
//     what it restored for pods not re-sent (deleted while berthd was
//     down), deallocating their claims and freeing their volumes, then
//     the book forgets their facts; admission rounds start
//     (queuesvc.Controller.SetSynced).

// restore is step 1.
func (d *Daemon) restore(ctx context.Context) error {
	facts, err := d.book.Restore(ctx)
	if err != nil {
		return err
	}
	d.sched.Restore(facts.Scheduler())
	d.admissions = facts.Admissions
	first, last := d.store.Revisions()
	d.logger.Info("store open", "store", d.StorePath(), "log_id", d.log.ID(), "first_revision", first, "last_revision", last,
		"nominations", len(facts.Nominations), "binds_awaiting_outcome", len(facts.Binds), "evictions_pending", len(facts.Evictions),
		"allocated_claims", len(facts.Claims), "binds_with_volumes", len(facts.Volumes), "kueue_admissions", len(facts.Admissions))
	d.restarted = last > 0 || !facts.Empty()
	if d.cfg.InitialSyncTimeout > 0 && d.restarted {
		return d.holdForRelist(ctx)
	}
	return nil
}

// resynced is step 2.
func (d *Daemon) resynced(ctx context.Context, outcomes *podbook.Outcomes) {
	forgotten, err := d.sched.Resynced(ctx)
	if err != nil {
		d.logger.Error("re-list: deallocating the claims of pods gone failed; they stay allocated", "err", err)
	}
	outcomes.Resynced(ctx, forgotten.Evictions)
	if forgotten.Nominations > 0 || forgotten.Volumes > 0 {
		d.logger.Info("re-list complete: forgot what was restored for pods not re-sent",
			"nominations", forgotten.Nominations, "volume_bindings", forgotten.Volumes, "evictions", len(forgotten.Evictions))
	}
}
