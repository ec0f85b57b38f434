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

// relistNote says why berthd may hold no nodes or pods, "" when berthd is
// not waiting for a re-list (or cannot say: an older berthd, an error).
func relistNote(ctx context.Context, c *client) string {
	ctx, cancel := context.WithTimeout(ctx, min(serverInfoTimeout, c.timeout))
	defer cancel()
	info, err := c.admin.ServerInfo(ctx, &berthv1.ServerInfoRequest{})
	if err != nil || !info.GetAwaitingRelist() {
		return ""
	}
	note := "berthd restarted and has had no re-list from the orchestrator since " +
		"(berthd keeps decisions, nominations and binds across restarts, not nodes and pods)"
	if info.GetSchedulingHeld() {
		note += "; scheduling waits for the re-list or berthd's --initial-sync-timeout"
	}
	return note
}

// emptyHint prints, under an empty listing of what, why it may be empty.
func (a *app) emptyHint(ctx context.Context, c *client, what string) {
	if note := relistNote(ctx, c); note != "" {
		fmt.Fprintf(a.err, "berthctl: no %s: %s\n", what, note)
	}
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
