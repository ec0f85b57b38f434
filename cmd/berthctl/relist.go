package main

import (
	"context"
	"fmt"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// serverInfoTimeout bounds the ServerInfo call made to explain an empty
// answer; the answer stands without it.
const serverInfoTimeout = 2 * time.Second

// relistNote says why berthd may hold fewer nodes or pods than the
// orchestrator runs, "" when it is not waiting for a re-list (or cannot
// say: an older berthd, an error). It names what ServerInfo reports: a
// restart on an earlier run's data, or a replica that took the lead.
func relistNote(ctx context.Context, c *client) string {
	ctx, cancel := context.WithTimeout(ctx, min(serverInfoTimeout, c.timeout))
	defer cancel()
	info, err := c.admin.ServerInfo(ctx, &berthv1.ServerInfoRequest{})
	if err != nil || !info.GetAwaitingRelist() {
		return ""
	}
	note := "berthd started on an earlier run's data and has had no re-list from the orchestrator since, so it holds only " +
		"what was sent after it started (it keeps decisions, nominations and binds across restarts, not nodes and pods)"
	if info.GetRole() == berthv1.ReplicaRole_REPLICA_ROLE_LEADER {
		note = fmt.Sprintf("this replica took the lead (term %d) and has had no re-list from the orchestrator since, so it holds only "+
			"what was sent to it since (a new leader reads decisions, nominations and binds from the store, not nodes and pods)", info.GetTerm())
	}
	note += "; the orchestrator's re-list (a Sync from RESYNC_BEGIN to RESYNC_END, or berthctl apply --prune) ends the wait, a plain apply does not"
	if info.GetSchedulingHeld() {
		note += "; scheduling waits for the re-list or berthd's --initial-sync-timeout"
	}
	return note
}

// emptyHint prints, under an empty listing of what, that it is empty and,
// when berthd waits for a re-list, why it may be.
func (a *app) emptyHint(ctx context.Context, c *client, what string) {
	if note := relistNote(ctx, c); note != "" {
		fmt.Fprintf(a.err, "berthctl: no %s yet: %s\n", what, note)
		return
	}
	fmt.Fprintf(a.err, "berthctl: no %s\n", what)
}

// notFoundHint adds to a not-found error why berthd may not hold the
// object yet.
func (a *app) notFoundHint(ctx context.Context, c *client, err error) error {
	if exitCode(err) != exitNotFound {
		return err
	}
	if note := relistNote(ctx, c); note != "" {
		return &exitError{code: exitNotFound, err: fmt.Errorf("%w: %s", err, note)}
	}
	return err
}
